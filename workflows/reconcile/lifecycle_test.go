package reconcile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Regression tests for the reconciler's side of the lifecycle around a
// finalization (issue 10); the finalizer's are in
// workflows/lifecycle_test.go. Each failed at e5e919a.

// While the reconciler asks Temporal about an orphan's finalization, the
// new leader publishes its own checkpoint with the same ID into the same
// directory: the orphan's discard, re-reading the key after its fence,
// keeps it (finding 1: at e5e919a the handle keys differed and the
// directory went).
func TestReconcilerKeepsADirectoryPublishedDuringItsRun(t *testing.T) {
	f := newFixture(t)
	lost := f.checkpoint(1, 5, false) // a deposed job manager's, never published
	f.finals.set(lost, closed(contract.Discarded))
	require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	var live contract.FinalizeRequest
	f.onActivity = func(name string) {
		if name == "DiscardOrphan" && live.Checkpoint == 0 {
			live = workflowtest.PublishAs(t, f.Bucket, f.States, f.Inner, 2, 5)
		}
	}

	rep := f.reconcile(apply(), later())
	require.NotZero(t, live.Checkpoint, "the orphan's discard ran")
	assert.Zero(t, rep.Counts.Discarded)
	workflowtest.Resolves(t, f.Exists, live)
	assert.Contains(t, orphanActions(rep)[activities.HandleOf(lost).Key()], "deposed", "the deposed epoch's state is the standing epoch's to decide")
}

// A job retired, forgotten and its ID reused: the old incarnation's state
// lies in the directories the new one writes; the reconciler reports it
// and never touches it (finding 1), and fences nothing in the new job.
func TestReconcilerKeepsAPreviousIncarnation(t *testing.T) {
	f := newFixture(t)
	old := f.published(5)
	require.NoError(t, f.Inner.Retire(t.Context(), job, 1, false))
	_, err := f.Inner.CollectTombstones(t.Context(), job, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))

	rep := f.reconcile(apply(), later())
	assert.Equal(t, reconcileacts.KeepPreviousIncarnation, orphanActions(rep)[activities.HandleOf(old).Key()][len(contract.ActionKeptPrefix):])
	assert.True(t, f.Exists(old.MetadataKey))
	assert.True(t, f.Entry(5).Absent(), "no fence written into the new incarnation")
	live := workflowtest.PublishAs(t, f.Bucket, f.States, f.Inner, 2, 5)
	workflowtest.Resolves(t, f.Exists, live)
}

// A job retired and resubmitted under its ID at once (the new claim lands
// before the reconciler runs): the retirement's choice still holds for the
// old incarnation's state. Discarded past the grace since the retirement,
// while its key still holds its own retired tombstone (nobody can publish
// that key again, and the new incarnation publishes only above it);
// retained state stays. Nothing is fenced in the new incarnation.
func TestReconcilerRetirementBeforeAResubmission(t *testing.T) {
	for _, discard := range []bool{false, true} {
		f := newFixture(t)
		old := f.retiredLongAfterItsWrite(discard)
		require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
		f.assertRetirementHonoured(old, discard)
		want := map[bool]stores.Reason{false: stores.ReasonRetained, true: stores.ReasonRetired}[discard]
		assert.Equal(t, want, f.Entry(3).Tombstone.Reason, "the old tombstone stays until collected")
		live := workflowtest.PublishAs(t, f.Bucket, f.States, f.Inner, 2, 4)
		workflowtest.Resolves(t, f.Exists, live)
	}
}

