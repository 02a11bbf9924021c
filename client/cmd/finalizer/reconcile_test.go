package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/checkpoint-finalizer/finalizer/activities"
	finalizer "github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The reconciler end to end: real finalizations on the real dev server,
// then the CLI's reconcile, which asks that server about them by workflow
// ID. A dry run changes nothing; an applied run quarantines the dangling
// reference and discards the orphan whose finalization completed, behind
// a fence, and judges state no finalization explains (none was started,
// or its history expired) by the store alone: discarded behind a fence too.
func TestReconcileOnce(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	require.NoError(t, e.Store.ClaimEpoch(t.Context(), e.JobID(), 1, "jm-1"))
	c := finalizer.New(e.Temporal, finalizer.Options{TaskQueue: e.TaskQueue})
	finalize := func(n uint64) contract.FinalizeRequest {
		req := e.Checkpoint(1, n)
		f, err := c.Finalize(ctxMinute(t), req)
		require.NoError(t, err)
		res, err := f.Wait(ctxMinute(t))
		require.NoError(t, err)
		require.Equal(t, contract.Published, res.Phase)
		return req
	}
	live := finalize(1)
	dangling := finalize(2)
	require.NoError(t, os.Remove(filepath.Join(e.Bucket, dangling.MetadataKey)))
	subsumed := finalize(3) // then its subsumption "crashed" before its discard
	require.NoError(t, e.Store.Subsume(t.Context(), subsumed.CheckpointID(), 1))
	unexplained := e.Checkpoint(1, 9) // a handle no finalization Temporal knows wrote
	_, err := e.States.Write(t.Context(), activities.HandleOf(unexplained))
	require.NoError(t, err)

	args := []string{"reconcile", "--cluster", e.Cluster, "--quarantine-dangling", "--grace", "0s"}
	o := runTool(t, env, append(args, "--json")...)
	require.Equal(t, exitOK, o.code)
	var rep contract.ReconcileReport
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &rep), "stdout holds only the JSON report")
	assert.True(t, rep.DryRun)
	assert.Equal(t, 2, rep.Counts.References, "checkpoints 1 and 2; 3 is a tombstone")
	require.Len(t, rep.Dangling, 1)
	assert.Equal(t, contract.ActionWouldQuarantine, rep.Dangling[0].Action)
	orphans := map[string]contract.OrphanFinding{}
	for _, f := range rep.Orphans {
		orphans[f.HandleKey] = f
	}
	require.Len(t, orphans, 2)
	assert.Equal(t, contract.ActionWouldDiscard, orphans[activities.HandleOf(subsumed).Key()].Action)
	assert.Equal(t, "Completed/Published", orphans[activities.HandleOf(subsumed).Key()].Finalization, "asked the server by workflow ID")
	assert.Equal(t, contract.ActionWouldDiscard, orphans[activities.HandleOf(unexplained).Key()].Action)
	assert.Equal(t, "not found", orphans[activities.HandleOf(unexplained).Key()].Finalization)
	assert.True(t, e.Entry(2).HoldsToken(dangling.Token()), "a dry run changes nothing")
	assert.True(t, e.Exists(activities.HandleOf(subsumed).Key()))
	assert.Contains(t, o.stderr, "reconcile/"+e.Cluster+"/run-", "the run's workflow ID on stderr")

	o = runTool(t, env, append(args, "--apply")...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "reconciled cluster "+e.Cluster+" (applied)")
	assert.Contains(t, o.stdout, "dangling 1 (quarantined 1), orphans 2 (kept 0, discarded 2)")
	assert.Regexp(t, `handles/\S+/00000000000000000003\.json\s+Completed/Published\s+discarded`, o.stdout)

	q := e.Entry(2)
	require.NotNil(t, q.Tombstone)
	assert.Equal(t, stores.ReasonQuarantined, q.Tombstone.Reason)
	removed := e.Entry(3)
	require.NotNil(t, removed.Tombstone)
	assert.Equal(t, stores.ReasonSubsumed, removed.Tombstone.Reason, "discarded behind the tombstone that removed it")
	assert.False(t, e.Exists(activities.HandleOf(subsumed).Key()))
	assert.False(t, e.Exists(subsumed.MetadataKey))
	assert.False(t, e.Exists(activities.HandleOf(unexplained).Key()), "judged by the store alone")
	fence := e.Entry(9)
	require.NotNil(t, fence.Tombstone, "behind a fence")
	assert.Equal(t, unexplained.Token(), fence.Tombstone.Token)
	assert.True(t, e.Exists(live.MetadataKey))
	assert.True(t, e.Entry(1).HoldsToken(live.Token()))
}

