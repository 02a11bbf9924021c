package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Regression tests for the paths around the publish protocol (issue 10).
// Each failed at e5e919a. The reconciler's are in
// workflows/reconcile/lifecycle_test.go.

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
