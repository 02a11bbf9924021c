package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

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
		return found != nil && found.LastError != ""
	}, 30*time.Second, 200*time.Millisecond, "a finalization retrying its persist is listed as stuck, with its last error")
	assert.Equal(t, client.KindFinalization, found.Kind)
	assert.Equal(t, contract.Persisting, found.Phase)
	assert.Equal(t, req.Checkpoint, found.Checkpoint)
	assert.Contains(t, found.LastError, harness.ErrBucketDown.Error(), "the pending persist's last failure")

	pending, err := c.PendingActivities(ctx(t), f.WorkflowID)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, "PersistHandle", pending[0].Type)
	assert.Contains(t, pending[0].LastFailure, harness.ErrBucketDown.Error())
	assert.GreaterOrEqual(t, pending[0].Attempt, int32(1))
}

// A retirement that outlasts the bound is stuck too: listed apart (it reads
// no operator signal), with its identity, Retiring while its store does not
// answer (here: no worker runs it).
func TestListStuckRetirements(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true})
	c := newClient(e, client.Options{})
	req := contract.RetireRequest{Cluster: e.Cluster, Job: e.Job, Epoch: 3, Owner: "jm-3"}
	_, err := e.Temporal.ExecuteWorkflow(ctx(t), sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: e.TaskQueue}, contract.RetireWorkflow, req)
	require.NoError(t, err)

	var found *client.Stuck
	require.Eventually(t, func() bool {
		list, err := c.ListStuckRetirements(ctx(t), 0)
		require.NoError(t, err)
		found = find(list, req.WorkflowID())
		return found != nil
	}, 30*time.Second, 200*time.Millisecond)
	assert.Equal(t, client.KindRetirement, found.Kind)
	assert.Equal(t, client.Retiring, found.Phase)
	assert.Equal(t, [3]any{e.Cluster, e.Job, uint64(3)}, [3]any{found.Cluster, found.Job, found.Epoch})
	assert.Empty(t, found.LastError, "no attempt failed yet")

	list, err := c.ListStuck(ctx(t), 0)
	require.NoError(t, err)
	assert.Nil(t, find(list, req.WorkflowID()), "not among the finalizations, whose signals it does not read")
	list, err = c.ListStuckRetirements(ctx(t), time.Hour)
	require.NoError(t, err)
	assert.Nil(t, find(list, req.WorkflowID()), "not stuck for an hour")
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
		status(5 * time.Second)
	}
}