// The per-cluster schedule is created, then updated in place.
func TestReconcileSchedule(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	id := contract.ReconcileScheduleID(e.Cluster)
	t.Cleanup(func() {
		_ = e.Temporal.ScheduleClient().GetHandle(context.Background(), id).Delete(context.Background())
	})

	o := runTool(t, env, "reconcile", "--cluster", e.Cluster, "--schedule", "--interval", "10m")
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "created schedule "+id+": dry runs every 10m0s")

	o = runTool(t, env, "--json", "reconcile", "--cluster", e.Cluster, "--schedule", "--interval", "20m", "--apply", "--tombstone-ttl", "48h")
	require.Equal(t, exitOK, o.code)
	var out scheduleOutput
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &out))
	assert.False(t, out.Created, "updated in place")

	d, err := e.Temporal.ScheduleClient().GetHandle(ctxMinute(t), id).Describe(ctxMinute(t))
	require.NoError(t, err)
	require.Len(t, d.Schedule.Spec.Intervals, 1)
	assert.Equal(t, 20*time.Minute, d.Schedule.Spec.Intervals[0].Every)
	assert.Equal(t, enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, d.Schedule.Policy.Overlap)
	action, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
	require.True(t, ok)
	assert.Equal(t, contract.ReconcileWorkflow, action.Workflow)
	assert.Equal(t, e.TaskQueue, action.TaskQueue)
	require.Len(t, action.Args, 1)
	var req contract.ReconcileRequest
	payload, ok := action.Args[0].(*commonpb.Payload)
	require.True(t, ok, "%T", action.Args[0])
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &req))
	assert.Equal(t, contract.ReconcileRequest{Cluster: e.Cluster, Apply: true, Grace: contract.Duration(time.Hour), TombstoneTTL: contract.Duration(48 * time.Hour), ReportLimit: contract.DefaultReportLimit}, req)

	// A run the schedule starts reaches the worker and reconciles.
	handle := e.Temporal.ScheduleClient().GetHandle(ctxMinute(t), id)
	require.NoError(t, handle.Trigger(ctxMinute(t), client.ScheduleTriggerOptions{}))
	var started string
	require.Eventually(t, func() bool {
		d, err := handle.Describe(ctxMinute(t))
		if err != nil || len(d.Info.RecentActions) == 0 {
			return false
		}
		started = d.Info.RecentActions[0].StartWorkflowResult.WorkflowID
		return true
	}, 30*time.Second, 100*time.Millisecond)
	var rep contract.ReconcileReport
	require.NoError(t, e.Temporal.GetWorkflow(ctxMinute(t), started, "").Get(ctxMinute(t), &rep))
	assert.Equal(t, contract.ReconcileDone, rep.Phase)
	assert.Equal(t, e.Cluster, rep.Cluster)
	assert.False(t, rep.DryRun)
}

func TestReconcileUsageErrors(t *testing.T) {
	t.Parallel()
	env := map[string]string{envAddress: "127.0.0.1:1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reconcile"}, "missing --cluster"},
		{[]string{"reconcile", "--cluster", "C_1"}, "invalid cluster"},
		{[]string{"reconcile", "--cluster", "c1", "--tombstone-ttl", "10ms"}, "invalid tombstoneTtl"},
		{[]string{"reconcile", "--cluster", "c1", "--grace", "-1s"}, "invalid grace"},
		{[]string{"reconcile", "--cluster", "c1", "--interval", "5m"}, "--interval needs --schedule"},
		{[]string{"reconcile", "--cluster", "c1", "--schedule", "--interval", "5s"}, "--interval must be at least 1m0s"},
	} {
		o := runTool(t, env, tc.args...)
		assert.Equal(t, exitUsage, o.code, "%v", tc.args)
		assert.Contains(t, o.stderr, tc.want)
	}
}

func ctxMinute(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}
