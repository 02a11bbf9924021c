package faultharness_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness"
)

// observedWorld is a store and a file bucket holding what a finalizer
// would have left: job-1 claimed at epoch 1, checkpoints persisted and
// published as the workflow does it.
type observedWorld struct {
	t      *testing.T
	job    stores.JobID
	bucket jobmanager.Bucket
	store  *embedded.Store
	states *blobstate.Store
	obs    faultharness.Observed
}

func newObservedWorld(t *testing.T) *observedWorld {
	ctx := t.Context()
	dir := t.TempDir()
	w := &observedWorld{t: t, job: stores.JobID{Cluster: "prod", Job: "job-1"},
		bucket: jobmanager.Bucket{Dir: filepath.Join(dir, "state")}}
	require.NoError(t, os.MkdirAll(w.bucket.Dir, 0o755))
	var err error
	w.store, err = embedded.Open(filepath.Join(dir, "references.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.store.Close() })
	w.states, err = blobstate.Open(ctx, w.bucket.URL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.states.Close() })
	require.NoError(t, w.store.ClaimEpoch(ctx, w.job, 1, jobmanager.Owner(1)))
	w.obs = faultharness.Observed{Store: w.store, Bucket: w.bucket.URL(), Retain: 2,
		Claims: []faultharness.Claim{{Job: w.job, Epoch: 1, RestorePoint: contract.RestorePoint{State: contract.RestoreNone}}}}
	return w
}

// persist writes checkpoint n's files and its handle blob.
func (w *observedWorld) persist(n uint64) contract.FinalizeRequest {
	req, err := w.bucket.WriteCheckpoint(w.job, 1, n, false)
	require.NoError(w.t, err)
	_, err = w.states.Write(w.t.Context(), activities.HandleOf(req))
	require.NoError(w.t, err)
	return req
}

// publish persists checkpoint n and publishes its reference.
func (w *observedWorld) publish(n uint64) contract.FinalizeRequest {
	req := w.persist(n)
	require.NoError(w.t, w.store.Publish(w.t.Context(), stores.Publication{CheckpointID: req.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(req).Key(), Token: req.Token(), Attempt: 1}}))
	return req
}

func (w *observedWorld) ended(req contract.FinalizeRequest, phase contract.Phase) {
	w.obs.Finalizations = append(w.obs.Finalizations, faultharness.Outcome{Request: req, Ended: true, Result: contract.FinalizeResult{Phase: phase}})
}

// check runs Check and returns the broken invariants' names.
func (w *observedWorld) check() []string {
	vs, err := faultharness.Check(w.t.Context(), w.obs)
	require.NoError(w.t, err)
	var out []string
	for _, v := range vs {
		w.t.Logf("%s %s: %s", v.Invariant, v.Subject, v.Detail)
		out = append(out, v.Invariant)
	}
	return out
}

// The checks a harness run makes, on what a run outside it observed: they
// hold on a consistent world and each breaks on the state it guards.
func TestCheckObserved(t *testing.T) {
	// Two checkpoints published and ended Published: nothing to report.
	consistent := func(t *testing.T) (*observedWorld, contract.FinalizeRequest, contract.FinalizeRequest) {
		w := newObservedWorld(t)
		r1, r2 := w.publish(1), w.publish(2)
		w.ended(r1, contract.Published)
		w.ended(r2, contract.Published)
		return w, r1, r2
	}
	t.Run("consistent", func(t *testing.T) {
		w, _, _ := consistent(t)
		require.Empty(t, w.check())
		n, err := faultharness.Leftovers(w.t.Context(), w.obs)
		require.NoError(t, err)
		require.Zero(t, n)
	})
	t.Run("dangling reference", func(t *testing.T) {
		w, _, _ := consistent(t)
		require.NoError(t, os.Remove(filepath.Join(w.bucket.Dir, jobmanager.DataKey(w.job, 2))))
		require.Equal(t, []string{"I1"}, w.check())
	})
	t.Run("handle blob gone", func(t *testing.T) {
		w, _, r2 := consistent(t)
		require.NoError(t, os.Remove(filepath.Join(w.bucket.Dir, activities.HandleOf(r2).Key())))
		require.Equal(t, []string{"I1"}, w.check())
	})
	t.Run("discarded while published", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.obs.Finalizations[1].Result.Phase = contract.Discarded
		require.Equal(t, []string{"I2"}, w.check())
	})
	t.Run("discarded a published token", func(t *testing.T) {
		// Checkpoint 1 was published and then subsumed (a tombstone of its
		// token); its data was discarded, yet it ended Discarded.
		w, r1, _ := consistent(t)
		require.NoError(t, w.store.Subsume(w.t.Context(), r1.CheckpointID(), 1))
		_, err := w.states.Discard(w.t.Context(), activities.HandleOf(r1))
		require.NoError(t, err)
		w.obs.Finalizations[0].Result.Phase = contract.Discarded
		require.Equal(t, []string{"I7"}, w.check())
	})
	t.Run("discarded with no fence", func(t *testing.T) {
		// Checkpoint 3 persisted, never published, nothing fenced its
		// attempts, and its state deleted: an attempt could still land.
		w, _, _ := consistent(t)
		r3 := w.persist(3)
		_, err := w.states.Discard(w.t.Context(), activities.HandleOf(r3))
		require.NoError(t, err)
		w.ended(r3, contract.Discarded)
		require.Equal(t, []string{"I2"}, w.check())
	})
	t.Run("published but not in the store", func(t *testing.T) {
		w, _, _ := consistent(t)
		r3 := w.persist(3)
		w.ended(r3, contract.Published)
		require.ElementsMatch(t, []string{"I4", "I3"}, w.check(), "lost, and its state lies without a reference")
	})
	t.Run("not ended", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.obs.Finalizations[1].Ended = false
		require.Equal(t, []string{"I4"}, w.check())
	})
	t.Run("state without a reference", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.persist(3)
		require.Equal(t, []string{"I3"}, w.check())
		n, err := faultharness.Leftovers(w.t.Context(), w.obs)
		require.NoError(t, err)
		require.Equal(t, 1, n)
	})
	t.Run("handle blob without a reference", func(t *testing.T) {
		// Only the handle blob of checkpoint 3 is left, its files gone: a
		// check of data files alone would pass.
		w, _, _ := consistent(t)
		w.persist(3)
		require.NoError(t, os.RemoveAll(filepath.Join(w.bucket.Dir, "prod", "job-1", "chk-3")))
		require.Equal(t, []string{"I3"}, w.check())
	})
	t.Run("over retention", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.obs.Retain = 1
		require.Equal(t, []string{"I5"}, w.check())
	})
	t.Run("dangling restore point", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.obs.Claims = append(w.obs.Claims, faultharness.Claim{Job: w.job, Epoch: 2, RestorePoint: contract.RestorePoint{
			State: contract.RestoreDangling, Latest: &contract.RestoreCheckpoint{Checkpoint: 2}, Dangling: "data missing"}})
		require.Equal(t, []string{"I1"}, w.check())
	})
	t.Run("restore point behind a publish", func(t *testing.T) {
		w, _, _ := consistent(t)
		w.obs.Claims = append(w.obs.Claims, faultharness.Claim{Job: w.job, Epoch: 2, RestorePoint: contract.RestorePoint{
			State: contract.RestoreResolved, Latest: &contract.RestoreCheckpoint{Checkpoint: 1}}})
		require.Equal(t, []string{"recovery"}, w.check())
	})
}
