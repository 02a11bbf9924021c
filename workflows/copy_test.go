package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// publishedByACopyAndRemoved has a copy of checkpoint 2's request publish
// it while the job manager's own execution, started first (a copy is made
// from its history), still runs; checkpoints 3 and 4 follow and retention
// removes 2 with its state and handle. It returns 2's request.
func (f *fixture) publishedByACopyAndRemoved() contract.FinalizeRequest {
	f.t.Helper()
	req := f.checkpoint(2, false)
	f.acts.Finalizations = runningFinalizations{req.WorkflowID(): true}
	require.Equal(f.t, contract.Published, f.finalize(req).Phase, "the copy publishes")
	for n := uint64(3); n <= 4; n++ {
		f.newEnv()
		require.Equal(f.t, contract.Published, f.finalize(f.checkpoint(n, false)).Phase)
	}
	_, err := f.acts.DrainRetention(f.t.Context(), job)
	require.NoError(f.t, err)
	require.False(f.t, f.exists(req.MetadataKey), "retention removed checkpoint 2 with its state")
	return req
}

// Anyone in the namespace can start a request a history shows under
// another workflow ID: two executions of one token. When the copy
// publishes first and retention removes the checkpoint with its state,
// the job manager's own execution finds its data missing; on the regular
// path (executions recorded before the fast path) it must ask the store,
// as the fast path does, and answer Published, not Failed.
func TestRegularExecutionWhoseCopyPublishedAnswersPublished(t *testing.T) {
	f := newFixture(t, 1)
	req := f.publishedByACopyAndRemoved()

	f.newEnv()
	f.env.OnGetVersion("local-fast-path", workflow.DefaultVersion, 2).Return(workflow.DefaultVersion)
	res := f.finalize(req)
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
}

// The job manager's own execution persisted its handle before the copy
// published the token; retention removed the checkpoint and its handle
// since. Its publish is then rejected and its discard finds the handle
// gone: the key still shows the token published, and the answer must say
// so.
func TestDiscardFindingItsHandleGoneAnswersFromTheKey(t *testing.T) {
	f := newFixture(t, 1)
	req := f.publishedByACopyAndRemoved()

	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.RegisterActivity(f.acts)
	v, err := env.ExecuteActivity(f.acts.Discard, activities.HandleKey(blobstate.Key(req.CheckpointID(), req.Epoch)))
	require.NoError(t, err)
	var res activities.DiscardResult
	require.NoError(t, v.Get(&res))
	assert.True(t, res.AlreadyGone)
	assert.True(t, res.Published, "checkpoint 2's key shows its token published: %+v", f.entry(2))
}
