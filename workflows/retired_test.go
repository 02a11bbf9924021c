package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A discarding retirement deletes its checkpoints' state itself, once their
// finalizations have closed, as Flink does at a cancel with
// DELETE_ON_CANCELLATION: no reconcile run is needed (docs/design.md,
// lifecycle rules, "Retirement keeps state by default").

// retire runs RetireJob for the job's standing claim (epoch 1).
func (f *fixture) retire(discard bool) {
	f.t.Helper()
	f.newEnv()
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: discard})
	require.True(f.t, f.env.IsWorkflowCompleted())
	require.NoError(f.t, f.env.GetWorkflowError())
}

// stateOf reports whether anything of checkpoint req's own state is left:
// its handle, metadata or data.
func (f *fixture) stateOf(req contract.FinalizeRequest) []string {
	var left []string
	for _, key := range []string{activities.HandleOf(req).Key(), req.MetadataKey, jobmanager.DataKey(job, req.Checkpoint)} {
		if f.exists(key) {
			left = append(left, key)
		}
	}
	return left
}

func TestDiscardingRetirementDeletesItsCheckpoints(t *testing.T) {
	f := newFixture(t, 0)
	f.acts.Finalizations = runningFinalizations{}
	var checkpoints []contract.FinalizeRequest
	for n := uint64(1); n <= 3; n++ {
		f.newEnv()
		req := f.checkpoint(n, false)
		require.Equal(t, contract.Published, f.finalize(req).Phase)
		checkpoints = append(checkpoints, req)
	}
	savepoint := f.publishDirect(4, true)

	f.retire(true)

	for _, req := range checkpoints {
		assert.Empty(t, f.stateOf(req), "checkpoint %d's state is gone without a reconcile run", req.Checkpoint)
		e := f.entry(req.Checkpoint)
		assert.True(t, e.Tombstone != nil && e.Tombstone.Reason == stores.ReasonRetired, "checkpoint %d keeps its retired tombstone (I7): %+v", req.Checkpoint, e)
	}
	assert.Len(t, f.stateOf(savepoint), 3, "a savepoint's state is never discarded")
	assert.True(t, f.entry(4).WasPublished(savepoint.Token()), "the savepoint keeps its record")
	assert.True(t, f.exists(jobmanager.SharedKey(job)), "shared files stay")
}

// Retaining (RETAIN_ON_CANCELLATION) keeps every checkpoint, and a
// retirement retried with discard after one that retained keeps the first
// choice.
func TestRetainingRetirementKeepsItsCheckpoints(t *testing.T) {
	f := newFixture(t, 0)
	f.acts.Finalizations = runningFinalizations{}
	checkpoint := f.publishDirect(1, false)
	savepoint := f.publishDirect(2, true)

	f.retire(false)
	f.retire(true)

	assert.Len(t, f.stateOf(checkpoint), 3, "a retained checkpoint's state stays")
	assert.Len(t, f.stateOf(savepoint), 3, "a savepoint's state stays")
	assert.Equal(t, stores.ReasonRetained, f.entry(1).Tombstone.Reason)
	assert.Equal(t, stores.ReasonSavepoint, f.entry(2).Tombstone.Reason)
}

// switchedFinalizations answers Running for the IDs set, and lets a test
// close them while a workflow waits.
type switchedFinalizations struct {
	mu      sync.Mutex
	running map[string]bool
	asked   int
}

func (s *switchedFinalizations) Finalization(_ context.Context, id string) (activities.FinalizationState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return activities.FinalizationState{WorkflowID: id, Found: true, Running: s.running[id], Status: "Completed"}, nil
}

func (s *switchedFinalizations) set(id string, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[id] = running
}

// A finalization still running (here parked in Verifying) holds its
// checkpoint's state: the retirement discards the others, waits with
// backoff, and discards that one only once it has closed.
func TestDiscardingRetirementWaitsForRunningFinalizations(t *testing.T) {
	f := newFixture(t, 0)
	closed := f.publishDirect(1, false)
	verifying := f.publishDirect(2, false)
	fins := &switchedFinalizations{running: map[string]bool{verifying.WorkflowID(): true}}
	f.acts.Finalizations = fins

	f.newEnv()
	f.env.RegisterDelayedCallback(func() {
		assert.Empty(t, f.stateOf(closed), "a closed finalization's checkpoint goes at once")
		assert.Len(t, f.stateOf(verifying), 3, "a running finalization's checkpoint waits")
		fins.set(verifying.WorkflowID(), false)
	}, 90*time.Second) // the test environment retries an activity 10 times at most
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: true})
	require.True(t, f.env.IsWorkflowCompleted())
	require.NoError(t, f.env.GetWorkflowError())

	assert.Empty(t, f.stateOf(verifying), "discarded once its finalization closed")
	assert.Greater(t, fins.asked, 2, "the retirement asked again while it waited")
}

// A job resubmitted under its ID while the retirement waits: the old epoch
// is deposed, its running finalization can never publish, and the
// retirement stops waiting for it, leaving its state to the reconciler
// rather than holding the ended job's cleanup for good.
func TestDiscardingRetirementStopsWaitingOnceTheJobIsClaimedAgain(t *testing.T) {
	f := newFixture(t, 0)
	closed := f.publishDirect(1, false)
	verifying := f.publishDirect(2, false)
	f.acts.Finalizations = runningFinalizations{verifying.WorkflowID(): true}

	f.newEnv()
	start := f.env.Now()
	f.env.RegisterDelayedCallback(func() {
		require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, jobmanager.Owner(2)))
	}, 30*time.Second)
	f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: true})
	require.True(t, f.env.IsWorkflowCompleted())
	require.NoError(t, f.env.GetWorkflowError())
	assert.Less(t, f.env.Now().Sub(start), 5*time.Minute, "done soon after the claim")

	assert.Empty(t, f.stateOf(closed))
	assert.Len(t, f.stateOf(verifying), 3, "left to the reconciler")
	assert.Equal(t, stores.ReasonRetired, f.entry(2).Tombstone.Reason, "its tombstone answers its verify (I7)")
}
