package lifecycle

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorldRetainsNothingAcrossSchedules: a long run reuses one world per
// goroutine for up to millions of schedules, so whatever a schedule leaves
// behind on it (the SDK's test environment kept every regular activity
// attempt it ran) adds up to gigabytes. After a warm-up, more schedules
// must leave the live heap and the goroutines as they were.
func TestWorldRetainsNothingAcrossSchedules(t *testing.T) {
	w := newTestWorld(t)
	ctx := context.Background()
	run := func(from, n uint64) {
		for seed := from; seed < from+n; seed++ {
			_, _, err := generate(ctx, w, seed)
			require.NoError(t, err)
		}
	}
	// The warm-up grows what is sized once: the maps and buffers a world
	// reuses, the SDK's and the runtime's caches.
	run(1, 50)
	heap, goroutines := live()
	const more = 200
	run(51, more)
	heapAfter, goroutinesAfter := live()
	// The same schedules kept a few tens of kilobytes each before (a
	// regular attempt's handle, task and payloads): 400 of them far more
	// than the margin, which only absorbs the noise of one schedule's
	// leftovers (the world's last store and maps) being larger than another's.
	t.Logf("live heap %d -> %d bytes, goroutines %d -> %d", heap, heapAfter, goroutines, goroutinesAfter)
	const margin = 1 << 20
	require.LessOrEqual(t, heapAfter, heap+margin, "the live heap grew by %d bytes over %d schedules", int64(heapAfter)-int64(heap), more)
	require.LessOrEqual(t, goroutinesAfter, goroutines, "goroutines left running")
}

// live is the live heap after a full collection, and the goroutines.
func live() (heap uint64, goroutines int) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, runtime.NumGoroutine()
}
