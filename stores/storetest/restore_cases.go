package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	finalizer "github.com/checkpoint-finalizer/finalizer/worker"
)

// raceOnRead is the state bucket with retention racing the restore point's
// read: right before the handle under key is read for the first time, race
// runs (a newer checkpoint publishes, retention removes the one listed and
// deletes its files).
type raceOnRead struct {
	*blobstate.Store
	key  string
	race func()
	once sync.Once
}

func (r *raceOnRead) ReadKey(ctx context.Context, key string) (blobstate.Handle, error) {
	if key == r.key {
		r.once.Do(r.race)
	}
	return r.Store.ReadKey(ctx, key)
}

// The restore point `finalizer latest` and a claim answer is the job's
// newest reference that resolves. Between the listing and the handle's
// read, checkpoint N+1 publishes and retention subsumes N, collects its
// tombstone and deletes its files: the newest reference resolved at every
// moment, so the answer is N+1 resolved, never "N dangling, handle missing"
// nor an older checkpoint. Once for the read of `finalizer latest`, once
// for a claim's.
func testRestorePointUnderRetention(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	bucket := jobmanager.Bucket{Dir: t.TempDir()}
	states, err := blobstate.Open(ctx(t), bucket.URL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = states.Close() })
	publish := func(t *testing.T, n uint64) contract.FinalizeRequest {
		t.Helper()
		req, err := bucket.WriteCheckpoint(testJob, 1, n, false)
		require.NoError(t, err)
		key, err := states.Write(ctx(t), activities.HandleOf(req))
		require.NoError(t, err)
		require.NoError(t, s.Publish(ctx(t), stores.Publication{CheckpointID: req.CheckpointID(), Epoch: 1, Owner: req.Owner,
			Reference: stores.Reference{Handle: key, Token: req.Token(), Attempt: 1}}))
		return req
	}
	newest := publish(t, 1)
	for _, in := range []activities.RestoreInput{
		{JobID: testJob},
		{JobID: testJob, Epoch: 1, Owner: newest.Owner},
	} {
		t.Run(fmt.Sprintf("owner %q", in.Owner), func(t *testing.T) {
			listed := newest
			racing := &raceOnRead{Store: states, key: activities.HandleOf(listed).Key(), race: func() {
				newest = publish(t, listed.Checkpoint+1)
				require.NoError(t, s.Subsume(ctx(t), listed.CheckpointID(), 1))
				require.NoError(t, s.CollectSubsumed(ctx(t), listed.CheckpointID(), listed.Token()))
				_, err := states.Discard(ctx(t), activities.HandleOf(listed))
				require.NoError(t, err)
			}}
			acts := finalizer.Assemble(finalizer.Parts{References: s, Bucket: states, States: racing}).Finalizer
			rp, err := acts.RestorePoint(ctx(t), in)
			require.NoError(t, err)
			assert.Equal(t, contract.RestoreResolved, rp.State, "dangling: %q", rp.Dangling)
			require.NotNil(t, rp.Latest)
			assert.Equal(t, listed.Checkpoint+1, rp.Latest.Checkpoint)
			assert.Nil(t, rp.Fallback)
		})
	}
	// A reference that truly dangles, its listing the same before and after
	// the read, is still answered so.
	_, err = states.Discard(ctx(t), activities.HandleOf(newest))
	require.NoError(t, err)
	rp, err := finalizer.Assemble(finalizer.Parts{References: s, Bucket: states}).Finalizer.RestorePoint(ctx(t), activities.RestoreInput{JobID: testJob})
	require.NoError(t, err)
	assert.Equal(t, contract.RestoreDangling, rp.State)
	assert.Equal(t, contract.ProblemHandleMissing, rp.Dangling)
}