// After a retirement that lets the reconciler discard, the grace runs from
// the retirement, not from the handles' write; a retirement that retains
// keeps the state for good (finding 8). A retired job that let its state go
// is then forgotten, fences written after the retirement included (finding
// 5); one that retained it keeps the records of that state, so it stays
// retired. Either way its ID can be claimed again.
func TestReconcilerRetirement(t *testing.T) {
	for _, discard := range []bool{false, true} {
		f := newFixture(t)
		old := f.retiredLongAfterItsWrite(discard)
		v, err := f.Inner.Verify(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 9}, "late", 1)
		require.NoError(t, err)
		require.Equal(t, stores.Absent, v, "a verify after the retirement fences above its watermark")
		f.assertRetirementHonoured(old, discard)

		f.reconcile(apply(), time.Now().Add(2*contract.DefaultTombstoneTTL))
		st, err := f.Inner.ReadJob(t.Context(), job)
		require.NoError(t, err)
		if discard {
			assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "forgotten")
		} else {
			assert.True(t, st.Retired, "the retained record keeps the job retired: %+v", st)
			assert.Equal(t, stores.ReasonRetained, f.Entry(3).Tombstone.Reason)
		}
		require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"), "discard %t: the ID can be claimed again", discard)
	}
}

// retiredLongAfterItsWrite publishes checkpoint 3 under epoch 1, its handle
// written long before (past the grace by its own age), and retires the job
// now, discarding or retaining its checkpoints.
func (f *fixture) retiredLongAfterItsWrite(discard bool) contract.FinalizeRequest {
	f.t.Helper()
	old := f.published(3)
	f.age(activities.HandleOf(old).Key(), time.Now().Add(-3*contract.DefaultReconcileGrace))
	require.NoError(f.t, f.Inner.Retire(f.t.Context(), job, 1, !discard))
	return old
}

// age sets the modification time of the object at key.
func (f *fixture) age(key string, at time.Time) {
	f.t.Helper()
	require.NoError(f.t, os.Chtimes(filepath.Join(f.Bucket.Dir, key), at, at))
}

// assertRetirementHonoured reconciles within the retirement's grace (the
// state stays), then past it: discarded when the retirement let it go,
// else kept as retained.
func (f *fixture) assertRetirementHonoured(old contract.FinalizeRequest, discard bool) {
	t := f.t
	t.Helper()
	rep := f.reconcile(apply(), time.Now().Add(time.Minute))
	assert.Zero(t, rep.Counts.Discarded, "discard %t: within the retirement's grace", discard)
	assert.True(t, f.Exists(old.MetadataKey))

	rep = f.reconcile(apply(), later())
	if discard {
		assert.Equal(t, 1, rep.Counts.Discarded, "the retirement let it go: %v", orphanActions(rep))
		assert.False(t, f.Exists(old.MetadataKey))
		return
	}
	assert.Zero(t, rep.Counts.Discarded)
	assert.Equal(t, contract.ActionKeptPrefix+reconcileacts.KeepRetained, orphanActions(rep)[activities.HandleOf(old).Key()])
	assert.True(t, f.Exists(old.MetadataKey), "retained for the operator")
}

// A discarding retirement's state within the grace is pending discard: a
// run, dry or applied, lists it as such (its retirement discards it once
// its finalization has closed, or a run past the grace does), and deletes
// nothing of it; retained state is listed as kept.
func TestReconcilerListsRetiredStatePendingDiscard(t *testing.T) {
	for _, discard := range []bool{false, true} {
		f := newFixture(t)
		old := f.retiredLongAfterItsWrite(discard)
		for _, req := range []contract.ReconcileRequest{dryRun(), apply()} {
			rep := f.reconcile(req, time.Now().Add(time.Minute))
			action := orphanActions(rep)[activities.HandleOf(old).Key()]
			if discard {
				assert.True(t, strings.HasPrefix(action, contract.ActionPendingPrefix+"retired at "), "apply %t: %q", req.Apply, action)
			} else {
				assert.Equal(t, contract.ActionKeptPrefix+reconcileacts.KeepRetained, action, "apply %t", req.Apply)
			}
			assert.Zero(t, rep.Counts.InFlight, "apply %t: not in flight", req.Apply)
			assert.Zero(t, rep.Counts.Discarded)
			assert.True(t, f.Exists(old.MetadataKey))
		}
	}
}

// A retired job without a single key left is forgotten too: at e5e919a the
// reconciler saw nothing to collect and never asked (finding 5b).
func TestReconcilerForgetsARetiredJobWithoutKeys(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Inner.Retire(t.Context(), job, 1, true))
	f.reconcile(apply(), later())
	st, err := f.Inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st)
}
