package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Regression tests for the paths around the publish protocol (issue 10).
// Each failed at e5e919a.

// A deposed job manager finalizes a checkpoint ID the new leader also
// wrote and published: its stale-epoch rejection discards, and the discard
// must keep the directory the new leader's reference points into (finding
// 2, without any bad input).
func TestDeposedFinalizationKeepsTheNewLeadersCheckpoint(t *testing.T) {
	f := newFixture(t, 0)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	live := workflowtest.PublishAs(t, jobmanager.Bucket{Dir: f.dir}, f.states, f.inner, 2, 5)

	res := f.finalize(f.checkpoint(5, false)) // epoch 1, deposed
	assert.Equal(t, contract.Discarded, res.Phase, res.Reason)
	assert.Contains(t, res.Reason, "its data stays")
	workflowtest.Resolves(t, f.exists, live)
	assert.True(t, f.entry(5).HoldsToken(live.Token()))
}

// A request may name only its own checkpoint's directory: another job's,
// a nested one or a cluster named like a checkpoint are refused before
// anything is read or written (finding 2).
func TestRequestNamingOtherDataFails(t *testing.T) {
	f := newFixture(t, 0)
	other := stores.JobID{Cluster: "c1", Job: "other"}
	victim, err := jobmanager.Bucket{Dir: f.dir}.WriteCheckpoint(other, 1, 5, false)
	require.NoError(t, err)

	// Each names metadata that exists with its checksum: only the layout
	// refuses them (at e5e919a they were published, and their discard
	// would have emptied the directory they name).
	cases := map[string]func(r *contract.FinalizeRequest, b jobmanager.Bucket){
		"another job's directory": func(r *contract.FinalizeRequest, _ jobmanager.Bucket) {
			r.ExclusivePrefix, r.MetadataKey, r.MetadataSHA256 = victim.ExclusivePrefix, victim.MetadataKey, victim.MetadataSHA256
		},
		"a nested directory": func(r *contract.FinalizeRequest, b jobmanager.Bucket) {
			nested, err := b.WriteCheckpoint(job, 1, 15, false)
			require.NoError(t, err)
			*r = nested
			r.ExclusivePrefix = "c1/j1/chk-5/y/chk-15/"
			r.MetadataKey = r.ExclusivePrefix + "_metadata"
			copyObject(t, b, nested.MetadataKey, r.MetadataKey)
		},
		"a cluster named like a checkpoint": func(r *contract.FinalizeRequest, b jobmanager.Bucket) {
			own := r.MetadataKey
			r.ExclusivePrefix, r.MetadataKey = "chk-5/", "chk-5/_metadata"
			copyObject(t, b, own, r.MetadataKey)
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 0)
			_, err := jobmanager.Bucket{Dir: f.dir}.WriteCheckpoint(other, 1, 5, false)
			require.NoError(t, err)
			req := f.checkpoint(5, false)
			mutate(&req, jobmanager.Bucket{Dir: f.dir})
			res := f.finalize(req)
			assert.Equal(t, contract.Failed, res.Phase)
			assert.Contains(t, res.Reason, "exclusivePrefix")
			assert.Contains(t, res.Reason, "must be")
			assert.True(t, f.entry(req.Checkpoint).Absent(), "nothing published")
			assert.False(t, f.exists(activities.HandleOf(req).Key()), "no handle written")
			assert.True(t, f.exists(victim.MetadataKey), "the other job's data is untouched")
		})
	}
}

func copyObject(t *testing.T, b jobmanager.Bucket, from, to string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, from))
	require.NoError(t, err)
	require.NoError(t, b.Write(to, data))
}

// A publish whose every reply is lost landed; the coordinator subsumed the
// checkpoint before the first verify. The token was published: Published,
// not Discarded (finding 3a, I7).
func TestSubsumedBeforeVerifyIsPublished(t *testing.T) {
	f, req, res := removedBeforeVerify(t, func(f *fixture) error {
		return f.inner.Subsume(context.Background(), stores.CheckpointID{JobID: job, Checkpoint: 1}, 1)
	})
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	assert.Equal(t, stores.ReasonSubsumed, f.entry(req.Checkpoint).Tombstone.Reason)
}

// removedBeforeVerify finalizes checkpoint 1 with every publish reply lost
// (the write lands) and runs remove right before the first verify.
func removedBeforeVerify(t *testing.T, remove func(*fixture) error) (*fixture, contract.FinalizeRequest, contract.FinalizeResult) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropReply, storefault.DropReply, storefault.DropReply, storefault.DropReply)
	req := f.checkpoint(1, false)
	f.refs.OnCall(func(op string, call int) {
		if op == storefault.OpVerify && call == 1 {
			require.NoError(t, remove(f))
		}
	})
	return f, req, f.finalize(req)
}

