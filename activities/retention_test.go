package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// closedUnless answers Temporal's part: every finalization has closed but
// those named running.
type closedUnless struct{ running map[string]bool }

func (c closedUnless) Finalization(_ context.Context, id string) (activities.FinalizationState, error) {
	return activities.FinalizationState{WorkflowID: id, Found: true, Running: c.running[id]}, nil
}

func drainWorld(t *testing.T, running ...string) (workflowtest.World, *activities.Activities) {
	w := workflowtest.NewWorld(t)
	fins := closedUnless{running: map[string]bool{}}
	for _, id := range running {
		fins.running[id] = true
	}
	return w, &activities.Activities{References: w.Refs, Leadership: w.Inner, States: w.States, Retain: 1, Finalizations: fins}
}

// A pass of the worker's background retention removes what retention
// drops: the reference becomes a subsumed tombstone, its state is
// discarded, and the tombstone goes at once when its finalization has
// closed; what the store holds is then the one reference kept.
func TestDrainRetentionRemovesDiscardsAndCollects(t *testing.T) {
	w, acts := drainWorld(t)
	var reqs []contract.FinalizeRequest
	for n := uint64(1); n <= 3; n++ {
		reqs = append(reqs, workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, n))
	}
	res, err := acts.DrainRetention(t.Context(), workflowtest.Job)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Removed)
	assert.Empty(t, res.Uncollected)

	all, err := w.Inner.ListEntries(t.Context(), workflowtest.Job)
	require.NoError(t, err)
	require.Len(t, all, 1, "only the newest reference stays: %+v", all)
	assert.True(t, all[0].HoldsToken(reqs[2].Token()))
	for _, r := range reqs[:2] {
		assert.False(t, w.Exists(r.ExclusivePrefix+"data-0"), "removed state discarded")
		assert.False(t, w.Exists(activities.HandleOf(r).Key()))
	}
	workflowtest.Resolves(t, w.Exists, reqs[2])
}

// A pass cut off between its subsume and its discard leaves a subsumed
// tombstone over state that is still there; a running finalization's
// tombstone stays for a later pass. The next pass finds both in the store
// (nothing is remembered outside it): it discards the state and collects
// the tombstone whose finalization has closed, and leaves the other.
func TestDrainRetentionFinishesWhatTheStoreSaysIsLeft(t *testing.T) {
	running := stores.CheckpointID{JobID: workflowtest.Job, Checkpoint: 2}
	w, acts := drainWorld(t, contract.FinalizationID(running, 1))
	one := workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 1)
	two := workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 2)
	workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 3)
	for _, r := range []contract.FinalizeRequest{one, two} {
		require.NoError(t, w.Inner.Subsume(t.Context(), r.CheckpointID(), 1), "a pass cut off after its subsumes")
	}

	res, err := acts.DrainRetention(t.Context(), workflowtest.Job)
	require.NoError(t, err)
	assert.False(t, w.Exists(one.ExclusivePrefix+"data-0"), "the state the cut-off pass left is discarded")
	assert.False(t, w.Exists(two.ExclusivePrefix+"data-0"))
	assert.True(t, w.Entry(1).Absent(), "the closed finalization's tombstone is collected")
	require.NotNil(t, w.Entry(2).Tombstone, "the running finalization's tombstone stays: %+v", w.Entry(2))
	assert.Equal(t, stores.ReasonSubsumed, w.Entry(2).Tombstone.Reason)
	assert.Equal(t, []activities.Removal{{Checkpoint: 2, HandleKey: activities.HandleOf(two).Key()}}, res.Uncollected)
}

// A pass decides on the store alone: a job retired (or never claimed, or
// forgotten) has nothing retention may remove.
func TestDrainRetentionRemovesNothingOfARetiredJob(t *testing.T) {
	w, acts := drainWorld(t)
	workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 1)
	workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 2)
	require.NoError(t, w.Inner.Retire(t.Context(), workflowtest.Job, 1, true))
	res, err := acts.DrainRetention(t.Context(), workflowtest.Job)
	require.NoError(t, err)
	assert.Zero(t, res.Removed)
	assert.Equal(t, stores.ReasonRetained, w.Entry(1).Tombstone.Reason)
}
