package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// errStoreAway is what awayLeadership answers.
var errStoreAway = errors.New("store away (injected)")

// awayLeadership is an HA store whose retirements never get an answer.
type awayLeadership struct{ activities.Leadership }

func (awayLeadership) Retire(context.Context, stores.JobID, uint64, bool) error {
	return errStoreAway
}

func (awayLeadership) ReadJob(context.Context, stores.JobID) (stores.JobState, error) {
	return stores.JobState{}, errStoreAway
}

func (f *fixture) startRetirement(discard bool) {
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: discard})
	require.True(f.t, f.env.IsWorkflowCompleted())
}

// A retirement whose store does not answer (Retiring) reads abandon: it
// ends at once, failed with an Unknown type (the store may have retired
// the job; nothing was discarded), which the caller reads as ended for
// good.
func TestAbandonWhileRetiringEndsUnknown(t *testing.T) {
	f := newFixture(t, 0)
	kept := f.publishDirect(1, false)
	f.acts.Leadership = awayLeadership{f.inner}
	f.newEnv()
	f.env.RegisterDelayedCallback(func() { f.env.SignalWorkflow(contract.AbandonSignal, "store decommissioned") }, atOperator)
	f.startRetirement(true)

	err := f.env.GetWorkflowError()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, contract.TypeAbandoned, app.Type())
	assert.Contains(t, app.Error(), "store decommissioned")
	assert.Nil(t, contract.Rejection(err), "not a rejection: the store may have retired the job")
	assert.Len(t, f.stateOf(kept), 3, "nothing discarded")
}

// A discarding retirement waiting for a finalization that never ends reads
// abandon: the job stays retired, the discard stops, what is left stays.
func TestAbandonWhileDiscardingRetiredStopsTheDiscard(t *testing.T) {
	f := newFixture(t, 0)
	verifying := f.publishDirect(1, false)
	f.acts.Finalizations = runningFinalizations{verifying.WorkflowID(): true}
	f.newEnv()
	start := f.env.Now()
	f.env.RegisterDelayedCallback(func() { f.env.SignalWorkflow(contract.AbandonSignal, "that job's cleanup can wait") }, atOperator)
	f.startRetirement(true)

	require.NoError(t, f.env.GetWorkflowError(), "the job is retired: the retirement stands")
	assert.Less(t, f.env.Now().Sub(start), atOperator+5*time.Second, "ended at the signal (the test environment gives up after 10 tries, minutes later)")
	assert.Len(t, f.stateOf(verifying), 3, "the discard stopped: what is left stays")
	st, err := f.inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.True(t, st.Retired, "retired")
}

// retry-now reaches a discarding retirement: once the finalization it
// waited for has closed, the discard runs at once, not at the next backoff.
func TestRetryNowWhileDiscardingRetired(t *testing.T) {
	f := newFixture(t, 0)
	verifying := f.publishDirect(1, false)
	fins := &switchedFinalizations{running: map[string]bool{verifying.WorkflowID(): true}}
	f.acts.Finalizations = fins
	f.newEnv()
	start := f.env.Now()
	f.env.RegisterDelayedCallback(func() {
		fins.set(verifying.WorkflowID(), false)
		f.env.SignalWorkflow(contract.RetryNowSignal, nil)
	}, 40*time.Second)
	f.startRetirement(true)

	require.NoError(t, f.env.GetWorkflowError())
	assert.Empty(t, f.stateOf(verifying))
	// Its tries back off 1 s, 2 s, 4 s, ...: at the signal the next was
	// over 20 s away (at 63 s).
	assert.Less(t, f.env.Now().Sub(start), 45*time.Second, "discarded at the signal")
}
