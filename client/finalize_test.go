package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestClaimThenFinalizePublished(t *testing.T) {
	t.Parallel()
	for _, eager := range []bool{false, true} {
		t.Run(map[bool]string{false: "queued", true: "eager"}[eager], func(t *testing.T) {
			t.Parallel()
			env := harness.Start(t, harness.Options{})
			c := newClient(env, client.Options{EagerStart: eager})
			claim(t, c, env, 1)
			req := env.Checkpoint(1, 7)

			begin := time.Now()
			f, err := c.Finalize(ctx(t), req)
			require.NoError(t, err)
			assert.Equal(t, req.WorkflowID(), f.WorkflowID)
			assert.NotEmpty(t, f.RunID)
			res, err := f.Wait(ctx(t))
			require.NoError(t, err)
			t.Logf("trigger to Published: %s", time.Since(begin).Round(time.Millisecond))

			assert.Equal(t, contract.Published, res.Phase)
			assert.Equal(t, uint32(1), res.Attempts)
			entry := env.Entry(7)
			assert.True(t, entry.HoldsToken(req.Token()), "the store holds the reference")
			require.NotNil(t, entry.Reference)
			assert.Equal(t, res.HandleKey, entry.Reference.Handle)
			assert.True(t, env.Exists(res.HandleKey), "the handle the reference points at exists (I1)")
			assert.True(t, env.Exists(req.ExclusivePrefix+"data-0"))

			st, err := f.Status(ctx(t))
			require.NoError(t, err)
			assert.Equal(t, contract.Published, st.Phase)
			assert.Equal(t, "embedded", st.StoreKind)
		})
	}
}

// The idempotent trigger: a second trigger while the first waits for a
// worker joins it; one after it completed attaches to it.
func TestFinalizeTwiceReachesOneExecution(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{Deferred: true})
	c := newClient(env, client.Options{})
	// Straight into the store: a claim through the finalizer needs the
	// worker this test holds back.
	require.NoError(t, env.Store.ClaimEpoch(ctx(t), env.JobID(), 1, jobmanager.Owner(1)))
	req := env.Checkpoint(1, 1)

	first, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	second, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	assert.Equal(t, first.RunID, second.RunID, "a running execution is reused")

	env.StartWorker()
	res, err := second.Wait(ctx(t))
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase)

	third, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	assert.Equal(t, first.RunID, third.RunID, "a completed execution is attached to, never run again")
	again, err := third.Wait(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, res, again)
	assert.Equal(t, uint32(1), env.Entry(1).Reference.Attempt)
}

func TestFinalizeDifferentContentIsRefused(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{Deferred: true})
	c := newClient(env, client.Options{})
	require.NoError(t, env.Store.ClaimEpoch(ctx(t), env.JobID(), 1, jobmanager.Owner(1)))
	req := env.Checkpoint(1, 3)
	other := req
	other.Savepoint = true

	first, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	check := func(when string) {
		t.Helper()
		_, err := c.Finalize(ctx(t), other)
		require.ErrorIs(t, err, client.ErrContentMismatch, when)
		var mismatch *client.ContentMismatchError
		require.ErrorAs(t, err, &mismatch)
		assert.Equal(t, req.ContentHash(), mismatch.Existing)
		assert.Equal(t, other.ContentHash(), mismatch.Requested)
		assert.Equal(t, first.RunID, mismatch.RunID)
		assert.Contains(t, err.Error(), req.ContentHash())
		assert.Contains(t, err.Error(), other.ContentHash())

		attached, err := c.Attach(ctx(t), req.Cluster, req.Job, req.Epoch, req.Checkpoint)
		require.NoError(t, err)
		assert.Equal(t, first.RunID, attached.RunID, "nothing new started (%s)", when)
	}
	check("while running")

	env.StartWorker()
	res, err := first.Wait(ctx(t))
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase)
	check("after completion")
	assert.False(t, env.Entry(3).Reference.Savepoint, "the first request's content stands")
}

func TestFinalizeInvalidRequestStartsNothing(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	req := env.Checkpoint(1, 1)
	req.MetadataSHA256 = "not-a-digest"

	_, err := c.Finalize(ctx(t), req)
	require.ErrorIs(t, err, client.ErrInvalidRequest)
	require.ErrorIs(t, err, stores.ErrInvalid)
	var invalid *stores.InvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Contains(t, invalid.Field, "metadata")

	_, err = c.Attach(ctx(t), req.Cluster, req.Job, req.Epoch, req.Checkpoint)
	assert.ErrorIs(t, err, client.ErrNotFound, "nothing was started")
}

// A stale epoch is the store's definite refusal: the finalization ends
// Discarded, and its state stays: checkpoint 1's directory is the standing
// epoch's to decide (docs/design.md, "Only the standing claim's own
// finalization deletes, and only what it wrote").
func TestFinalizeAfterNewerClaimIsDiscarded(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	claim(t, c, env, 2)
	req := env.Checkpoint(1, 4)

	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	res, err := f.Wait(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, contract.Discarded, res.Phase)
	assert.Contains(t, res.Reason, "stale epoch")
	assert.Contains(t, res.Reason, "its data stays", "a deposed epoch never decides the directory")
	assert.True(t, env.Exists(req.ExclusivePrefix+"data-0"))
	assert.True(t, env.Exists(env.Cluster+"/j1/shared/sst-1"))
}

// A caller in another language may start FinalizeCheckpoint without the
// memo, or with a content hash of its own making; until the workflow's first
// task rewrites the memo, the start input decides.
func TestContentCheckReadsTheStartInput(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{Deferred: true})
	c := newClient(env, client.Options{})
	for n, memo := range map[uint64]map[string]any{6: nil, 8: {"contentHash": "hashed-in-python"}} {
		req := env.Checkpoint(1, n)
		run, err := env.Temporal.ExecuteWorkflow(ctx(t), sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: env.TaskQueue, Memo: memo},
			contract.FinalizeWorkflow, req)
		require.NoError(t, err)

		other := req
		other.MaxPublishAttempts = 5
		_, err = c.Finalize(ctx(t), other)
		var mismatch *client.ContentMismatchError
		require.ErrorAs(t, err, &mismatch, "memo %v", memo)
		assert.Equal(t, req.ContentHash(), mismatch.Existing)

		f, err := c.Finalize(ctx(t), req)
		require.NoError(t, err, "memo %v", memo)
		assert.Equal(t, run.GetRunID(), f.RunID)
	}
}
