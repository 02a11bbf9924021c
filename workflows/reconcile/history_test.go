package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Issue 22, finding 8: once the namespace's retention has removed a
// finalization's history, Temporal answers NotFound for it. At b0bb845 its
// state was then kept for good (I3: a leak at rest). Past the grace the
// store alone judges it, through the delete guard: the fence covering
// every attempt of its token is what makes that safe, whatever became of
// the finalization. Inside the grace it is left alone, and a key that
// holds its reference or a retirement's tombstone keeps it.
func TestReconcileJudgesStateWhoseHistoryExpiredByTheStore(t *testing.T) {
	f := newFixture(t)
	expired := f.checkpoint(1, 4, false) // its finalization's history is gone: NotFound
	retained := f.published(6)
	f.finals.set(retained, notFound())
	f.published(7)

	rep := f.reconcile(apply(), time.Now().Add(time.Minute))
	assert.Equal(t, 1, rep.Counts.InFlight, "inside the grace")
	assert.True(t, f.Entry(4).Absent(), "no fence inside the grace")

	before := f.snapshot()
	rep = f.reconcile(dryRun(), later())
	assert.Equal(t, contract.ActionWouldDiscard, orphanActions(rep)[activities.HandleOf(expired).Key()])
	assert.Equal(t, before, f.snapshot())

	rep = f.reconcile(apply(), later())
	assert.Equal(t, map[string]string{activities.HandleOf(expired).Key(): contract.ActionDiscarded}, orphanActions(rep))
	assert.Equal(t, "not found", rep.Orphans[0].Finalization)
	assert.False(t, f.Exists(activities.HandleOf(expired).Key()))
	assert.False(t, f.Exists(jobmanager.DataKey(job, 4)))
	fence := f.Entry(4)
	require.NotNil(t, fence.Tombstone, "discarded only behind a fence")
	assert.Equal(t, expired.Token(), fence.Tombstone.Token)
	assert.Equal(t, stores.ReasonFenced, fence.Tombstone.Reason)
	workflowtest.Resolves(t, f.Exists, retained)

	// A retirement that retained a checkpoint keeps it, history or not.
	require.NoError(t, f.Inner.Retire(t.Context(), job, 1, true))
	rep = f.reconcile(apply(), later())
	assert.Zero(t, rep.Counts.Discarded)
	assert.True(t, f.Exists(retained.MetadataKey), "retained for the operator")
}

func notFound() activities.FinalizationState { return activities.FinalizationState{} }
