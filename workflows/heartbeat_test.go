package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// heartbeats records the heartbeat timeout each activity type was
// scheduled with.
type heartbeats struct {
	mu   sync.Mutex
	seen map[string]time.Duration
}

func watchHeartbeats(env *testsuite.TestWorkflowEnvironment) *heartbeats {
	h := &heartbeats{seen: map[string]time.Duration{}}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.seen[info.ActivityType.Name] = info.HeartbeatTimeout
	})
	return h
}

func (h *heartbeats) timeout(activity string) (time.Duration, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d, ok := h.seen[activity]
	return d, ok
}

// The activities that delete or inventory many objects heartbeat: a worker
// that dies in the middle of one is noticed within the heartbeat timeout,
// not after the minutes their start-to-close timeout allows.
func TestLongActivitiesHeartbeat(t *testing.T) {
	f := newFixture(t, 0)
	h := watchHeartbeats(f.env)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	require.Equal(t, contract.Discarded, f.finalize(f.checkpoint(1, false)).Phase)
	d, ok := h.timeout("Discard")
	require.True(t, ok, "the finalization discarded")
	assert.Positive(t, d, "Discard has a heartbeat timeout")

	rf := newReconcileFixture(t)
	two := rf.published(2)
	rf.remove(activities.HandleOf(two).Key()) // an orphan's data left: the run discards it
	env := rf.env(later())
	h = watchHeartbeats(env)
	env.ExecuteWorkflow(contract.ReconcileWorkflow, apply())
	require.NoError(t, env.GetWorkflowError())
	for _, name := range []string{"ListClusterJobs", "InventoryJob"} {
		d, ok := h.timeout(name)
		require.True(t, ok, "%s ran", name)
		assert.Positive(t, d, "%s has a heartbeat timeout", name)
	}
}
