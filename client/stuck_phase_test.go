package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// Stuck means any phase: a finalization whose bucket fails under its
// persist retries for ever in Persisting, and ListStuck lists it as it
// lists one parked in Verifying.
func TestListStuckFindsPersisting(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{WrapStates: func(s activities.States) activities.States {
		return harness.BucketDown{States: s}
	}})
	c := newClient(e, client.Options{})
	claim(t, c, e, 1)
	req := e.Checkpoint(1, 5)

	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	var found *client.Stuck
	require.Eventually(t, func() bool {
		list, err := c.ListStuck(ctx(t), time.Second)
		require.NoError(t, err)
		found = find(list, f.WorkflowID)
		return found != nil
	}, 30*time.Second, 200*time.Millisecond, "a finalization retrying its persist is listed as stuck")
	assert.Equal(t, contract.Persisting, found.Phase)
	assert.Equal(t, req.Checkpoint, found.Checkpoint)
}

// A finalization retrying its persist for ever still answers status, with
// the persist's last error: at once after the fast path's few seconds of
// local tries, and at every moment after.
func TestStatusAnswersWhilePersisting(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{WrapStates: func(s activities.States) activities.States {
		return harness.BucketDown{States: s}
	}})
	c := newClient(e, client.Options{})
	claim(t, c, e, 1)
	req := e.Checkpoint(1, 5)
	_, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)

	status := func(timeout time.Duration) {
		t.Helper()
		qctx, cancel := context.WithTimeout(ctx(t), timeout)
		defer cancel()
		st, err := c.Status(qctx, e.Cluster, e.Job, 1, 5)
		require.NoError(t, err, "status within %s while Persisting", timeout)
		assert.Equal(t, contract.Persisting, st.Phase)
		assert.Contains(t, st.LastError, harness.ErrBucketDown.Error())
	}
	status(15 * time.Second)
	for deadline := time.Now().Add(25 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		status(3 * time.Second)
	}
}
