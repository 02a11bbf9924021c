// Package temporaltest gives a test its own Temporal dev server
// (internal/testenv/servers/devserver), stopped when the test ends and kept on disk when it
// failed. Under -short it skips: the quick tier starts no server.
package temporaltest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// Start starts a dev server for one test and stops it when the test ends.
// The first use on a machine installs the CLI (~12-18 min, progress on
// stderr). When the test failed, the log and database stay on disk and
// their paths are logged.
func Start(tb testing.TB, opts devserver.Options) *devserver.Server {
	tb.Helper()
	realserver.Require(tb, "Temporal dev server")
	if opts.Progress == nil {
		opts.Progress = os.Stderr
	}
	// A cold install takes ~12-18 minutes; the server start itself ~1 s.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	s, err := devserver.StartServer(ctx, opts)
	if err != nil {
		tb.Fatalf("temporaltest: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Cleanup(tb.Failed()); err != nil {
			tb.Errorf("temporaltest: %v", err)
		}
		if tb.Failed() {
			tb.Logf("temporaltest: kept server log %s and database %s", s.LogPath, s.DBFile)
		}
	})
	return s
}
