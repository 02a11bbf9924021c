package reconcile_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// InventoryJob counts the job's references and tombstones, lists the
// references that no longer resolve and the handles no reference points
// to, and names the tombstones past their TTL; each list stops at the
// input's limit, saying that it did.
func TestInventoryJobCountsListsAndTruncates(t *testing.T) {
	w := newWorld(t)
	job := workflowtest.Job
	for n := uint64(1); n <= 4; n++ {
		req := w.publish(t, job, n)
		if n == 1 || n == 3 { // their handles gone: dangling
			require.NoError(t, os.Remove(filepath.Join(w.Bucket.Dir, activities.HandleOf(req).Key())))
		}
	}
	require.NoError(t, w.Inner.Subsume(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 2}, 1))
	w.write(t, job, 5)
	// Everything is an hour and more old by the worker's clock.
	later := time.Now().Add(time.Hour)
	w.acts.Clock = func() time.Time { return later.Add(time.Hour) }

	cases := []struct {
		limit     int
		dangling  []uint64
		orphans   []uint64
		truncated bool
	}{
		{0, []uint64{1, 3}, []uint64{2, 5}, false},
		{2, []uint64{1, 3}, []uint64{2, 5}, false},
		{1, []uint64{1}, []uint64{2}, true},
	}
	for _, c := range cases {
		v, err := w.runValue(t, "InventoryJob", reconcileacts.InventoryInput{JobID: job, GraceCutoff: later, TombstoneCutoff: later, Limit: c.limit})
		require.NoError(t, err)
		var inv reconcileacts.JobInventory
		require.NoError(t, v.Get(&inv))
		assert.Equal(t, 3, inv.Published, "limit %d: 1, 3 and 4", c.limit)
		assert.Equal(t, 1, inv.Tombstones, "limit %d: 2's", c.limit)
		assert.Equal(t, []uint64{2}, inv.Collectable, "limit %d", c.limit)
		assert.False(t, inv.Forget, "limit %d", c.limit)
		assert.Zero(t, inv.Young, "limit %d", c.limit)
		assert.Equal(t, c.truncated, inv.Truncated, "limit %d", c.limit)
		var dangling, orphans []uint64
		for _, d := range inv.Dangling {
			dangling = append(dangling, d.Checkpoint)
		}
		for _, o := range inv.Orphans {
			orphans = append(orphans, o.Checkpoint)
			assert.Empty(t, o.Keep, "limit %d: checkpoint %d", c.limit, o.Checkpoint)
		}
		assert.Equal(t, c.dangling, dangling, "limit %d", c.limit)
		assert.Equal(t, c.orphans, orphans, "limit %d", c.limit)
	}
}

// A handle of the job ID's forgotten incarnation, its last epoch included,
// is that incarnation's: the inventory keeps it, whatever the new one
// holds, unless its key holds the retirement's own tombstone.
func TestInventoryJobKeepsTheForgottenIncarnationsHandles(t *testing.T) {
	w := newWorld(t)
	job := workflowtest.Job
	w.write(t, job, 5) // epoch 1's, never published
	require.NoError(t, w.Inner.Retire(t.Context(), job, 1, false))
	_, err := w.Inner.CollectTombstones(t.Context(), job, time.Now().Add(time.Hour))
	require.NoError(t, err)
	st, err := w.Inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	require.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "forgotten")
	require.NoError(t, w.Inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	later := time.Now().Add(time.Hour)
	w.acts.Clock = func() time.Time { return later.Add(time.Hour) }

	v, err := w.runValue(t, "InventoryJob", reconcileacts.InventoryInput{JobID: job, GraceCutoff: later, TombstoneCutoff: later})
	require.NoError(t, err)
	var inv reconcileacts.JobInventory
	require.NoError(t, v.Get(&inv))
	require.Len(t, inv.Orphans, 1)
	assert.Equal(t, uint64(1), inv.Orphans[0].Epoch)
	assert.Equal(t, reconcileacts.KeepPreviousIncarnation, inv.Orphans[0].Keep)
}

// A live savepoint that names no exclusive prefix (its data is never
// discarded) shares nothing with an orphan: only a prefix or metadata of
// the live state inside the orphan's directory keeps the orphan.
func TestInventoryJobOrphanBesideASavepointWithoutPrefix(t *testing.T) {
	w := newWorld(t)
	job := workflowtest.Job
	sp, err := w.Bucket.WriteCheckpoint(job, 1, 4, true)
	require.NoError(t, err)
	sp.ExclusivePrefix = ""
	_, err = w.States.Write(t.Context(), activities.HandleOf(sp))
	require.NoError(t, err)
	require.NoError(t, w.Inner.Publish(t.Context(), stores.Publication{
		CheckpointID: sp.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(sp).Key(), Token: sp.Token(), Attempt: 1, Savepoint: true},
	}))
	w.write(t, job, 5)
	later := time.Now().Add(time.Hour)
	w.acts.Clock = func() time.Time { return later.Add(time.Hour) }

	v, err := w.runValue(t, "InventoryJob", reconcileacts.InventoryInput{JobID: job, GraceCutoff: later, TombstoneCutoff: later})
	require.NoError(t, err)
	var inv reconcileacts.JobInventory
	require.NoError(t, v.Get(&inv))
	assert.Empty(t, inv.Dangling, "the savepoint resolves")
	require.Len(t, inv.Orphans, 1)
	assert.Equal(t, uint64(5), inv.Orphans[0].Checkpoint)
	assert.Empty(t, inv.Orphans[0].Keep)
}
