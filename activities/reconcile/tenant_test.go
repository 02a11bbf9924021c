package reconcile_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Regression tests for issue 22, finding 5: every reconciler activity
// refuses a job of a cluster its worker does not serve, and applies the
// worker's own minimum TTL and grace whatever its input's cutoffs say.
// Each failed at b0bb845. They run over the real embedded store and a real
// file bucket (workflowtest.World).

// closedFinalizations answers every finalization as Completed/Discarded.
type closedFinalizations struct{}

func (closedFinalizations) Finalization(_ context.Context, id string) (activities.FinalizationState, error) {
	return activities.FinalizationState{WorkflowID: id, Found: true, Status: "Completed", Phase: string(contract.Discarded)}, nil
}

type world struct {
	workflowtest.World
	acts *reconcileacts.Activities
}

// newWorld serves c1 only (its checkpoints at "c1/").
func newWorld(t *testing.T) world {
	t.Helper()
	w := world{World: workflowtest.NewWorld(t)}
	layout, err := blobstate.ParseLayout("c1=c1")
	require.NoError(t, err)
	w.acts = &reconcileacts.Activities{
		Inventory: w.Inner, References: w.Refs, States: w.States, Handles: w.States,
		Layout: layout, Finalizations: closedFinalizations{}, Floors: reconcileacts.DefaultFloors(),
	}
	return w
}

// publish writes checkpoint n of a job claimed at epoch 1 and publishes it.
func (w world) publish(t *testing.T, job stores.JobID, n uint64) contract.FinalizeRequest {
	t.Helper()
	req := w.write(t, job, n)
	require.NoError(t, w.Inner.Publish(t.Context(), stores.Publication{
		CheckpointID: req.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(req).Key(), Token: req.Token(), Attempt: 1},
	}))
	return req
}

// write writes a checkpoint's files and handle, as a finalization's persist does.
func (w world) write(t *testing.T, job stores.JobID, n uint64) contract.FinalizeRequest {
	t.Helper()
	req, err := w.Bucket.WriteCheckpoint(job, 1, n, false)
	require.NoError(t, err)
	_, err = w.States.Write(t.Context(), activities.HandleOf(req))
	require.NoError(t, err)
	return req
}

// run runs an activity behind the worker's tenant gate, as a worker does.
func (w world) run(t *testing.T, name string, in any) error {
	t.Helper()
	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{activities.Gate{Layout: w.acts.Layout}.Interceptor()}})
	env.RegisterActivity(w.acts)
	_, err := env.ExecuteActivity(name, in)
	return err
}

// A worker serving only c1 is handed c2's job by every activity that takes
// one: the tenant gate refuses each before it reads or writes anything of
// c2's. At
// b0bb845 the inventory read c2's keys and handles, the quarantine
// tombstoned c2's reference, the collection deleted c2's tombstone and the
// orphan discard deleted c2's state.
func TestReconcilerActivitiesRefuseAnUnservedCluster(t *testing.T) {
	w := newWorld(t)
	c2 := stores.JobID{Cluster: "c2", Job: "j1"}
	require.NoError(t, w.Inner.ClaimEpoch(t.Context(), c2, 1, "jm-c2"))
	dangling := w.publish(t, c2, 1)
	require.NoError(t, os.Remove(filepath.Join(w.Bucket.Dir, activities.HandleOf(dangling).Key())))
	w.publish(t, c2, 2)
	w.publish(t, c2, 3)
	require.NoError(t, w.Inner.Subsume(t.Context(), stores.CheckpointID{JobID: c2, Checkpoint: 2}, 1))
	orphan := w.write(t, c2, 5)
	entries := func() []stores.Entry {
		e, err := w.Inner.ListEntries(t.Context(), c2)
		require.NoError(t, err)
		return e
	}
	before := entries()
	future := time.Now().Add(time.Hour)

	for name, in := range map[string]any{
		"InventoryJob":          reconcileacts.InventoryInput{JobID: c2, GraceCutoff: future, TombstoneCutoff: future},
		"QuarantineDangling":    reconcileacts.QuarantineInput{CheckpointID: dangling.CheckpointID(), Token: dangling.Token(), HandleKey: activities.HandleOf(dangling).Key()},
		"CollectTombstones":     reconcileacts.CollectInput{JobID: c2, OlderThan: future},
		"DiscardOrphan":         reconcileacts.OrphanInput{CheckpointID: orphan.CheckpointID(), Epoch: 1, HandleKey: activities.HandleOf(orphan).Key(), RetiredBefore: future},
		"DescribeFinalizations": reconcileacts.DescribeInput{JobID: c2, Finalizations: []reconcileacts.FinalizationIdentity{{Epoch: 1, Checkpoint: 5}}},
		"ListClusterJobs":       reconcileacts.ListJobsInput{Cluster: c2.Cluster},
	} {
		err := w.run(t, name, in)
		var app *temporal.ApplicationError
		if assert.True(t, errors.As(err, &app), "%s accepted c2: %v", name, err) {
			assert.Equal(t, contract.TypeInvalid, app.Type(), name)
			assert.True(t, app.NonRetryable(), name)
			assert.Contains(t, app.Error(), `"c2" is not served`, name)
		}
	}
	assert.Equal(t, before, entries(), "nothing of c2's written")
	assert.True(t, w.Exists(activities.HandleOf(orphan).Key()), "c2's state stays")
	assert.True(t, w.Exists(orphan.MetadataKey))
}

