package harness

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

var server *devserver.Server

// Main runs a test binary's tests against one dev server it starts with
// the finalizer's search attributes registered; call it from TestMain.
// Without a cached Temporal CLI it installs it first (~12 min cold).
func Main(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // the tests skip in HostPort
	}
	// An install can take ~12 minutes; the start itself about a second.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	s, err := devserver.StartServer(ctx, devserver.Options{
		SearchAttributes: contract.SearchAttributes(),
		Progress:         os.Stderr,
	})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "harness: %v\n", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if err := s.Cleanup(code != 0); err != nil {
		fmt.Fprintf(os.Stderr, "harness: %v\n", err)
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "harness: kept the Temporal server log %s\n", s.LogPath)
	}
	os.Exit(code)
}

// HostPort is the dev server's frontend address.
func HostPort(t testing.TB) string {
	t.Helper()
	realserver.Require(t, "Temporal dev server")
	if server == nil {
		t.Fatal("harness: no server: call harness.Main from TestMain")
	}
	return server.HostPort
}

// Namespace is the dev server's namespace.
func Namespace() string { return server.Namespace }
