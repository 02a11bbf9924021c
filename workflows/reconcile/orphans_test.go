package reconcile_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Orphaned state whose finalization is closed is discarded, only behind a
// fence covering every attempt of its token; a published checkpoint's state
// and the shared files stay (I2, I3).
func TestReconcileDiscardsOrphansBehindAFence(t *testing.T) {
	f := newFixture(t)
	live := f.published(1)
	subsumed := f.published(2) // subsumed, its state left behind
	f.published(3)
	f.subsume(2)
	lost := f.checkpoint(1, 5, false) // never published, above the watermark: its key is absent
	f.finals.set(lost, activities.FinalizationState{Found: true, Status: "Terminated"})

	rep := f.reconcile(apply(), later())
	want := map[string]string{activities.HandleOf(lost).Key(): contract.ActionDiscarded, activities.HandleOf(subsumed).Key(): contract.ActionDiscarded}
	assert.Equal(t, want, orphanActions(rep))
	assert.Equal(t, sorted([]string{activities.HandleOf(lost).Key(), activities.HandleOf(subsumed).Key()}), sorted(rep.Discarded))
	assert.Equal(t, 2, rep.Counts.Discarded)
	assert.Equal(t, "Completed/Published", rep.Orphans[0].Finalization)
	assert.Equal(t, "Terminated", rep.Orphans[1].Finalization)
	assert.Equal(t, lost.WorkflowID(), rep.Orphans[1].WorkflowID)

	for _, req := range []contract.FinalizeRequest{lost, subsumed} {
		assert.False(t, f.Exists(activities.HandleOf(req).Key()), "handle of %d", req.Checkpoint)
		assert.False(t, f.Exists(req.MetadataKey), "metadata of %d", req.Checkpoint)
		assert.False(t, f.Exists(jobmanager.DataKey(job, req.Checkpoint)), "data of %d", req.Checkpoint)
	}
	fence := f.Entry(5)
	require.NotNil(t, fence.Tombstone, "discarded only behind a fence")
	assert.Equal(t, stores.Tombstone{Token: lost.Token(), FencedUpTo: math.MaxUint32, Reason: stores.ReasonFenced, Since: fence.Tombstone.Since}, *fence.Tombstone)
	removed := f.Entry(2)
	require.NotNil(t, removed.Tombstone)
	assert.Equal(t, stores.ReasonSubsumed, removed.Tombstone.Reason, "a removed reference's tombstone already keeps every attempt out")

	assert.True(t, f.Exists(activities.HandleOf(live).Key()))
	assert.True(t, f.Exists(jobmanager.DataKey(job, 1)))
	assert.True(t, f.Exists(jobmanager.DataKey(job, 3)))
	assert.True(t, f.Exists(jobmanager.SharedKey(job)), "shared files are never discarded")

	// No attempt of the discarded finalization can ever publish (I6).
	err := f.Inner.Publish(t.Context(), stores.Publication{
		CheckpointID: lost.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(lost).Key(), Token: lost.Token(), Attempt: 7},
	})
	require.ErrorIs(t, err, stores.ErrFenced)
}

// Without an answer from the store there is no fence, and without a fence
// nothing is deleted; once the store answers, the next run discards.
func TestReconcileDiscardsNothingWithoutAFence(t *testing.T) {
	f := newFixture(t)
	lost := f.checkpoint(1, 2, false)
	f.finals.set(lost, closed(contract.Discarded))
	f.Refs.SetUnreachable(true)

	rep := f.reconcile(apply(), later())
	assert.Zero(t, rep.Counts.Discarded)
	assert.Equal(t, 1, rep.Counts.Errors)
	require.Len(t, rep.Orphans, 1)
	assert.True(t, strings.HasPrefix(rep.Orphans[0].Action, "not discarded: "), rep.Orphans[0].Action)
	assert.True(t, f.Exists(activities.HandleOf(lost).Key()))
	assert.True(t, f.Exists(jobmanager.DataKey(job, 2)))
	assert.True(t, f.Entry(2).Absent())
	assert.Positive(t, f.Refs.Calls("verify"), "the fence was tried")

	f.Refs.SetUnreachable(false)
	rep = f.reconcile(apply(), later())
	assert.Equal(t, 1, rep.Counts.Discarded)
	assert.False(t, f.Exists(activities.HandleOf(lost).Key()))
	assert.NotNil(t, f.Entry(2).Tombstone)
}

