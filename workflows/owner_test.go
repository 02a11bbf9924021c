package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// A finalization is bound to the whole claim, epoch and owner: anyone in
// the namespace can start a request naming the standing epoch, and without
// the owner it took a checkpoint ID the leader had not reached yet (the
// lifecycle model's seed 51107), retired the leader's job or removed its
// restore point.

// An impersonator of the standing epoch triggers checkpoint 8, whose
// files the leader has written, before the leader does: it publishes
// nothing, fences nothing and deletes nothing, and the leader's
// finalizations go on publishing. (Its request still occupies the
// finalization ID and handle key of (epoch 1, checkpoint 8), so the
// leader's own trigger of 8 conflicts and keeps its files: docs/design.md,
// "Identity".)
func TestImpersonatorOfTheStandingEpochTakesNoCheckpoint(t *testing.T) {
	f := newFixture(t, 0)
	live := f.checkpoint(8, false)
	intruder := live
	intruder.Owner = "intruder"

	res := f.finalize(intruder)
	assert.NotEqual(t, contract.Published, res.Phase, res.Reason)
	assert.Contains(t, res.Reason, "Rejected.StaleEpoch")
	assert.True(t, f.entry(8).Absent(), "key 8 holds nothing of the intruder's: %+v", f.entry(8))
	assert.True(t, f.exists(live.MetadataKey), "the leader's metadata stays")
	assert.True(t, f.exists(jobmanager.DataKey(job, 8)), "the leader's data stays")

	f.newEnv()
	next := f.checkpoint(9, false)
	res = f.finalize(next)
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	assert.True(t, f.entry(9).HoldsToken(next.Token()))
	assert.True(t, f.exists(live.MetadataKey), "the leader's checkpoint 8 is kept")
}

// An impersonator of the standing epoch cannot retire the leader's job,
// whatever it asks for its checkpoints.
func TestImpersonatorCannotRetireTheStandingLeadersJob(t *testing.T) {
	f := newFixture(t, 0)
	f.publishDirect(1, false)
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: "intruder", DiscardCheckpoints: true})
	require.Error(t, f.env.GetWorkflowError())
	assert.Contains(t, f.env.GetWorkflowError().Error(), "Rejected.StaleEpoch")
	st, err := f.inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.False(t, st.Retired, "the job stands")
	assert.NotNil(t, f.entry(1).Reference, "the restore point stands")

	f.newEnv()
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1)})
	require.NoError(t, f.env.GetWorkflowError(), "the leader retires its own job")
	assert.Equal(t, stores.ReasonRetained, f.entry(1).Tombstone.Reason)
}

// An impersonator of the standing epoch cannot remove the leader's restore
// point through a SubsumeCheckpoint of its own.
func TestImpersonatorCannotSubsumeTheRestorePoint(t *testing.T) {
	f := newFixture(t, 0)
	req := f.publishDirect(1, false)
	sub := subsumeRequest(f, req, 1)
	sub.Owner = "intruder"
	f.env.ExecuteWorkflow(contract.SubsumeWorkflow, sub)

	var res workflows.SubsumeResult
	contracttest.DecodeChecked(t, "subsume-result.schema.json", f.env.GetWorkflowResult, &res)
	assert.True(t, res.Deposed, "refused as not the standing claim")
	assert.NotNil(t, f.entry(1).Reference, "the restore point stands")
	assert.True(t, f.exists(jobmanager.DataKey(job, 1)))
}

// A request without an owner ends Failed, naming the field, with nothing
// written.
func TestFinalizeRequiresTheOwner(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(3, false)
	req.Owner = ""
	res := f.finalize(req)
	assert.Equal(t, contract.Failed, res.Phase)
	assert.Contains(t, res.Reason, "owner")
	assert.True(t, f.entry(3).Absent())
	assert.Empty(t, res.HandleKey)
}
