package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Tombstones go only when past the TTL and at or below the watermark
// (docs/design.md step 7): a fence above the watermark is what keeps a zombie
// attempt out, and stays.
func TestReconcileCollectsTombstones(t *testing.T) {
	f := newFixture(t)
	for n := uint64(1); n <= 3; n++ {
		req := f.published(n)
		if n < 3 {
			f.subsume(n)
			// The subsumption's own discard, so that only tombstones remain.
			_, err := f.States.Discard(t.Context(), activities.HandleOf(req))
			require.NoError(t, err)
		}
	}
	v, err := f.Inner.Verify(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 9}, "zombie", 1)
	require.NoError(t, err)
	require.Equal(t, stores.Absent, v)

	rep := f.reconcile(apply(), later())
	assert.Zero(t, rep.Counts.Tombstones, "younger than the TTL")
	assert.NotNil(t, f.Entry(1).Tombstone)

	past := time.Now().Add(contract.DefaultTombstoneTTL + time.Hour)
	before := f.snapshot()
	rep = f.reconcile(dryRun(), past)
	assert.Equal(t, 2, rep.Counts.Tombstones)
	assert.Zero(t, rep.Counts.TombstonesCollected)
	assert.Equal(t, []contract.TombstoneFinding{{Job: "c1/j1", Checkpoints: []uint64{1, 2}, Action: contract.ActionWouldCollect}}, rep.TombstonesCollected)
	assert.Equal(t, before, f.snapshot())

	rep = f.reconcile(apply(), past)
	assert.Equal(t, 2, rep.Counts.TombstonesCollected)
	assert.Equal(t, []contract.TombstoneFinding{{Job: "c1/j1", Checkpoints: []uint64{1, 2}, Collected: 2, Action: contract.ActionCollected}}, rep.TombstonesCollected)
	assert.True(t, f.Entry(1).Absent())
	assert.True(t, f.Entry(2).Absent())
	assert.NotNil(t, f.Entry(3).Reference)
	assert.NotNil(t, f.Entry(9).Tombstone, "the fence above the watermark stays")
}