// Activities registered without floors, or with a TTL floor below the
// contract's, fail for good: a missing floor would let any cutoff through.
func TestReconcilerActivitiesNeedTheirFloors(t *testing.T) {
	w := newWorld(t)
	for _, floors := range []reconcileacts.Floors{{}, {Grace: time.Hour, TombstoneTTL: time.Millisecond}, {Grace: -time.Second, TombstoneTTL: time.Hour}} {
		w.acts.Floors = floors
		err := w.run(t, "CollectTombstones", reconcileacts.CollectInput{JobID: workflowtest.Job, OlderThan: time.Now()})
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app, "%+v", floors)
		assert.Equal(t, "NotWired", app.Type())
		assert.True(t, app.NonRetryable())
	}
}

// Whatever cutoffs the input names, the destructive activities apply the
// worker's own floors from its own clock: a tombstone written now is not
// collected, and a handle written now is neither fenced nor discarded.
// The inventory likewise sees neither as due.
func TestReconcilerActivitiesApplyTheWorkersFloors(t *testing.T) {
	w := newWorld(t)
	job := workflowtest.Job
	w.publish(t, job, 1)
	w.publish(t, job, 2)
	require.NoError(t, w.Inner.Subsume(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1}, 1))
	orphan := w.write(t, job, 5)
	future := time.Now().Add(time.Hour)

	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.RegisterActivity(w.acts)
	v, err := env.ExecuteActivity("InventoryJob", reconcileacts.InventoryInput{JobID: job, GraceCutoff: future, TombstoneCutoff: future})
	require.NoError(t, err)
	var inv reconcileacts.JobInventory
	require.NoError(t, v.Get(&inv))
	assert.Empty(t, inv.Collectable, "a tombstone written now is not due")
	assert.Empty(t, inv.Orphans, "a handle written now is young")
	assert.Equal(t, 2, inv.Young, "the orphan's and the subsumed checkpoint's")

	v, err = env.ExecuteActivity("CollectTombstones", reconcileacts.CollectInput{JobID: job, OlderThan: future})
	require.NoError(t, err)
	var n int
	require.NoError(t, v.Get(&n))
	assert.Zero(t, n)
	assert.NotNil(t, w.Entry(1).Tombstone, "the subsumed tombstone stays")

	v, err = env.ExecuteActivity("DiscardOrphan", reconcileacts.OrphanInput{
		CheckpointID: orphan.CheckpointID(), Epoch: 1, HandleKey: activities.HandleOf(orphan).Key(), RetiredBefore: future,
	})
	require.NoError(t, err)
	var res reconcileacts.OrphanResult
	require.NoError(t, v.Get(&res))
	assert.Contains(t, res.Kept, "within the grace")
	assert.True(t, w.Entry(5).Absent(), "no fence")
	assert.True(t, w.Exists(orphan.MetadataKey))

	// The worker's clock past both floors: both go.
	w.acts.Clock = func() time.Time { return future.Add(time.Minute) }
	env = workflowtest.Suite().NewTestActivityEnvironment()
	env.RegisterActivity(w.acts)
	v, err = env.ExecuteActivity("CollectTombstones", reconcileacts.CollectInput{JobID: job, OlderThan: future})
	require.NoError(t, err)
	require.NoError(t, v.Get(&n))
	assert.Equal(t, 1, n)
	v, err = env.ExecuteActivity("DiscardOrphan", reconcileacts.OrphanInput{
		CheckpointID: orphan.CheckpointID(), Epoch: 1, HandleKey: activities.HandleOf(orphan).Key(), RetiredBefore: future,
	})
	require.NoError(t, err)
	var gone reconcileacts.OrphanResult
	require.NoError(t, v.Get(&gone))
	assert.Empty(t, gone.Kept)
	assert.False(t, w.Exists(orphan.MetadataKey))
}
