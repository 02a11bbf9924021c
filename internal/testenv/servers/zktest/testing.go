package zktest

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// Start starts a standalone server for one test and stops it when the test
// ends; a failed test keeps its log and data. Under -short it skips tb.
func Start(tb testing.TB) *Server {
	tb.Helper()
	realserver.Require(tb, "ZooKeeper")
	s, err := StartServer()
	if err != nil {
		tb.Fatalf("zktest: %v", err)
	}
	tb.Cleanup(func() { s.Cleanup(tb.Failed()) })
	return s
}
