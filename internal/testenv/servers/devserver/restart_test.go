package devserver_test

import (
	"context"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const taskQueue = "temporaltest"

var phaseKey = temporal.NewSearchAttributeKeyKeyword("FinalizationPhase")

// awaitSignal upserts a search attribute in its first workflow task (which
// fails, and is retried forever, if the attribute is not registered), then
// waits for one signal.
func awaitSignal(ctx workflow.Context) (string, error) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, phaseKey.ValueSet("waiting")); err != nil {
		return "", err
	}
	var v string
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, &v)
	return "got " + v, nil
}

// A workflow started before the server goes down, by SIGTERM or by SIGKILL,
// is still there after a restart on the same database file, and the
// worker and client of before the restart finish it.
func TestRestartKeepsRunningWorkflow(t *testing.T) {
	s := temporaltest.Start(t, devserver.Options{SearchAttributes: finalizerAttributes})
	c := dial(t, s)
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(awaitSignal)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	for _, tc := range []struct {
		name string
		down func() error
	}{
		{"stop", func() error { return nil }}, // Restart sends SIGTERM
		{"kill", s.Kill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "restart-" + tc.name, TaskQueue: taskQueue}, awaitSignal)
			require.NoError(t, err)
			waitFirstTaskCompleted(ctx, t, c, run)

			begin := time.Now()
			require.NoError(t, tc.down())
			require.NoError(t, s.Restart(ctx))
			restarted := time.Now()

			require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), "", "go", tc.name))
			var result string
			require.NoError(t, run.Get(ctx, &result))
			assert.Equal(t, "got "+tc.name, result)
			t.Logf("%s and restart: %s; signal to completion: %s", tc.name,
				restarted.Sub(begin).Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))

			desc, err := c.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
			require.NoError(t, err)
			assert.Contains(t, string(desc.RawResponse.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()["FinalizationPhase"].GetData()), "waiting")
		})
	}
}

// waitFirstTaskCompleted waits until the worker has run the workflow's first
// task, so the restart hits a workflow that is really in progress.
func waitFirstTaskCompleted(ctx context.Context, t *testing.T, c client.Client, run client.WorkflowRun) {
	t.Helper()
	for {
		iter := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for iter.HasNext() {
			ev, err := iter.Next()
			require.NoError(t, err)
			if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("workflow %s: first task not completed: %v", run.GetID(), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
