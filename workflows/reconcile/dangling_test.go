package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// A reference whose handle or metadata is gone (what Flink users met after
// failovers) is always reported; a dry run changes nothing, and without
// QuarantineDangling not even an applied run touches it.
func TestReconcileReportsDanglingReferences(t *testing.T) {
	f := newFixture(t)
	f.published(1)
	two := f.published(2)
	f.remove(activities.HandleOf(two).Key())
	three := f.published(3)
	f.remove(three.MetadataKey)
	before := f.snapshot()

	rep := f.reconcile(dryRun(), later())
	assert.True(t, rep.DryRun)
	assert.Equal(t, contract.ReconcileDone, rep.Phase)
	assert.Equal(t, 1, rep.Counts.Jobs)
	assert.Equal(t, 3, rep.Counts.References)
	assert.Equal(t, 2, rep.Counts.Dangling)
	assert.Zero(t, rep.Counts.Quarantined)
	assert.Equal(t, map[string]string{"c1/j1/2": contract.ActionWouldQuarantine, "c1/j1/3": contract.ActionWouldQuarantine}, danglingActions(rep))
	require.Len(t, rep.Dangling, 2)
	assert.Equal(t, contract.ProblemHandleMissing, rep.Dangling[0].Problem)
	assert.Equal(t, two.Token(), rep.Dangling[0].Token)
	assert.Equal(t, contract.ProblemDataMissing, rep.Dangling[1].Problem)
	assert.Empty(t, rep.Quarantined)
	assert.Equal(t, before, f.snapshot(), "a dry run changes nothing")

	req := apply()
	req.QuarantineDangling = false
	rep = f.reconcile(req, later())
	assert.Equal(t, map[string]string{"c1/j1/2": contract.ActionReported, "c1/j1/3": contract.ActionReported}, danglingActions(rep))
	assert.Equal(t, before, f.snapshot(), "not asked to quarantine: reported only")
}

// Asked to, an applied run tombstones dangling references (reason
// quarantined), so recovery falls back to the newest one that resolves.
func TestReconcileQuarantinesDanglingReferences(t *testing.T) {
	f := newFixture(t)
	one := f.published(1)
	two := f.published(2)
	f.remove(activities.HandleOf(two).Key())
	three := f.published(3)
	f.remove(three.MetadataKey)

	rep := f.reconcile(apply(), later())
	assert.False(t, rep.DryRun)
	assert.Equal(t, map[string]string{"c1/j1/2": contract.ActionQuarantined, "c1/j1/3": contract.ActionQuarantined}, danglingActions(rep))
	assert.Equal(t, []string{"c1/j1/2", "c1/j1/3"}, rep.Quarantined)
	assert.Equal(t, 2, rep.Counts.Quarantined)
	for _, req := range []contract.FinalizeRequest{two, three} {
		e := f.Entry(req.Checkpoint)
		require.NotNil(t, e.Tombstone, "checkpoint %d", req.Checkpoint)
		assert.Equal(t, stores.ReasonQuarantined, e.Tombstone.Reason)
		assert.Equal(t, req.Token(), e.Tombstone.Token)
	}
	assert.True(t, f.Entry(1).HoldsToken(one.Token()), "the reference that resolves stays")
	list, err := f.Inner.List(t.Context(), job)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, uint64(1), list[0].Checkpoint, "recovery now finds checkpoint 1 (I1 restored)")

	rep = f.reconcile(apply(), later())
	assert.Zero(t, rep.Counts.Dangling, "a quarantined reference is no longer dangling")
}

// The quarantine reads the handle again right before it writes: a handle
// that is back (a bucket that answered late) is left alone.
func TestReconcileQuarantineReconfirms(t *testing.T) {
	f := newFixture(t)
	two := f.published(2)
	path := filepath.Join(f.Bucket.Dir, activities.HandleOf(two).Key())
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	f.onActivity = func(name string) {
		if name == "QuarantineDangling" {
			require.NoError(t, os.WriteFile(path, saved, 0o644))
		}
	}

	rep := f.reconcile(apply(), later())
	assert.Equal(t, 1, rep.Counts.Dangling, "the inventory saw it dangling")
	assert.Equal(t, map[string]string{"c1/j1/2": contract.ActionResolves}, danglingActions(rep))
	assert.Zero(t, rep.Counts.Quarantined)
	assert.True(t, f.Entry(2).HoldsToken(two.Token()), "nothing written")
}

// racingStates runs a hook before each handle read: the coordinator's
// removal racing the reconciler's inventory.
type racingStates struct {
	*blobstate.Store
	before func(key string)
}

func (s racingStates) ReadKey(ctx context.Context, key string) (blobstate.Handle, error) {
	s.before(key)
	return s.Store.ReadKey(ctx, key)
}

// A reference subsumed and discarded between the inventory's listing and
// its handle read is gone, not dangling: nothing is counted or logged as
// dangling, and nothing is quarantined.
func TestReconcileDoesNotCountASubsumedReferenceDangling(t *testing.T) {
	f := newFixture(t)
	f.published(1)
	two := f.published(2)
	f.published(3)
	var once sync.Once
	f.acts.States = racingStates{Store: f.States, before: func(key string) {
		if key == activities.HandleOf(two).Key() {
			once.Do(func() {
				f.subsume(2)
				f.remove(key)
			})
		}
	}}
	rep := f.reconcile(apply(), later())
	assert.Zero(t, rep.Counts.Dangling, "%+v", rep.Dangling)
	assert.Zero(t, rep.Counts.Quarantined)
	assert.Equal(t, stores.ReasonSubsumed, f.Entry(2).Tombstone.Reason)
}
