package flink_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/authproxy"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
)

// credentialWorld is what the rotation scenarios need: a Temporal server
// whose frontend requires a client certificate and sends every connection
// away after a few seconds (so that the plugin shakes hands again, as
// against any frontend in the long run), a worker connected to it, and a
// temporal.toml profile for the plugin whose certificate files the Java
// test fills through an HTTP endpoint: only Go holds the test's CA. For the
// API key, a frontend that checks keys (internal/testenv/servers/authproxy in front of the
// dev server, which the plain worker serves) and a profile to reach it; the
// Java test sets the keys it accepts through the same endpoint.
type credentialWorld struct {
	srv        *mtlstest.Server
	keys       *authproxy.Proxy
	taskQueue  string
	configFile string
	certFile   string
	keyFile    string
	control    string
}

// credentialCluster is the cluster the mTLS worker serves.
const credentialCluster = "c4"

// credentialProfile and apiKeyProfile are the temporal.toml profiles of the
// rotation scenarios; every other scenario uses none (the default profile,
// absent from the file).
const (
	credentialProfile = "mtls"
	apiKeyProfile     = "apikey"
)

// recycled is how long the frontend keeps a connection.
const recycled = 5 * time.Second

func startCredentialWorld(t *testing.T, suffix, bucket string) *credentialWorld {
	t.Helper()
	srv := mtlstest.StartWith(t, mtlstest.Options{MaxConnectionAge: recycled})
	p := &srv.PKI
	dir := t.TempDir()
	// No key is accepted until the Java test says which.
	keys, err := authproxy.Start(temporal.HostPort, p.ServerCert, p.ServerKey, "none yet: "+suffix)
	require.NoError(t, err)
	t.Cleanup(keys.Close)
	w := &credentialWorld{srv: srv, keys: keys, taskQueue: "flink-mtls-" + suffix, configFile: filepath.Join(dir, "temporal.toml"),
		certFile: filepath.Join(dir, "jobmanager.pem"), keyFile: filepath.Join(dir, "jobmanager-key.pem")}
	require.NoError(t, os.WriteFile(w.configFile, []byte(fmt.Sprintf(`[profile.%s]
address = %q
namespace = %q
[profile.%[1]s.tls]
server_ca_cert_path = %[4]q
server_name = %[5]q
client_cert_path = %[6]q
client_key_path = %[7]q
[profile.%[8]s]
address = %[9]q
namespace = %[10]q
[profile.%[8]s.tls]
server_ca_cert_path = %[4]q
server_name = %[5]q
`, credentialProfile, srv.Frontend, mtlstest.Namespace, p.CAFile, p.ServerName, w.certFile, w.keyFile,
		apiKeyProfile, keys.Addr, temporal.Namespace)), 0o600))
	startWorker(t, w.taskQueue, bucket, credentialCluster, zk.Addr, "/finalizer-mtls-"+suffix,
		"-temporal-address="+srv.Frontend, "-temporal-namespace="+mtlstest.Namespace, "-temporal-tls-ca-file="+p.CAFile,
		"-temporal-tls-server-name="+p.ServerName, "-temporal-tls-cert-file="+p.ClientCert, "-temporal-tls-key-file="+p.ClientKey)

	mux := http.NewServeMux()
	// POST /issue?cert=PATH&key=PATH&valid=DURATION: a client certificate
	// signed by the frontend's CA, valid for that long from now.
	mux.HandleFunc("POST /issue", func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		valid, err := time.ParseDuration(q.Get("valid"))
		if err != nil || q.Get("cert") == "" || q.Get("key") == "" {
			http.Error(rw, "cert, key and valid (a duration) are required", http.StatusBadRequest)
			return
		}
		if err := p.IssueClient(q.Get("cert"), q.Get("key"), "jobmanager", time.Now().Add(valid)); err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
		}
	})
	// POST /accept?key=K[&key=K2]: the API keys the frontend accepts from now
	// on, every other refused.
	mux.HandleFunc("POST /accept", func(rw http.ResponseWriter, r *http.Request) {
		accepted := r.URL.Query()["key"]
		if len(accepted) == 0 {
			http.Error(rw, "key is required", http.StatusBadRequest)
			return
		}
		keys.Accept(accepted...)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	w.control = "http://" + ln.Addr().String()
	return w
}

// env is what the Java tests read; TEMPORAL_CONFIG_FILE is read by the
// plugin itself, as on a job manager.
func (w *credentialWorld) env() []string {
	return []string{
		"TEMPORAL_CONFIG_FILE=" + w.configFile,
		"FINALIZER_IT_MTLS_PROFILE=" + credentialProfile,
		"FINALIZER_IT_MTLS_TASK_QUEUE=" + w.taskQueue,
		"FINALIZER_IT_MTLS_CLUSTER=" + credentialCluster,
		"FINALIZER_IT_MTLS_CERT=" + w.certFile,
		"FINALIZER_IT_MTLS_KEY=" + w.keyFile,
		"FINALIZER_IT_MTLS_CONTROL=" + w.control,
		"FINALIZER_IT_MTLS_RECYCLED=" + recycled.String(),
		"FINALIZER_IT_APIKEY_PROFILE=" + apiKeyProfile,
	}
}
