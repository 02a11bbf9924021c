package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
)

// The client writes into the memo the contentHash the vectors of
// testdata/contenthash-vectors.json give, so that a job manager in another
// language, hashing by the same vectors, triggers interchangeably with it.
func TestClientContentHashIsTheVectors(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{Deferred: true}) // no worker: the memo stays the client's
	c := newClient(env, client.Options{})
	started := map[string]string{} // workflow ID: content hash
	for _, v := range contracttest.ContentHashVectors(t) {
		req := v.FinalizeRequest(t)
		f, err := c.Finalize(ctx(t), req)
		if existing, ok := started[req.WorkflowID()]; ok && existing != v.ContentHash {
			// Vectors of one identity with another content: refused.
			var mismatch *client.ContentMismatchError
			require.ErrorAs(t, err, &mismatch, v.Name)
			assert.Equal(t, v.ContentHash, mismatch.Requested, v.Name)
			assert.Equal(t, existing, mismatch.Existing, v.Name)
			continue
		}
		require.NoError(t, err, v.Name)
		started[req.WorkflowID()] = v.ContentHash
		d, err := env.Temporal.DescribeWorkflow(ctx(t), f.WorkflowID, f.RunID)
		require.NoError(t, err, v.Name)
		var memo string
		p := d.RawResponse.GetWorkflowExecutionInfo().GetMemo().GetFields()[client.MemoContentHash]
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &memo), v.Name)
		assert.Equal(t, v.ContentHash, memo, "%s: the memo the client wrote", v.Name)

		// The start input, as the client sent it, is valid and hashes to it.
		checked := contracttest.CheckExecution(ctx(t), t, env.Temporal, f.WorkflowID)
		assert.Equal(t, 1, checked.Payloads["finalize-request.schema.json"], v.Name)
		assert.Equal(t, 1, checked.ContentHashes, v.Name)
	}
}

// What the client sends and what the workflows answer it, as the server
// carries them, is valid against the schemas: every workflow's input and
// result, the signals, the status queries and the reconcile schedule's
// action.
func TestClientPayloadsMatchTheSchemas(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	claimReq := contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Owner: jobmanager.Owner(1)}
	rp, err := c.ClaimEpoch(ctx(t), claimReq)
	require.NoError(t, err)
	assert.Equal(t, contract.RestoreNone, rp.State)
	ids := []string{claimReq.WorkflowID()}

	for n := uint64(1); n <= 2; n++ {
		f, err := c.Finalize(ctx(t), env.Checkpoint(1, n))
		require.NoError(t, err)
		res, err := f.Wait(ctx(t))
		require.NoError(t, err)
		require.Equal(t, contract.Published, res.Phase)
		contracttest.CheckQuery(ctx(t), t, env.Temporal, f.WorkflowID, "status.schema.json")
		ids = append(ids, f.WorkflowID)
	}
	// This release's finalizations report to no coordinator; one of the
	// previous release starts it with its report.
	coordinator := contract.CoordinatorID(env.Cluster, env.Job)
	report := contract.PublishedReport{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Checkpoint: 2}
	_, err = env.Temporal.SignalWithStartWorkflow(ctx(t), coordinator, contract.PublishedSignal, report,
		sdkclient.StartWorkflowOptions{TaskQueue: env.TaskQueue}, contract.CoordinatorWorkflow,
		contract.CoordinatorState{Cluster: env.Cluster, Job: env.Job, Epoch: 1})
	require.NoError(t, err)
	contracttest.CheckQuery(ctx(t), t, env.Temporal, coordinator, "coordinator-status.schema.json")
	ids = append(ids, coordinator)

	rp, err = c.LatestCheckpoint(ctx(t), env.JobID())
	require.NoError(t, err)
	assert.Equal(t, contract.RestoreResolved, rp.State)
	contracttest.ValidateValue(t, "restore-point.schema.json", rp) // its workflow ID is the client's secret

	run, err := c.StartReconcile(ctx(t), contract.NewReconcileRequest(env.Cluster))
	require.NoError(t, err)
	_, err = run.Wait(ctx(t))
	require.NoError(t, err)
	contracttest.CheckQuery(ctx(t), t, env.Temporal, run.WorkflowID, "reconcile-report.schema.json")
	ids = append(ids, run.WorkflowID)

	retire := contract.RetireRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: true}
	require.NoError(t, c.Retire(ctx(t), retire))
	ids = append(ids, retire.WorkflowID())

	total := map[string]int{}
	for _, id := range ids {
		for schema, n := range contracttest.CheckExecution(ctx(t), t, env.Temporal, id).Payloads {
			total[schema] += n
		}
	}
	for _, schema := range []string{
		"claim-request.schema.json", "restore-point.schema.json", "finalize-request.schema.json", "finalize-result.schema.json",
		"coordinator-state.schema.json", "published-report.schema.json",
		"reconcile-request.schema.json", "reconcile-report.schema.json", "retire-request.schema.json",
	} {
		assert.NotZero(t, total[schema], "a payload of %s", schema)
	}

	// A schedule's action carries the request it starts each run with.
	req := contract.NewReconcileRequest(env.Cluster)
	req.Apply = true
	_, err = c.ScheduleReconcile(ctx(t), req, time.Hour)
	require.NoError(t, err)
	handle := env.Temporal.ScheduleClient().GetHandle(ctx(t), contract.ReconcileScheduleID(env.Cluster))
	t.Cleanup(func() { _ = handle.Delete(context.Background()) })
	d, err := handle.Describe(ctx(t))
	require.NoError(t, err)
	action, ok := d.Schedule.Action.(*sdkclient.ScheduleWorkflowAction)
	require.True(t, ok)
	require.Len(t, action.Args, 1)
	payload, ok := action.Args[0].(*commonpb.Payload)
	require.True(t, ok, "%T", action.Args[0])
	contracttest.Validate(t, "reconcile-request.schema.json", payload.GetData())
	assert.Contains(t, string(payload.GetData()), `"tombstoneTtl":"24h0m0s"`)
}

// The operator's signals, as the client sends them, are the contract's:
// retry-now without a payload, abandon with a reason.
func TestClientSignalsMatchTheSchemas(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	f, err := c.Finalize(ctx(t), env.Checkpoint(1, 3))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := f.Status(ctx(t))
		return err == nil && st.Phase == contract.Verifying
	}, 30*time.Second, 100*time.Millisecond)
	contracttest.CheckQuery(ctx(t), t, env.Temporal, f.WorkflowID, "status.schema.json")
	require.NoError(t, f.RetryNow(ctx(t)))
	require.NoError(t, f.Abandon(ctx(t), "store decommissioned"))
	res, err := f.Wait(ctx(t))
	require.NoError(t, err)
	require.Equal(t, contract.Abandoned, res.Phase)

	checked := contracttest.CheckExecution(ctx(t), t, env.Temporal, f.WorkflowID)
	assert.Equal(t, 1, checked.Payloads["abandon-signal.schema.json"])
	assert.Equal(t, 1, checked.Payloads["finalize-result.schema.json"])
}
