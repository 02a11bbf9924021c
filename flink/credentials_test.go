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

	"github.com/checkpoint-finalizer/finalizer/internal/mtlstest"
)

// credentialWorld is what the rotation scenario needs: a Temporal server
// whose frontend requires a client certificate and sends every connection
// away after a few seconds (so that the plugin shakes hands again, as
// against any frontend in the long run), a worker connected to it, and a
// temporal.toml profile for the plugin whose certificate files the Java
// test fills through an HTTP endpoint: only Go holds the test's CA.
type credentialWorld struct {
	srv        *mtlstest.Server
	taskQueue  string
	configFile string
	certFile   string
	keyFile    string
	control    string
}

// credentialCluster is the cluster the mTLS worker serves.
const credentialCluster = "c4"

// credentialProfile is the temporal.toml profile of the rotation scenario;
// every other scenario uses none (the default profile, absent from the file).
const credentialProfile = "mtls"

// recycled is how long the frontend keeps a connection.
const recycled = 5 * time.Second

func startCredentialWorld(t *testing.T, suffix, bucket string) *credentialWorld {
	t.Helper()
	srv := mtlstest.StartWith(t, mtlstest.Options{MaxConnectionAge: recycled})
	p := &srv.PKI
	dir := t.TempDir()
	w := &credentialWorld{srv: srv, taskQueue: "flink-mtls-" + suffix, configFile: filepath.Join(dir, "temporal.toml"),
		certFile: filepath.Join(dir, "jobmanager.pem"), keyFile: filepath.Join(dir, "jobmanager-key.pem")}
	require.NoError(t, os.WriteFile(w.configFile, []byte(fmt.Sprintf(`[profile.%s]
address = %q
namespace = %q
[profile.%[1]s.tls]
server_ca_cert_path = %[4]q
server_name = %[5]q
client_cert_path = %[6]q
client_key_path = %[7]q
`, credentialProfile, srv.Frontend, mtlstest.Namespace, p.CAFile, p.ServerName, w.certFile, w.keyFile)), 0o600))
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
	}
}
