package lifecycle

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	schedules = flag.Int("model.schedules", 0, "schedules to explore (0: 1500 with -short, 10000 without)")
	seed      = flag.Uint64("model.seed", 0, "replay the one schedule of this seed (0: explore from -model.first)")
	firstSeed = flag.Uint64("model.first", 1, "the first seed explored, so that a long run can be split into ranges")
)

// TestLifecycleModel explores seeded schedules of every party's steps
// against the real activities, store and bucket, and fails with each
// distinct broken property's shrunk schedule.
func TestLifecycleModel(t *testing.T) {
	n, first := *schedules, *firstSeed
	switch {
	case *seed != 0:
		n, first = 1, *seed
	case n == 0 && testing.Short():
		n = 1500
	case n == 0:
		n = 10000
	}
	dir, err := os.MkdirTemp(tmpfs(), "lifecycle-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// The worlds' live heap is a few megabytes (nothing is retained across
	// schedules), so the default GOGC collects after every few megabytes
	// allocated: a fifth of the CPU. Four times that still holds the
	// process under 100 MB.
	defer debug.SetGCPercent(debug.SetGCPercent(400))

	ex, err := Explore(context.Background(), dir, first, n, min(runtime.GOMAXPROCS(0), 2))
	require.NoError(t, err)
	t.Logf("%d schedules (%d steps) in %s: %.0f schedules/s, %.0f steps/s", ex.Schedules, ex.Steps, ex.Elapsed.Round(time.Millisecond),
		float64(ex.Schedules)/ex.Elapsed.Seconds(), float64(ex.Steps)/ex.Elapsed.Seconds())
	t.Logf("reached: %s", seenList(ex.Seen))
	for _, f := range ex.Failures {
		t.Errorf("%s", f)
	}
	if *seed == 0 {
		for _, k := range reachRequired {
			assert.Positive(t, ex.Seen[k], "never reached: %s, so its properties passed vacuously", k)
		}
	}
}

// seenList shows the coverage counts in a stable order.
func seenList(seen map[string]int) string {
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d; ", k, seen[k])
	}
	return b.String()
}

// tmpfs is where the worlds keep their store files: /dev/shm where there
// is one (bbolt's fsyncs cost nothing there), else the temporary directory.
func tmpfs() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// Every property names the precondition its reach is counted by.
func TestEveryPropertyHasAPrecondition(t *testing.T) {
	for _, p := range properties {
		assert.NotEmpty(t, preconditions[p], "property %q", p)
	}
	assert.Len(t, preconditions, len(properties))
}
