package activities_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/internal/workflowtest"
)

// completedExecutions is a Temporal whose every execution has completed,
// counting what it is asked; a result read fails.
type completedExecutions struct{ describes, results int }

func (c *completedExecutions) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	c.describes++
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run"},
		Status:    enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED,
	}}, nil
}

func (c *completedExecutions) GetWorkflow(context.Context, string, string) client.WorkflowRun {
	c.results++
	return unreadableRun{}
}

type unreadableRun struct{ client.WorkflowRun }

func (unreadableRun) Get(context.Context, any) error { return errors.New("history unavailable") }

// Collecting a subsumed tombstone needs to know only that its finalization
// closed: one DescribeWorkflowExecution per removal, never a read of the
// finalization's result from its history (a second server round trip per
// finalization on the background retention's path).
func TestDrainRetentionCollectsOnTheDescribeAlone(t *testing.T) {
	w, acts := drainWorld(t)
	temporal := &completedExecutions{}
	acts.Finalizations = activities.TemporalFinalizations{Client: temporal}
	for n := uint64(1); n <= 3; n++ {
		workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, n)
	}
	res, err := acts.DrainRetention(t.Context(), workflowtest.Job)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Removed)
	assert.Empty(t, res.Uncollected)
	assert.True(t, w.Entry(1).Absent(), "collected: %+v", w.Entry(1))
	assert.True(t, w.Entry(2).Absent(), "collected: %+v", w.Entry(2))
	assert.Equal(t, 2, temporal.describes)
	assert.Zero(t, temporal.results, "no result read")
}
