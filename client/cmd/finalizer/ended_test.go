package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
}
