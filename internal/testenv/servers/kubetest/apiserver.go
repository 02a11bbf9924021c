package kubetest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// Token is a static bearer token of the API server's token file.
type Token struct {
	Token  string
	User   string
	Groups []string
}

func writeTokenFile(path string, tokens []Token) error {
	var b strings.Builder
	for i, t := range tokens {
		fmt.Fprintf(&b, "%s,%s,uid-%d,%q\n", t.Token, t.User, i, strings.Join(t.Groups, ","))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// apiserverArgs are the minimal flags of a working kube-apiserver without
// kubelets or controllers.
func apiserverArgs(dir, etcdURL string, port int, p *pki, authz string, extra []string) []string {
	args := []string{
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(port),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--tls-cert-file", p.certFile,
		"--tls-private-key-file", p.keyFile,
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", p.saKeyFile,
		"--service-account-signing-key-file", p.saKeyFile,
		"--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", authz,
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--endpoint-reconciler-type", "none",
		"--profiling=false",
	}
	return append(args, extra...)
}

// startAPIServer starts kube-apiserver and waits for /readyz.
func startAPIServer(bin, dir, etcdURL string, p *pki, adminToken, authz string, extra []string) (*process, int, error) {
	port, err := freeport.Port()
	if err != nil {
		return nil, 0, err
	}
	server, err := startProcess("kube-apiserver", bin, filepath.Join(dir, "kube-apiserver.log"),
		apiserverArgs(dir, etcdURL, port, p, authz, extra))
	if err != nil {
		return nil, 0, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.caPEM)
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &bearer{token: adminToken, rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}},
	}
	if err := waitHTTP(server, fmt.Sprintf("https://127.0.0.1:%d/readyz", port), client, 90*time.Second); err != nil {
		server.stop(5 * time.Second)
		return nil, 0, fmt.Errorf("kube-apiserver: %w\n%s", err, proc.Tail(server.logPath, 20))
	}
	return server, port, nil
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}
