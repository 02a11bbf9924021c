package workflows_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/storefault"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// fixture runs the workflows in the SDK's test environment over the real
// activities, the real embedded store (wrapped to inject ambiguity) and a
// real file bucket. Only the report to the coordinator is mocked.
type fixture struct {
	t      *testing.T
	env    *testsuite.TestWorkflowEnvironment
	refs   *storefault.Store
	inner  *embedded.Store
	states *blobstate.Store
	dir    string
	acts   *activities.Activities
}

var job = stores.JobID{Cluster: "c1", Job: "j1"}

func newFixture(t *testing.T, retain int) *fixture {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	// The activity errors the tests inject would fill the output.
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	f := &fixture{t: t, env: suite.NewTestWorkflowEnvironment(), dir: t.TempDir()}

	inner, err := embedded.Open(filepath.Join(t.TempDir(), "refs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = inner.Close() })
	f.inner, f.refs = inner, storefault.Wrap(inner)
	require.NoError(t, inner.ClaimEpoch(context.Background(), job, 1, "jm-1"))

	f.states, err = blobstate.Open(context.Background(), "file://"+f.dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.states.Close() })

	f.acts = &activities.Activities{References: f.refs, Leadership: inner, States: f.states, StoreKind: "embedded", Retain: retain}
	f.env.SetWorkflowRunTimeout(365 * 24 * time.Hour)
	workflows.Register(f.env)
	f.env.RegisterActivity(f.acts)
	f.env.OnActivity(f.acts.Report, mock.Anything, mock.Anything).Return(nil).Maybe()
	return f
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
	decodeChecked(f.t, "finalize-result.schema.json", f.env.GetWorkflowResult, &res)
	return res
}

func (f *fixture) status() contract.Status {
	f.t.Helper()
	v, err := f.env.QueryWorkflow(contract.StatusQuery)
	require.NoError(f.t, err)
	var st contract.Status
	decodeChecked(f.t, "status.schema.json", v.Get, &st)
	return st
}

func (f *fixture) entry(n uint64) stores.Entry {
	f.t.Helper()
	e, err := f.inner.Read(context.Background(), stores.CheckpointID{JobID: job, Checkpoint: n})
	require.NoError(f.t, err)
	return e
}
