package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// fixture runs the workflows in the SDK's test environment over the real
// activities, the real embedded store (wrapped to inject ambiguity) and a
// real file bucket (workflowtest.World, which the reconciler's tests run
// over too). Only the report to the coordinator is mocked, and the
// worker's background retention recorded (jobQueue).
type fixture struct {
	t      *testing.T
	env    *testsuite.TestWorkflowEnvironment
	refs   *storefault.Store
	inner  *embedded.Store
	states *blobstate.Store
	dir    string
	acts   *activities.Activities
	// retention holds the jobs the activities handed to retention.
	retention *jobQueue
}

// jobQueue records the jobs handed to the worker's retention.
type jobQueue struct{ jobs []stores.JobID }

func (q *jobQueue) Enqueue(job stores.JobID) { q.jobs = append(q.jobs, job) }

var job = workflowtest.Job

func newFixture(t *testing.T, retain int) *fixture {
	t.Helper()
	w := workflowtest.NewWorld(t)
	f := &fixture{t: t, refs: w.Refs, inner: w.Inner, states: w.States, dir: w.Bucket.Dir}
	f.retention = &jobQueue{}
	f.acts = &activities.Activities{References: f.refs, Leadership: f.inner, States: f.states, Handles: f.states, StoreKind: "embedded", Retain: retain, Retention: f.retention}
	f.newEnv()
	return f
}

// newEnv gives the fixture a fresh test environment over the same world:
// one environment runs one workflow.
func (f *fixture) newEnv() {
	f.env = workflowtest.Suite().NewTestWorkflowEnvironment()
	f.env.SetWorkflowRunTimeout(365 * 24 * time.Hour)
	workflows.Register(f.env)
	f.env.RegisterActivity(f.acts)
	f.env.OnActivity(f.acts.Report, mock.Anything, mock.Anything).Return(nil).Maybe()
}

// checkpoint writes checkpoint n's files the way a job manager would, plus
// a shared file no discard may touch, and returns the request for it.
func (f *fixture) checkpoint(n uint64, savepoint bool) contract.FinalizeRequest {
	f.t.Helper()
	req, err := jobmanager.Bucket{Dir: f.dir}.WriteCheckpoint(job, 1, n, savepoint)
	require.NoError(f.t, err)
	return req
}

func (f *fixture) exists(key string) bool { return jobmanager.Bucket{Dir: f.dir}.Exists(key) }

func (f *fixture) finalize(req contract.FinalizeRequest) contract.FinalizeResult {
	f.t.Helper()
	f.env.ExecuteWorkflow(contract.FinalizeWorkflow, req)
	require.True(f.t, f.env.IsWorkflowCompleted())
	require.NoError(f.t, f.env.GetWorkflowError())
	var res contract.FinalizeResult
	contracttest.DecodeChecked(f.t, "finalize-result.schema.json", f.env.GetWorkflowResult, &res)
	return res
}

func (f *fixture) status() contract.Status {
	f.t.Helper()
	v, err := f.env.QueryWorkflow(contract.StatusQuery)
	require.NoError(f.t, err)
	var st contract.Status
	contracttest.DecodeChecked(f.t, "status.schema.json", v.Get, &st)
	return st
}

func (f *fixture) entry(n uint64) stores.Entry {
	f.t.Helper()
	e, err := f.inner.Read(context.Background(), stores.CheckpointID{JobID: job, Checkpoint: n})
	require.NoError(f.t, err)
	return e
}
