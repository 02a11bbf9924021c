package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Regression tests for "kept means kept, with a record" and "only the
// standing claim's own finalization deletes" (docs/design.md, lifecycle
// rules; issue 37 findings 1 and 2). Each replays, under an epoch nobody
// claimed, a request anyone in the namespace could read from a history.

// replayUnclaimed finalizes req again as a checkpoint of epoch 99, which
// nobody claimed: its publish is Rejected.StaleEpoch and it must keep
// every file of the directory it names.
func (f *fixture) replayUnclaimed(req contract.FinalizeRequest) {
	f.t.Helper()
	f.replayAs(req, 99, jobmanager.Owner(99))
}

// replayAs finalizes req again as a checkpoint of (epoch, owner), and
// checks that every file of the directory it names stays.
func (f *fixture) replayAs(req contract.FinalizeRequest, epoch uint64, owner string) {
	f.t.Helper()
	replay := req
	replay.Epoch, replay.Owner, replay.Savepoint = epoch, owner, false
	f.newEnv()
	res := f.finalize(replay)
	assert.NotEqual(f.t, contract.Published, res.Phase, res.Reason)
	assert.True(f.t, f.exists(req.MetadataKey), "%s stays", req.MetadataKey)
	assert.True(f.t, f.exists(jobmanager.DataKey(job, req.Checkpoint)), "checkpoint %d's data stays", req.Checkpoint)
}

// A savepoint lying in its own checkpoint directory is removed by
// retention (its data kept) and its finalization has closed: its record
// stays in the store, and a replay of its request as a checkpoint, of an
// unclaimed epoch or under the standing claim itself (whose owner the
// history shows), deletes nothing (finding 1).
func TestSavepointInItsCheckpointDirectoryOutlivesItsRemoval(t *testing.T) {
	f := newFixture(t, 1)
	f.acts.Finalizations = runningFinalizations{}
	savepoint := f.checkpoint(3, true)
	require.Equal(t, contract.Published, f.finalize(savepoint).Phase)
	for n := uint64(4); n <= 5; n++ {
		f.newEnv()
		require.Equal(t, contract.Published, f.finalize(f.checkpoint(n, false)).Phase)
	}
	_, err := f.acts.DrainRetention(t.Context(), job)
	require.NoError(t, err)
	assert.True(t, f.entry(4).Absent(), "a checkpoint's tombstone is collected early")

	f.replayUnclaimed(savepoint)
	f.replayAs(savepoint, savepoint.Epoch, savepoint.Owner)
	assert.True(t, f.entry(3).WasPublished(savepoint.Token()), "the savepoint keeps its record: %+v", f.entry(3))
}

// A job retires keeping its state and is resubmitted under its ID at once;
// a day later the reconciler's collection runs: the retained tombstones
// stay, and a replay of checkpoint 5's request under an unclaimed epoch
// deletes nothing of the state the operator restores from (finding 2).
func TestResubmittedJobsRetainedStateOutlivesTheTTL(t *testing.T) {
	f := newFixture(t, 0)
	var last contract.FinalizeRequest
	for n := uint64(1); n <= 5; n++ {
		f.newEnv()
		last = f.checkpoint(n, false)
		require.Equal(t, contract.Published, f.finalize(last).Phase)
	}
	require.NoError(t, f.inner.Retire(t.Context(), job, 1, true))
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	_, err := f.inner.CollectTombstones(t.Context(), job, time.Now().Add(2*contract.DefaultTombstoneTTL))
	require.NoError(t, err)

	f.replayUnclaimed(last)
	for n := uint64(1); n <= 5; n++ {
		e := f.entry(n)
		assert.True(t, e.Tombstone != nil && e.Tombstone.Reason == stores.ReasonRetained, "checkpoint %d keeps its retained record: %+v", n, e)
	}
}

// A deposed leader's savepoint in its own checkpoint directory is never
// published; its handle stays as its record. A request naming those files
// as a checkpoint of the standing claim itself (whose owner every history
// shows) must not delete them when its own discard runs, here after the
// job retired and refused its publish.
func TestDeposedLeadersSavepointOutlivesAReplayUnderTheStandingClaim(t *testing.T) {
	f := newFixture(t, 1)
	savepoint := f.checkpoint(2, true)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, jobmanager.Owner(2)))
	res := f.finalize(savepoint)
	require.Equal(t, contract.Discarded, res.Phase, res.Reason)
	require.True(t, f.exists(savepoint.MetadataKey), "a deposed epoch deletes nothing")

	require.NoError(t, f.inner.Retire(t.Context(), job, 2, true))
	f.replayAs(savepoint, 2, jobmanager.Owner(2))
}
