package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
)

// The activities that inventory or delete many objects heartbeat: a worker
// that dies in the middle of one is noticed within the heartbeat timeout,
// not after the minutes their start-to-close timeout allows.
func TestLongActivitiesHeartbeat(t *testing.T) {
	f := newFixture(t)
	two := f.published(2)
	f.remove(activities.HandleOf(two).Key()) // an orphan's data left: the run discards it
	env := f.env(later())
	h := workflowtest.WatchHeartbeats(env)
	env.ExecuteWorkflow(contract.ReconcileWorkflow, apply())
	require.NoError(t, env.GetWorkflowError())
	for _, name := range []string{"ListClusterJobs", "InventoryJob"} {
		d, ok := h.Timeout(name)
		require.True(t, ok, "%s ran", name)
		assert.Positive(t, d, "%s has a heartbeat timeout", name)
	}
}
