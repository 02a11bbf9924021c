package activities_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// retiredWorld is a world whose job published checkpoints 1 and 2 under
// epoch 1 and wrote the handle of checkpoint 3, which never published
// (its finalization discarded it, or died): then the job was retired with
// its checkpoints discarded.
func retiredWorld(t *testing.T, running ...string) (workflowtest.World, *activities.Activities, []contract.FinalizeRequest) {
	w, acts := drainWorld(t, running...)
	acts.Handles = w.States
	var reqs []contract.FinalizeRequest
	for n := uint64(1); n <= 2; n++ {
		reqs = append(reqs, workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, n))
	}
	unpublished, err := w.Bucket.WriteCheckpoint(workflowtest.Job, 1, 3, false)
	require.NoError(t, err)
	_, err = w.States.Write(t.Context(), activities.HandleOf(unpublished))
	require.NoError(t, err)
	require.NoError(t, w.Inner.Retire(t.Context(), workflowtest.Job, 1, false))
	return w, acts, append(reqs, unpublished)
}

// Only a handle whose key holds its own retired tombstone goes; one whose
// key holds nothing of its token (never published) is the reconciler's to
// judge, and stays.
func TestDiscardRetiredTakesOnlyWhatTheRetirementLetGo(t *testing.T) {
	w, acts, reqs := retiredWorld(t)
	res, err := acts.DiscardRetired(t.Context(), activities.RetiredInput{JobID: workflowtest.Job, Epoch: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Discarded)
	for _, r := range reqs[:2] {
		assert.False(t, w.Exists(r.MetadataKey), "checkpoint %d discarded", r.Checkpoint)
		assert.Equal(t, stores.ReasonRetired, w.Entry(r.Checkpoint).Tombstone.Reason, "its tombstone stays (I7)")
	}
	workflowtest.Resolves(t, w.Exists, reqs[2]) // its files, as a reference would need them
	assert.True(t, w.Entry(3).Absent(), "nothing fenced for the unpublished one")

	again, err := acts.DiscardRetired(t.Context(), activities.RetiredInput{JobID: workflowtest.Job, Epoch: 1})
	require.NoError(t, err, "idempotent")
	assert.Zero(t, again.Discarded)
}

// A running finalization holds its checkpoint and makes the activity fail
// retryably, naming it; the others go meanwhile.
func TestDiscardRetiredWaitsForARunningFinalization(t *testing.T) {
	running := contract.FinalizationID(stores.CheckpointID{JobID: workflowtest.Job, Checkpoint: 2}, 1)
	w, acts, reqs := retiredWorld(t, running)
	res, err := acts.DiscardRetired(t.Context(), activities.RetiredInput{JobID: workflowtest.Job, Epoch: 1})
	assert.ErrorIs(t, err, activities.ErrFinalizationsRunning)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	assert.False(t, app.NonRetryable())
	assert.Contains(t, app.Message(), running)
	assert.Equal(t, 1, res.Discarded)
	assert.False(t, w.Exists(reqs[0].MetadataKey))
	assert.True(t, w.Exists(reqs[1].MetadataKey), "held by its running finalization")
}

// Without a handle listing or finalizations to ask the activity leaves
// everything to the reconciler, and an invalid job is refused for good.
func TestDiscardRetiredRefusals(t *testing.T) {
	w, acts, reqs := retiredWorld(t)
	acts.Handles = nil
	res, err := acts.DiscardRetired(t.Context(), activities.RetiredInput{JobID: workflowtest.Job, Epoch: 1})
	require.NoError(t, err)
	assert.True(t, res.NotWired)
	assert.True(t, w.Exists(reqs[0].MetadataKey))

	acts.Handles = w.States
	_, err = acts.DiscardRetired(t.Context(), activities.RetiredInput{JobID: stores.JobID{Cluster: workflowtest.Job.Cluster, Job: "../j1"}, Epoch: 1})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.True(t, app.NonRetryable())
}
