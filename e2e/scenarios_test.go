package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	finalizerclient "github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
)

// The whole path against real servers: claim, finalize a stream of
// checkpoints, retention by the worker that publishes, invariants.
func TestEndToEndZooKeeper(t *testing.T) {
	e := newEnv(t, 1)
	e.claim(1)
	var last contract.FinalizeResult
	var runs []sdkclient.WorkflowRun
	for n := uint64(1); n <= 3; n++ {
		res, run := e.finalize(e.checkpoint(n, false))
		require.Equal(t, contract.Published, res.Phase, "checkpoint %d", n)
		last, runs = res, append(runs, run)
	}
	record(t, e, "finalize-published", runs[0])

	// Retention 1: the worker's background retention removes 1 and 2,
	// discarding their state, and collects their tombstones.
	require.Eventually(t, func() bool {
		all, err := e.store.ListEntries(e.ctx(), e.job)
		return err == nil && len(all) == 1 && all[0].Checkpoint == 3 && all[0].Reference != nil
	}, time.Minute, 100*time.Millisecond)
	require.Eventually(t, func() bool {
		return !e.exists(e.job.Cluster+"/"+e.job.Job+"/chk-1/data-0") && !e.exists(e.job.Cluster+"/"+e.job.Job+"/chk-2/data-0")
	}, time.Minute, 100*time.Millisecond, "subsumed state discarded after its reference went")
	assert.True(t, e.exists(last.HandleKey))
	assert.True(t, e.exists(e.job.Cluster+"/"+e.job.Job+"/shared/sst-1"))
	e.checkInvariants()

	// An uneventful finalization, started as the client starts it (its
	// memo names the path), is its start, one workflow task, its two local
	// activities and its close, as the cheapest workflow Temporal runs; it
	// wakes no coordinator and lists no phase of its own.
	f, err := finalizerclient.New(e.client, finalizerclient.Options{TaskQueue: e.taskQueue}).Finalize(e.ctx(), e.checkpoint(4, false))
	require.NoError(t, err)
	res, err := f.Wait(e.ctx())
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, []string{
		"WorkflowExecutionStarted", "WorkflowTaskScheduled", "WorkflowTaskStarted", "WorkflowTaskCompleted",
		"MarkerRecorded", "MarkerRecorded", "WorkflowExecutionCompleted",
	}, eventTypes(t, e, e.client.GetWorkflow(e.ctx(), f.WorkflowID, f.RunID)))
	// Started by a starter that leaves the memo's path out, the worker
	// records the path it chose: the version marker and the SDK's upsert
	// of it, right after the first workflow task.
	req := e.checkpoint(5, false)
	bare, err := e.client.ExecuteWorkflow(e.ctx(), sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: e.taskQueue}, contract.FinalizeWorkflow, req)
	require.NoError(t, err)
	require.NoError(t, bare.Get(e.ctx(), &res))
	require.Equal(t, contract.Published, res.Phase)
	events := history(t, e, bare).Events
	require.Greater(t, len(events), 6)
	assert.Equal(t, "Version", events[4].GetMarkerRecordedEventAttributes().GetMarkerName(), "event 5: the version marker")
	assert.Contains(t, events[5].GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields(), "TemporalChangeVersion",
		"event 6: the SDK's upsert of the version")
	_, err = e.client.DescribeWorkflow(e.ctx(), contract.CoordinatorID(e.job.Cluster, e.job.Job), "")
	var notFound *serviceerror.NotFound
	assert.ErrorAs(t, err, &notFound, "no coordinator started")

	// A finalization of the previous release still reports to the job's
	// coordinator, which still removes on the fast path (RemoveCheckpoints),
	// beside the background retention. SubsumeCheckpoint runs only for
	// coordinators still on version 0, and its recorded histories
	// (subsume-discarded.json, v0-subsume-discarded.json) stay as they are.
	report := contract.PublishedReport{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: 1, Checkpoint: 5}
	coordinator, err := e.client.SignalWithStartWorkflow(e.ctx(), contract.CoordinatorID(e.job.Cluster, e.job.Job), contract.PublishedSignal, report,
		sdkclient.StartWorkflowOptions{TaskQueue: e.taskQueue}, contract.CoordinatorWorkflow,
		contract.CoordinatorState{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: 1})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := e.client.QueryWorkflow(e.ctx(), coordinator.GetID(), "", contract.StatusQuery)
		var st contract.CoordinatorStatus
		return err == nil && v.Get(&st) == nil && st.Passes >= 1
	}, time.Minute, 100*time.Millisecond, "the coordinator passes")
	record(t, e, "coordinator", coordinator)
}

