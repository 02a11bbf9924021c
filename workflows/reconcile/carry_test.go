package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Regression tests for issue 22, finding 5: a Reconcile's continue-as-new
// carry is workflow input, not trusted state. Each failed at b0bb845.

// other is a job of a cluster the fixture's worker does not serve.
var other = stores.JobID{Cluster: "c2", Job: "j1"}

// retiredOther gives c2 a job retired just now, its checkpoint retained
// for the operator, and serves only c1.
func (f *fixture) retiredOther() stores.Entry {
	f.t.Helper()
	layout, err := blobstate.ParseLayout("c1=c1")
	require.NoError(f.t, err)
	f.acts.Layout = layout
	ctx := f.t.Context()
	require.NoError(f.t, f.Inner.ClaimEpoch(ctx, other, 1, "jm-c2"))
	req := f.checkpointOf(other, 1, 1, false)
	require.NoError(f.t, f.Inner.Publish(ctx, stores.Publication{
		CheckpointID: req.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(req).Key(), Token: req.Token(), Attempt: 1},
	}))
	require.NoError(f.t, f.Inner.Retire(ctx, other, 1, true))
	e, err := f.Inner.Read(ctx, req.CheckpointID())
	require.NoError(f.t, err)
	require.NotNil(f.t, e.Tombstone)
	return e
}

func (f *fixture) otherUnchanged(retained stores.Entry) {
	f.t.Helper()
	e, err := f.Inner.Read(f.t.Context(), stores.CheckpointID{JobID: other, Checkpoint: retained.Checkpoint})
	require.NoError(f.t, err)
	assert.Equal(f.t, retained, e, "c2's retained tombstone stays")
	st, err := f.Inner.ReadJob(f.t.Context(), other)
	require.NoError(f.t, err)
	assert.True(f.t, st.Retired, "c2's job is not forgotten: %+v", st)
}

// forgedCarry is what a starter could hand a first run: c2's job and a
// report whose cutoffs lie in the future.
func forgedCarry(now time.Time, jobs ...stores.JobID) *contract.ReconcileCarry {
	rep := contract.ReconcileReport{
		Cluster: job.Cluster, Now: now, Phase: contract.ReconcileReconciling,
		GraceCutoff: now.Add(time.Hour), TombstoneCutoff: now.Add(time.Hour),
		Dangling: []contract.DanglingFinding{}, Orphans: []contract.OrphanFinding{}, Discarded: []string{}, Quarantined: []string{},
		TombstonesCollected: []contract.TombstoneFinding{}, Errors: []string{},
	}
	return &contract.ReconcileCarry{Report: rep, Jobs: jobs}
}

// Started by hand with a carry naming c2's job and a tombstone cutoff an
// hour ahead, the run collected c2's just-retired, retained tombstones and
// forgot the job. A carry is accepted only in a continued run.
func TestReconcileRefusesACarryItWasStartedWith(t *testing.T) {
	f := newFixture(t)
	retained := f.retiredOther()
	now := time.Now()
	req := apply()
	req.Carry = forgedCarry(now, other)

	env := f.env(now)
	env.ExecuteWorkflow(contract.ReconcileWorkflow, req)
	f.otherUnchanged(retained)
	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	assert.Equal(t, contract.TypeInvalid, app.Type())
	assert.Contains(t, app.Error(), "carry")
}

// A continued run's carry names only the run's own cluster's jobs.
func TestReconcileRefusesACarryOfAnotherCluster(t *testing.T) {
	f := newFixture(t)
	retained := f.retiredOther()
	now := time.Now()
	req := apply()
	req.Carry = forgedCarry(now, job, other)

	env := f.env(now)
	env.SetContinuedExecutionRunID("the-run-before")
	env.ExecuteWorkflow(contract.ReconcileWorkflow, req)
	f.otherUnchanged(retained)
	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	assert.Equal(t, contract.TypeInvalid, app.Type())
	assert.Contains(t, app.Error(), `"c2/j1"`)
}

// Even a continued run's cutoffs are only an upper bound: the activities
// apply the worker's own minimum TTL and grace, from its own clock. A
// carried tombstone cutoff an hour ahead collects nothing written now, and
// a grace cutoff an hour ahead discards no handle written now.
func TestReconcileActivitiesEnforceTheirOwnCutoffs(t *testing.T) {
	f := newFixture(t)
	for n := uint64(1); n <= 2; n++ {
		f.published(n)
	}
	f.subsume(1)
	lost := f.checkpoint(1, 5, false)
	f.finals.set(lost, closed(contract.Discarded))
	now := time.Now()
	req := apply()
	req.Carry = forgedCarry(now, job)

	env := f.env(now)
	env.SetContinuedExecutionRunID("the-run-before")
	env.ExecuteWorkflow(contract.ReconcileWorkflow, req)
	require.NoError(t, env.GetWorkflowError())
	var rep contract.ReconcileReport
	require.NoError(t, env.GetWorkflowResult(&rep))
	assert.Zero(t, rep.Counts.TombstonesCollected, "%+v", rep.TombstonesCollected)
	assert.Zero(t, rep.Counts.Discarded, "%+v", rep.Orphans)
	require.NotNil(t, f.Entry(1).Tombstone, "the subsumed tombstone, written now, stays")
	assert.True(t, f.Exists(activities.HandleOf(lost).Key()), "the handle written now stays")
	assert.True(t, f.Entry(5).Absent(), "no fence either")
}
