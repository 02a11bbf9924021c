package lifecycle

import (
	"context"
	"flag"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	schedules = flag.Int("model.schedules", 0, "schedules to explore (0: 300 with -short, 5000 without)")
	seed      = flag.Uint64("model.seed", 0, "replay the one schedule of this seed (0: explore from seed 1)")
)

// TestLifecycleModel explores seeded schedules of every party's steps
// against the real activities, store and bucket, and fails with each
// distinct broken property's shrunk schedule.
func TestLifecycleModel(t *testing.T) {
	n, first := *schedules, uint64(1)
	switch {
	case *seed != 0:
		n, first = 1, *seed
	case n == 0 && testing.Short():
		n = 300
	case n == 0:
		n = 5000
	}
	dir := os.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir = "/dev/shm" // bbolt's fsyncs cost nothing on tmpfs
	}
	dir, err := os.MkdirTemp(dir, "lifecycle-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })

	ex, err := Explore(context.Background(), dir, first, n, min(runtime.GOMAXPROCS(0), 2))
	require.NoError(t, err)
	t.Logf("%d schedules in %s: %.0f schedules/s", ex.Schedules, ex.Elapsed.Round(1e6), float64(ex.Schedules)/ex.Elapsed.Seconds())
	for _, f := range ex.Failures {
		t.Errorf("%s", f)
	}
}