// A handle inside the grace period, or whose finalization runs (Verifying,
// say), is not an orphan: left alone, no fence written.
func TestReconcileLeavesFinalizationsInFlightAlone(t *testing.T) {
	f := newFixture(t)
	verifying := f.checkpoint(1, 2, false)
	f.finals.set(verifying, activities.FinalizationState{Found: true, Running: true, Status: "Running"})
	before := f.snapshot()

	rep := f.reconcile(apply(), time.Now().Add(time.Minute))
	assert.Equal(t, 1, rep.Counts.InFlight, "younger than the grace period")
	assert.Empty(t, rep.Orphans)

	rep = f.reconcile(apply(), later())
	assert.Equal(t, 1, rep.Counts.InFlight, "its finalization runs")
	assert.Empty(t, rep.Orphans)
	assert.Equal(t, before, f.snapshot(), "no fence, no discard")
}

// Savepoints and the state of a finalization an operator abandoned are
// reported and kept: no fence, no delete (I3). (State whose finalization
// Temporal no longer knows is judged by the store alone:
// TestReconcileJudgesStateWhoseHistoryExpiredByTheStore.)
func TestReconcileKeepsSavepointsAndAbandonedState(t *testing.T) {
	f := newFixture(t)
	savepoint := f.checkpoint(1, 2, true)
	f.finals.set(savepoint, closed(contract.Discarded))
	abandoned := f.checkpoint(1, 3, false)
	f.finals.set(abandoned, closed(contract.Abandoned))
	before := f.snapshot()

	rep := f.reconcile(apply(), later())
	assert.Equal(t, map[string]string{
		activities.HandleOf(savepoint).Key(): contract.ActionKeptPrefix + reconcileacts.KeepSavepoint,
		activities.HandleOf(abandoned).Key(): contract.ActionKeptPrefix + contract.KeepAbandoned,
	}, orphanActions(rep))
	assert.Equal(t, 2, rep.Counts.Orphans)
	assert.Equal(t, 2, rep.Counts.Kept)
	assert.Zero(t, rep.Counts.Discarded)
	assert.Equal(t, before, f.snapshot())
}

// An orphan whose exclusive data is a published checkpoint's (another
// epoch's handle of the same checkpoint) is kept: discarding it would leave
// that reference dangling.
func TestReconcileKeepsDataAPublishedCheckpointUses(t *testing.T) {
	f := newFixture(t)
	f.published(5)
	stale := f.checkpoint(2, 5, false)
	f.finals.set(stale, closed(contract.Discarded))
	before := f.snapshot()

	rep := f.reconcile(apply(), later())
	assert.Equal(t, map[string]string{activities.HandleOf(stale).Key(): "kept: data shared with published checkpoint 5"}, orphanActions(rep))
	assert.Equal(t, before, f.snapshot())
}

// A job the store does not know (forgotten, or a store that lost its data)
// gets no fence and loses no state.
func TestReconcileKeepsStateOfAJobUnknownToTheStore(t *testing.T) {
	f := newFixture(t)
	gone := stores.JobID{Cluster: job.Cluster, Job: "gone"}
	req := f.checkpointOf(gone, 1, 1, false)
	f.finals.set(req, closed(contract.Published))

	rep := f.reconcile(apply(), later())
	assert.Equal(t, map[string]string{activities.HandleOf(req).Key(): contract.ActionKeptPrefix + reconcileacts.KeepUnknownJob}, orphanActions(rep))
	assert.Equal(t, 2, rep.Counts.Jobs, "jobs from the store and from the bucket")
	assert.True(t, f.Exists(activities.HandleOf(req).Key()))
	e, err := f.Inner.Read(t.Context(), req.CheckpointID())
	require.NoError(t, err)
	assert.True(t, e.Absent())
}

// A dry run reports every action it would take and changes nothing.
func TestReconcileDryRunChangesNothing(t *testing.T) {
	f := newFixture(t)
	dangling := f.published(1)
	f.remove(activities.HandleOf(dangling).Key())
	lost := f.checkpoint(1, 2, false)
	f.finals.set(lost, closed(contract.Discarded))
	f.published(3)
	f.published(4)
	f.subsume(3)
	past := time.Now().Add(contract.DefaultTombstoneTTL + time.Hour)
	before := f.snapshot()

	rep := f.reconcile(dryRun(), past)
	assert.True(t, rep.DryRun)
	assert.Equal(t, map[string]string{"c1/j1/1": contract.ActionWouldQuarantine}, danglingActions(rep))
	assert.Equal(t, contract.ActionWouldDiscard, orphanActions(rep)[activities.HandleOf(lost).Key()])
	require.Len(t, rep.TombstonesCollected, 1)
	assert.Equal(t, contract.ActionWouldCollect, rep.TombstonesCollected[0].Action)
	assert.Zero(t, rep.Counts.Quarantined+rep.Counts.Discarded+rep.Counts.TombstonesCollected)
	assert.Empty(t, rep.Discarded)
	assert.Empty(t, rep.Quarantined)
	assert.Zero(t, f.Refs.Calls("verify"), "no fence either")
	assert.Equal(t, before, f.snapshot())
}
