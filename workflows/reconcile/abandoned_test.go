package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// abandon runs req's finalization while the store does not answer, and
// an operator abandons it once it verifies: its state is kept.
func (f *fixture) abandon(req contract.FinalizeRequest, reason string) contract.FinalizeResult {
	f.t.Helper()
	acts := &activities.Activities{References: f.Refs, Leadership: f.Inner, States: f.States, Handles: f.States, StoreKind: "embedded"}
	env := workflowtest.Suite().NewTestWorkflowEnvironment()
	workflows.Register(env)
	env.RegisterActivity(acts)
	env.OnActivity(acts.Report, mock.Anything, mock.Anything).Return(nil).Maybe()
	f.Refs.SetUnreachable(true)
	defer f.Refs.SetUnreachable(false)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(contract.AbandonSignal, reason) }, time.Hour)
	env.ExecuteWorkflow(contract.FinalizeWorkflow, req)
	require.True(f.t, env.IsWorkflowCompleted())
	require.NoError(f.t, env.GetWorkflowError())
	var res contract.FinalizeResult
	require.NoError(f.t, env.GetWorkflowResult(&res))
	return res
}

// State an operator abandoned is kept with a record of its own, in the
// bucket beside its handle: once the namespace no longer retains the
// finalization's closed history (Temporal answers NotFound), the
// reconciler still keeps it, and reports why, until an operator releases
// it (finalizer-worker release).
func TestReconcilerKeepsAbandonedStateOnceItsHistoryExpired(t *testing.T) {
	f := newFixture(t)
	req, err := f.Bucket.WriteCheckpoint(job, 1, 5, false)
	require.NoError(t, err)
	res := f.abandon(req, "kept for forensics by ops")
	require.Equal(t, contract.Abandoned, res.Phase, res.Reason)
	f.age(res.HandleKey, time.Now().Add(-3*contract.DefaultReconcileGrace))

	for _, at := range []time.Time{later(), later().Add(2 * contract.DefaultTombstoneTTL)} {
		rep := f.reconcile(apply(), at)
		assert.Zero(t, rep.Counts.Discarded, "%v", orphanActions(rep))
	}
	assert.True(t, f.Exists(req.MetadataKey), "the abandoned metadata stays")
	assert.True(t, f.Exists(jobmanager.DataKey(job, req.Checkpoint)), "the abandoned data stays")
}
