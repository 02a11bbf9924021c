package kubetest

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

var shared struct {
	mu      sync.Mutex
	inMain  bool
	opts    Options
	started bool
	srv     *Server
	err     error
	failed  bool
}

// Main runs the package's tests with one shared server, started by the
// first Shared call and stopped after the last test. Call it from TestMain:
//
//	func TestMain(m *testing.M) { kubetest.Main(m, kubetest.Options{RBAC: true}) }
func Main(m *testing.M, opts Options) {
	flag.Parse()
	os.Exit(Run(m, opts))
}

// Run is Main for a TestMain that starts other servers too: it runs the
// tests, stops the shared server and returns the exit code. The caller
// parses flags first.
func Run(m *testing.M, opts Options) int {
	shared.mu.Lock()
	shared.inMain, shared.opts = true, opts
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	srv, failed := shared.srv, shared.failed || code != 0
	shared.mu.Unlock()
	if srv != nil {
		if failed {
			srv.KeepLogs()
		}
		srv.Stop()
	}
	return code
}

// Shared returns the test binary's server, starting it (and building the
// binaries when missing) on first use. A failed test keeps the server's
// logs.
func Shared(t testing.TB) *Server {
	t.Helper()
	realserver.Require(t, "kube-apiserver and etcd")
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		t.Fatal("kubetest: Shared needs kubetest.Main in TestMain")
	}
	if !shared.started {
		shared.started = true
		shared.srv, shared.err = Start(shared.opts)
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "kubetest: shared API server %s started in %s\n", shared.srv.URL, shared.srv.StartDuration)
		}
	}
	if shared.err != nil {
		t.Fatalf("kubetest: %v", shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			shared.mu.Lock()
			shared.failed = true
			shared.mu.Unlock()
		}
	})
	return shared.srv
}