// A lost fast-path task had published; the coordinator subsumed the
// checkpoint but has not discarded its state yet; the retried task persists
// again and publishes attempt 1 over the subsumed key: Published (finding
// 3b), and the finalization deletes nothing the coordinator has to.
func TestRetriedTaskAfterSubsumeIsPublished(t *testing.T) {
	f := newFixture(t, 0)
	req := f.publishDirect(1, false)
	require.NoError(t, f.inner.Subsume(t.Context(), req.CheckpointID(), 1))

	res := f.finalize(req)
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	assert.Equal(t, stores.ReasonSubsumed, f.entry(1).Tombstone.Reason)
}

// The same holds for a reference the job's retirement removed: a retained
// checkpoint's state stays for the operator.
func TestRetiredBeforeVerifyIsPublishedAndKept(t *testing.T) {
	f, req, res := removedBeforeVerify(t, func(f *fixture) error {
		return f.inner.Retire(context.Background(), job, 1, true)
	})
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	assert.True(t, f.exists(req.MetadataKey), "retained state is never the finalization's to delete")
}

// While the reconciler asks Temporal about an orphan's finalization, the
// new leader publishes its own checkpoint with the same ID into the same
// directory: the orphan's discard, re-reading the key after its fence,
// keeps it (finding 1: at e5e919a the handle keys differed and the
// directory went).
func TestReconcilerKeepsADirectoryPublishedDuringItsRun(t *testing.T) {
	f := newReconcileFixture(t)
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
	assert.Contains(t, orphanActions(rep)[activities.HandleOf(lost).Key()], "live reference")
}

// A job retired, forgotten and its ID reused: the old incarnation's state
// lies in the directories the new one writes; the reconciler reports it
// and never touches it (finding 1), and fences nothing in the new job.
func TestReconcilerKeepsAPreviousIncarnation(t *testing.T) {
	f := newReconcileFixture(t)
	old := f.published(5)
	require.NoError(t, f.Inner.Retire(t.Context(), job, 1, false))
	_, err := f.Inner.CollectTombstones(t.Context(), job, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))

	rep := f.reconcile(apply(), later())
	assert.Equal(t, activities.KeepPreviousIncarnation, orphanActions(rep)[activities.HandleOf(old).Key()][len(contract.ActionKeptPrefix):])
	assert.True(t, f.Exists(old.MetadataKey))
	assert.True(t, f.Entry(5).Absent(), "no fence written into the new incarnation")
	live := workflowtest.PublishAs(t, f.Bucket, f.States, f.Inner, 2, 5)
	workflowtest.Resolves(t, f.Exists, live)
}

// After a retirement that lets the reconciler discard, the grace runs from
// the retirement, not from the handles' write; a retirement that retains
// keeps the state for good (finding 8). Either way the retired job is then
// forgotten, fences written after the retirement included, and with nothing
// left to collect (finding 5).
func TestReconcilerRetirement(t *testing.T) {
	for _, discard := range []bool{false, true} {
		f := newReconcileFixture(t)
		old := f.published(3)
		// Written long before the retirement: past the grace by its own age.
		long := time.Now().Add(-3 * contract.DefaultReconcileGrace)
		require.NoError(t, os.Chtimes(filepath.Join(f.Bucket.Dir, activities.HandleOf(old).Key()), long, long))
		require.NoError(t, f.Inner.Retire(t.Context(), job, 1, !discard))
		v, err := f.Inner.Verify(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 9}, "late", 1)
		require.NoError(t, err)
		require.Equal(t, stores.Absent, v, "a verify after the retirement fences above its watermark")

		// Handle written long ago, retirement just now: within the grace.
		rep := f.reconcile(apply(), time.Now().Add(time.Minute))
		assert.Zero(t, rep.Counts.Discarded, "discard %t: within the retirement's grace", discard)
		assert.True(t, f.Exists(old.MetadataKey))

		rep = f.reconcile(apply(), later())
		if discard {
			assert.Equal(t, 1, rep.Counts.Discarded)
			assert.False(t, f.Exists(old.MetadataKey))
		} else {
			assert.Zero(t, rep.Counts.Discarded)
			assert.Equal(t, contract.ActionKeptPrefix+activities.KeepRetained, orphanActions(rep)[activities.HandleOf(old).Key()])
			assert.True(t, f.Exists(old.MetadataKey), "retained for the operator")
		}

		f.reconcile(apply(), time.Now().Add(2*contract.DefaultTombstoneTTL))
		st, err := f.Inner.ReadJob(t.Context(), job)
		require.NoError(t, err)
		assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "discard %t: forgotten", discard)
		require.NoError(t, f.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"), "the ID can be claimed again")
	}
}

// A retired job without a single key left is forgotten too: at e5e919a the
// reconciler saw nothing to collect and never asked (finding 5b).
func TestReconcilerForgetsARetiredJobWithoutKeys(t *testing.T) {
	f := newReconcileFixture(t)
	require.NoError(t, f.Inner.Retire(t.Context(), job, 1, true))
	f.reconcile(apply(), later())
	st, err := f.Inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st)
}
