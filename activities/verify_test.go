package activities_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// enqueued records the jobs handed to the worker's retention.
type enqueued struct{ jobs []stores.JobID }

func (e *enqueued) Enqueue(job stores.JobID) { e.jobs = append(e.jobs, job) }

// A verify that finds its token published hands the job to retention, as
// the publish would have; one that fences the key (Absent) does not: it
// published nothing.
func TestVerifyHandsAPublishedCheckpointToRetention(t *testing.T) {
	w, acts := drainWorld(t)
	published := workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 1)
	unpublished, err := w.Bucket.WriteCheckpoint(workflowtest.Job, 1, 2, false)
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		in      activities.VerifyInput
		verdict stores.Verdict
		handed  int
	}{
		{"published", activities.VerifyInput{CheckpointID: published.CheckpointID(), Token: published.Token(), Attempt: 1, Epoch: 1}, stores.Present, 1},
		{"never published", activities.VerifyInput{CheckpointID: unpublished.CheckpointID(), Token: unpublished.Token(), Attempt: 1, Epoch: 1}, stores.Absent, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			retention := &enqueued{}
			acts.Retention = retention
			env := workflowtest.Suite().NewTestActivityEnvironment()
			env.RegisterActivity(acts)
			v, err := env.ExecuteActivity("Verify", c.in)
			require.NoError(t, err)
			var verdict stores.Verdict
			require.NoError(t, v.Get(&verdict))
			assert.Equal(t, c.verdict, verdict)
			assert.Len(t, retention.jobs, c.handed)
		})
	}
}

// A verify whose token is not its epoch's finalization's, or whose
// identity is invalid, is refused for good before it reads or fences
// anything.
func TestVerifyRefusesAnotherEpochsToken(t *testing.T) {
	w, acts := drainWorld(t)
	req, err := w.Bucket.WriteCheckpoint(workflowtest.Job, 1, 2, false)
	require.NoError(t, err)
	for name, in := range map[string]activities.VerifyInput{
		"another epoch's token": {CheckpointID: req.CheckpointID(), Token: req.Token(), Attempt: 1, Epoch: 2},
		"epoch 0":               {CheckpointID: req.CheckpointID(), Token: req.Token(), Attempt: 1, Epoch: 0},
	} {
		env := workflowtest.Suite().NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		_, err := env.ExecuteActivity("Verify", in)
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app, name)
		assert.Equal(t, contract.TypeInvalid, app.Type(), name)
		assert.True(t, app.NonRetryable(), name)
		assert.True(t, w.Entry(2).Absent(), "%s: nothing fenced", name)
	}
}