func TestUnknownThenVerifyPresent(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	e.refs.Inject(storefault.OpPublish, storefault.DropReply, storefault.DropRequest, storefault.DropRequest)
	res, run := e.finalize(e.checkpoint(1, false))
	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, 1, e.refs.Calls(storefault.OpVerify))
	e.checkInvariants()
	record(t, e, "finalize-verify-present", run)
}

func TestFencedAbsentThenRepublished(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	e.refs.Inject(storefault.OpPublish, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest)
	res, run := e.finalize(e.checkpoint(1, false))
	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, uint32(2), res.Attempts)
	e.checkInvariants()
	record(t, e, "finalize-fenced-republished", run)
}

func TestRejectedDiscarded(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	e.claim(2)
	req := e.checkpoint(1, false)
	res, run := e.finalize(req)
	assert.Equal(t, contract.Discarded, res.Phase)
	assert.Contains(t, res.Reason, "its data stays", "a deposed epoch never decides the directory")
	assert.True(t, e.exists(req.ExclusivePrefix+"data-0"))
	record(t, e, "finalize-rejected-discarded", run)
}

func TestAbandonedWhileVerifying(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	e.refs.SetUnreachable(true)
	req := e.checkpoint(1, false)
	run := e.start(req)
	e.waitPhase(run, contract.Verifying)
	require.NoError(t, e.client.SignalWorkflow(e.ctx(), run.GetID(), "", contract.AbandonSignal, "operator keeps it"))
	var res contract.FinalizeResult
	require.NoError(t, run.Get(e.ctx(), &res))
	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.True(t, e.exists(req.ExclusivePrefix+"data-0"))
	record(t, e, "finalize-abandoned", run)
}

// A discarding retirement deletes its checkpoints' state itself once their
// finalizations have closed, without a reconcile run; a savepoint's stays.
func TestRetireDiscarding(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	for n := uint64(1); n <= 2; n++ {
		res, _ := e.finalize(e.checkpoint(n, n == 2))
		require.Equal(t, contract.Published, res.Phase, "checkpoint %d", n)
	}
	req := contract.RetireRequest{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: 1, Owner: "jm-1", DiscardCheckpoints: true}
	require.NoError(t, finalizerclient.New(e.client, finalizerclient.Options{TaskQueue: e.taskQueue}).Retire(e.ctx(), req))
	dir := e.job.Cluster + "/" + e.job.Job
	assert.False(t, e.exists(dir+"/chk-1/data-0"), "the retired checkpoint's state is gone")
	assert.True(t, e.exists(dir+"/chk-2/data-0"), "the savepoint's state stays")
	assert.True(t, e.exists(dir+"/shared/sst-1"))
	record(t, e, "retire-discarding", e.client.GetWorkflow(e.ctx(), req.WorkflowID(), ""))
}

// record writes a finished execution's history for the replay test.
func record(t *testing.T, e *env, name string, run sdkclient.WorkflowRun) {
	t.Helper()
	if !*recordHistories {
		return
	}
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(history(t, e, run))
	require.NoError(t, err)
	dir := filepath.Join("..", "workflows", "testdata", "histories")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644))
}

// eventTypes lists the types of an execution's events, in order.
func eventTypes(t *testing.T, e *env, run sdkclient.WorkflowRun) []string {
	t.Helper()
	var types []string
	for _, ev := range history(t, e, run).Events {
		types = append(types, ev.GetEventType().String())
	}
	return types
}

// history reads an execution's history as it stands.
func history(t *testing.T, e *env, run sdkclient.WorkflowRun) *historypb.History {
	t.Helper()
	iter := e.client.GetWorkflowHistory(e.ctx(), run.GetID(), run.GetRunID(), false, 0)
	var h historypb.History
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	return &h
}
