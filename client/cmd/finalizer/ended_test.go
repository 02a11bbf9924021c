package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// A finalization terminated by an operator has ended for good: --wait
// exits 3 (ended but not Published), on the first try and on every repeat,
// never 1, whose advice is to repeat the command.
func TestFinalizeWaitTerminatedExits3(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true})
	env := envFor(t, e)
	req := e.Checkpoint(1, 1)
	require.Equal(t, exitOK, runTool(t, env, finalizeArgs(req)...).code)
	require.NoError(t, e.Temporal.TerminateWorkflow(t.Context(), req.WorkflowID(), "", "an operator's decision"))

	for range 2 {
		o := runTool(t, env, finalizeArgs(req, "--wait")...)
		assert.Equal(t, exitNotPublished, o.code)
		assert.Contains(t, o.stderr, "terminated")
	}
}

// A finalization the worker's tenant gate refuses (a cluster it does not
// serve) was refused for good: --wait exits 4, never 1.
func TestFinalizeWaitRefusedByGateExits4(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true})
	dir := t.TempDir()
	cfg, err := worker.LoadConfig([]string{"--temporal-address=" + harness.HostPort(t), "--temporal-namespace=" + harness.Namespace(),
		"--task-queue=" + e.TaskQueue, "--clusters=elsewhere=elsewhere", "--embedded-path=" + filepath.Join(dir, "refs.db"),
		"--state-bucket=" + e.BucketURL, "--metrics-address=off"}, func(string) string { return "" })
	require.NoError(t, err)
	stop := startWorker(t, cfg)
	defer func() { require.NoError(t, stop()) }()

	o := runTool(t, envFor(t, e), finalizeArgs(e.Checkpoint(1, 1), "--wait")...)
	assert.Equal(t, exitRefused, o.code)
	assert.Contains(t, o.stderr, "is not served by this worker")

	// claim, retire and latest the same.
	job := []string{"--cluster", e.Cluster, "--job", e.Job}
	for _, args := range [][]string{
		append([]string{"claim", "--epoch", "1", "--owner", "jm-1"}, job...),
		append([]string{"retire", "--epoch", "1", "--owner", "jm-1"}, job...),
		append([]string{"latest"}, job...),
	} {
		o := runTool(t, envFor(t, e), args...)
		assert.Equal(t, exitRefused, o.code, args[0])
		assert.Contains(t, o.stderr, "is not served by this worker", args[0])
	}
}

// claim, retire and latest wait for a workflow as finalize --wait does:
// one terminated by an operator ended for good and exits 3, never 1
// ("repeat the command").
func TestClaimRetireLatestTerminatedExit3(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true}) // no worker: each waits
	env := envFor(t, e)
	job := []string{"--cluster", e.Cluster, "--job", e.Job}
	for name, c := range map[string]struct {
		args []string
		// workflowID finds the execution the command started.
		workflowID func() string
	}{
		"claim": {append([]string{"claim", "--epoch", "1", "--owner", "jm-1"}, job...), func() string {
			return contract.ClaimRequest{Cluster: e.Cluster, Job: e.Job, Epoch: 1}.WorkflowID()
		}},
		"retire": {append([]string{"retire", "--epoch", "1", "--owner", "jm-1"}, job...), func() string {
			return contract.RetireRequest{Cluster: e.Cluster, Job: e.Job, Epoch: 1}.WorkflowID()
		}},
		"latest": {append([]string{"latest"}, job...), func() string {
			resp, err := e.Temporal.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{
				Query: fmt.Sprintf(`WorkflowType = %q AND TaskQueue = %q AND ExecutionStatus = "Running"`, contract.LatestWorkflow, e.TaskQueue),
			})
			require.NoError(t, err)
			if len(resp.GetExecutions()) == 0 {
				return ""
			}
			return resp.GetExecutions()[0].GetExecution().GetWorkflowId()
		}},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan outcome, 1)
			go func() { done <- runTool(t, env, c.args...) }()
			require.Eventually(t, func() bool {
				id := c.workflowID()
				return id != "" && e.Temporal.TerminateWorkflow(t.Context(), id, "", "an operator's decision") == nil
			}, 30*time.Second, 100*time.Millisecond)
			o := <-done
			assert.Equal(t, exitNotPublished, o.code)
			assert.Contains(t, o.stderr, "terminated")
		})
	}
}
