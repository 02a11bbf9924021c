package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
)

// The activities that delete many objects heartbeat: a worker that dies in
// the middle of one is noticed within the heartbeat timeout, not after the
// minutes their start-to-close timeout allows (the reconciler's:
// workflows/reconcile).
func TestLongActivitiesHeartbeat(t *testing.T) {
	f := newFixture(t, 0)
	h := workflowtest.WatchHeartbeats(f.env)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	require.Equal(t, contract.Discarded, f.finalize(f.checkpoint(1, false)).Phase)
	d, ok := h.Timeout("Discard")
	require.True(t, ok, "the finalization discarded")
	assert.Positive(t, d, "Discard has a heartbeat timeout")
}
