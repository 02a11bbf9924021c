package activities_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A removal pass subsumes each checkpoint, then discards its state: a
// handle that cannot be trusted keeps its state, listed with the reason,
// while the pass goes on with the next; a pass of a deposed epoch touches
// nothing and says so.
func TestRemoveCheckpointsKeepsWhatItCannotTrust(t *testing.T) {
	w, acts := drainWorld(t)
	var reqs []contract.FinalizeRequest
	for n := uint64(1); n <= 3; n++ {
		reqs = append(reqs, workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, n))
	}
	items := func(rs ...contract.FinalizeRequest) []activities.Removal {
		var out []activities.Removal
		for _, r := range rs {
			out = append(out, activities.Removal{Checkpoint: r.Checkpoint, HandleKey: activities.HandleOf(r).Key()})
		}
		return out
	}

	deposed, err := acts.RemoveCheckpoints(t.Context(), activities.RemovalInput{Job: workflowtest.Job, Epoch: 2, Items: items(reqs[0], reqs[1])})
	require.NoError(t, err)
	assert.True(t, deposed.Deposed)
	assert.Zero(t, deposed.Removed)
	assert.True(t, w.Entry(1).HoldsToken(reqs[0].Token()), "nothing subsumed")

	require.NoError(t, os.WriteFile(filepath.Join(w.Bucket.Dir, activities.HandleOf(reqs[0]).Key()), []byte("not a handle"), 0o600))
	res, err := acts.RemoveCheckpoints(t.Context(), activities.RemovalInput{Job: workflowtest.Job, Epoch: 1, Items: items(reqs[0], reqs[1])})
	require.NoError(t, err)
	assert.False(t, res.Deposed)
	assert.Equal(t, 1, res.Removed, "checkpoint 2")
	require.Len(t, res.Kept, 1)
	assert.Equal(t, uint64(1), res.Kept[0].Checkpoint)
	assert.NotEmpty(t, res.Kept[0].Reason)
	assert.Equal(t, stores.ReasonSubsumed, w.Entry(1).Tombstone.Reason, "its reference removed all the same")
	assert.True(t, w.Exists(reqs[0].MetadataKey), "its state stays")
	assert.False(t, w.Exists(reqs[1].MetadataKey), "checkpoint 2's state discarded")
	assert.True(t, w.Entry(2).Absent(), "and its tombstone collected, its finalization closed")
	workflowtest.Resolves(t, w.Exists, reqs[2])
}
