package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Regression tests for "kept means kept, with a record" (docs/design.md,
// lifecycle rules; issue 37 findings 2 and 3): the reconciler deletes a
// directory only when a record in the store says it is garbage, never from
// the absence of one.

// assertRetainedStays checks that checkpoint n's retained state and its
// record are all still there.
func (f *fixture) assertRetainedStays(req contract.FinalizeRequest) {
	f.t.Helper()
	assert.True(f.t, f.Exists(req.MetadataKey), "the retained metadata stays")
	assert.True(f.t, f.Exists(jobmanager.DataKey(job, req.Checkpoint)), "the retained data stays")
	e := f.Entry(req.Checkpoint)
	assert.True(f.t, e.Tombstone != nil && e.Tombstone.Reason == stores.ReasonRetained && e.Tombstone.Token == req.Token(),
		"checkpoint %d keeps its retained record: %+v", req.Checkpoint, e)
}

// A retired job's retained checkpoint 3 and a fence a late verify wrote at
// key 4 after the retirement: a run whose tombstone cutoff falls between
// the two cannot forget the job, and neither it nor the next run an hour
// later deletes the retained state (finding 3).
func TestReconcilerKeepsRetainedStateAfterAPartialCollection(t *testing.T) {
	f := newFixture(t)
	retained := f.retiredLongAfterItsWrite(false)
	retiredAt := f.Entry(3).Tombstone.Since
	time.Sleep(50 * time.Millisecond)
	late := jobmanager.Request(job, 1, jobmanager.Owner(1), 4, jobmanager.CheckpointDir(job, 4), false)
	v, err := f.Inner.Verify(t.Context(), late.CheckpointID(), late.Token(), 1)
	require.NoError(t, err)
	require.Equal(t, stores.Absent, v)
	require.True(t, f.Entry(4).Tombstone.Since.After(retiredAt.Add(25*time.Millisecond)))

	between := retiredAt.Add(25*time.Millisecond + contract.DefaultTombstoneTTL)
	f.reconcile(apply(), between)
	st, err := f.Inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.True(t, st.Retired, "a fence younger than the cutoff keeps the job retired: %+v", st)

	rep := f.reconcile(apply(), between.Add(time.Hour))
	assert.Zero(t, rep.Counts.Discarded, "%v", orphanActions(rep))
	f.assertRetainedStays(retained)
}

// A job retired keeping its state; before it is resubmitted, a request of
// an epoch nobody claimed persists its handle for checkpoint 3. Past the
// TTL, the reconciler's runs find that handle orphaned: its discard deletes
// nothing of the retained state (finding 2, the orphan discard's variant).
func TestReconcilerKeepsRetainedStateFromAnUnclaimedEpochsOrphan(t *testing.T) {
	f := newFixture(t)
	retained := f.retiredLongAfterItsWrite(false)
	stray := f.checkpoint(5, 3, false)
	long := time.Now().Add(-3 * contract.DefaultReconcileGrace)
	f.age(activities.HandleOf(stray).Key(), long)
	require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))

	for _, at := range []time.Time{time.Now().Add(2 * contract.DefaultTombstoneTTL), time.Now().Add(3 * contract.DefaultTombstoneTTL)} {
		rep := f.reconcile(apply(), at)
		assert.Zero(t, rep.Counts.Discarded, "%v", orphanActions(rep))
	}
	f.assertRetainedStays(retained)
}

// An operator's release lets retained state go: its record becomes a
// retired tombstone, and the reconciler discards the state once the grace
// has passed since the release, then the job, its records collected, is
// forgotten. Before the release no run deletes it.
func TestReconcilerDiscardsReleasedStateAfterTheGrace(t *testing.T) {
	f := newFixture(t)
	retained := f.retiredLongAfterItsWrite(false)
	f.reconcile(apply(), later())
	f.assertRetainedStays(retained)

	require.NoError(t, f.Inner.Release(t.Context(), retained.CheckpointID(), retained.Token()))
	rep := f.reconcile(apply(), time.Now().Add(time.Minute))
	assert.Zero(t, rep.Counts.Discarded, "within the grace since the release: %v", orphanActions(rep))
	assert.True(t, f.Exists(retained.MetadataKey))

	rep = f.reconcile(apply(), later())
	assert.Equal(t, 1, rep.Counts.Discarded, "%v", orphanActions(rep))
	assert.False(t, f.Exists(retained.MetadataKey))
	assert.False(t, f.Exists(jobmanager.DataKey(job, 3)))
	assert.True(t, f.Exists(jobmanager.SharedKey(job)), "shared files are never discarded")

	f.reconcile(apply(), time.Now().Add(2*contract.DefaultTombstoneTTL))
	st, err := f.Inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "forgotten once its records are collected")
}
