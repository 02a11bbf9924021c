package lifecycle

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A retention pass that removes the reference of a finalization still
// running (its publish landed, its reply was lost) leaves the tombstone for
// its verify, which learns it published (I7); a later pass, once that
// finalization has ended, collects it.
func TestRetentionCollectsARunningFinalizationsTombstoneOnceItEnds(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), advanceStep{fin: 1}, advanceStep{fin: 1, fault: faultLost}) // persisted, published, reply lost
	for n := uint64(2); n <= 3; n++ {
		steps = append(steps, checkpointStep{fin: int(n), on: served, role: "the leader", req: request(j1, 1, n, false, 0), write: true},
			advanceStep{fin: int(n)}, advanceStep{fin: int(n)})
	}
	steps = append(steps, reportStep{on: served, job: j1, epoch: 1}, removeStep{on: served, job: j1})
	firstPass := len(steps) - 1
	steps = append(steps, advanceStep{fin: 1}, advanceStep{fin: 1},
		checkpointStep{fin: 4, on: served, role: "the leader", req: request(j1, 1, 4, false, 0), write: true},
		advanceStep{fin: 4}, advanceStep{fin: 4},
		reportStep{on: served, job: j1, epoch: 1}, removeStep{on: served, job: j1})
	out, f, err := replay(context.Background(), w, steps, "")
	require.NoError(t, err)
	require.Nil(t, f, "%v", out)
	assert.Contains(t, out[firstPass], "uncollected 1", "the running finalization's tombstone stays")
	assert.Equal(t, "Published", string(w.fins[1].result), "its verify found its token published: %v", out)
	assert.Contains(t, out[len(out)-1], "uncollected 0", "collected once its finalization ended")
	assert.True(t, w.entry(stores.CheckpointID{JobID: j1, Checkpoint: 1}).Absent())
	assert.Equal(t, 1, w.seen["tombstones left for a later pass (finalization running)"])
}
