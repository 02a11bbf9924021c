package kubetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// Options shape a server.
type Options struct {
	// RBAC starts the API server with --authorization-mode RBAC instead of
	// AlwaysAllow. The admin token is in system:masters and passes either way.
	RBAC bool
	// EtcdProxy routes the API server's etcd traffic through Server.EtcdProxy.
	EtcdProxy bool
	// FrontProxy serves Server.FrontProxy in front of the API server.
	FrontProxy bool
	// Tokens are extra static bearer tokens.
	Tokens []Token
	// Audit writes an audit log of every ConfigMap request (metadata and
	// response code) that AuditEvents reads.
	Audit bool
	// ExtraArgs are appended to kube-apiserver's flags.
	ExtraArgs []string
}

// Server is a running etcd + kube-apiserver pair.
type Server struct {
	// Dir holds certificates, tokens, etcd data and both logs.
	Dir string
	// URL is the API server's https://127.0.0.1:port.
	URL string
	// CAData is the PEM CA that signed the serving certificate.
	CAData []byte
	// AdminToken is a bearer token in group system:masters.
	AdminToken string
	// EtcdProxy and FrontProxy are nil unless asked for in Options.
	EtcdProxy  *Proxy
	FrontProxy *Proxy
	// StartDuration is how long Start took, binaries excluded.
	StartDuration time.Duration

	etcd, apiserver *process
	// etcdURL is etcd's own client URL, past any proxy.
	etcdURL string
	keep    atomic.Bool
	stopped atomic.Bool
}

// Start starts etcd and kube-apiserver and waits until the API server is
// ready and namespace default exists. Stop it with Stop.
func Start(opts Options) (*Server, error) {
	apiserverBin, etcdBin, err := Binaries()
	if err != nil {
		return nil, err
	}
	begin := time.Now()
	dir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	s := &Server{Dir: dir, AdminToken: randomHex(16)}
	fail := func(err error) (*Server, error) {
		s.keep.Store(true)
		s.Stop()
		return nil, fmt.Errorf("kubetest: %w (logs kept in %s)", err, dir)
	}
	p, err := newPKI(dir)
	if err != nil {
		return fail(err)
	}
	s.CAData = p.caPEM
	tokens := append([]Token{{Token: s.AdminToken, User: "kubetest-admin", Groups: []string{"system:masters"}}}, opts.Tokens...)
	if err := writeTokenFile(dir+"/tokens.csv", tokens); err != nil {
		return fail(err)
	}
	var etcdURL string
	if s.etcd, etcdURL, err = startEtcd(etcdBin, dir); err != nil {
		return fail(err)
	}
	s.etcdURL = etcdURL
	if opts.EtcdProxy {
		if s.EtcdProxy, err = NewProxy("etcd", strings.TrimPrefix(etcdURL, "http://")); err != nil {
			return fail(err)
		}
		etcdURL = "http://" + s.EtcdProxy.Addr()
	}
	authz := "AlwaysAllow"
	if opts.RBAC {
		authz = "RBAC"
	}
	extra := opts.ExtraArgs
	if opts.Audit {
		args, err := writeAuditPolicy(dir)
		if err != nil {
			return fail(err)
		}
		extra = append(args, extra...)
	}
	var port int
	if s.apiserver, port, err = startAPIServer(apiserverBin, dir, etcdURL, p, s.AdminToken, authz, extra); err != nil {
		return fail(err)
	}
	s.URL = fmt.Sprintf("https://127.0.0.1:%d", port)
	if opts.FrontProxy {
		if s.FrontProxy, err = NewProxy("front", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
			return fail(err)
		}
	}
	if err := s.waitDefaultNamespace(30 * time.Second); err != nil {
		return fail(err)
	}
	s.StartDuration = time.Since(begin)
	slog.Info("kubetest: API server ready", "url", s.URL, "dir", dir, "took", s.StartDuration)
	return s, nil
}

func (s *Server) waitDefaultNamespace(timeout time.Duration) error {
	c, err := corev1client.NewForConfig(s.AdminConfig())
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := c.Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("namespace default: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Config returns a client configuration for token, straight to the API
// server.
func (s *Server) Config(token string) *rest.Config {
	return &rest.Config{
		Host:            s.URL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.CAData},
		QPS:             200,
		Burst:           400,
	}
}

// AdminConfig returns a system:masters client configuration.
func (s *Server) AdminConfig() *rest.Config { return s.Config(s.AdminToken) }

// FrontConfig returns a client configuration for token through the front
// proxy, speaking HTTP/1.1 only, so that the proxy can tell requests apart
// by their order without decrypting TLS. It panics without FrontProxy.
func (s *Server) FrontConfig(token string) *rest.Config {
	c := s.Config(token)
	c.Host = "https://" + s.FrontProxy.Addr()
	c.TLSClientConfig.NextProtos = []string{"http/1.1"}
	return c
}

// Admin returns a system:masters core/v1 client.
func (s *Server) Admin(t testing.TB) *corev1client.CoreV1Client {
	t.Helper()
	c, err := corev1client.NewForConfig(s.AdminConfig())
	if err != nil {
		t.Fatalf("kubetest: admin client: %v", err)
	}
	return c
}

// Namespace creates a namespace of its own for the test, named after
// prefix. Namespaces are never deleted: there is no namespace controller to
// finish the deletion, and the whole server goes at the end.
func (s *Server) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	name := dnsLabel(prefix, 50) + "-" + randomHex(4)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := s.Admin(t).Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("kubetest: create namespace %s: %v", name, err)
	}
	return name
}

// KeepLogs makes Stop keep the directory and print where it is.
func (s *Server) KeepLogs() { s.keep.Store(true) }

// Stop stops both processes and the proxies, and removes the directory
// unless KeepLogs was called.
func (s *Server) Stop() {
	if s == nil || s.stopped.Swap(true) {
		return
	}
	if s.FrontProxy != nil {
		s.FrontProxy.Close()
	}
	s.apiserver.stop(10 * time.Second)
	if s.EtcdProxy != nil {
		s.EtcdProxy.Close()
	}
	s.etcd.stop(5 * time.Second)
	if s.keep.Load() {
		fmt.Fprintf(os.Stderr, "kubetest: logs kept in %s (kube-apiserver.log, etcd.log)\n", s.Dir)
		return
	}
	_ = os.RemoveAll(s.Dir)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// dnsLabel squeezes s into a DNS-1123 label prefix of at most max bytes.
func dnsLabel(s string, max int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.Trim(out[len(out)-max:], "-")
	}
	if out == "" {
		out = "t"
	}
	return out
}
