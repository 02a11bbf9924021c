package activities

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// FinalizationState is what Temporal says of one finalization, asked by
// workflow ID.
type FinalizationState struct {
	WorkflowID string `json:"workflowId"`
	// Found: an execution of the ID exists (or its closed history is still
	// retained by the namespace).
	Found bool `json:"found"`
	// Running: the execution has not closed; its state is its own business.
	Running bool `json:"running,omitempty"`
	// Status is Temporal's execution status ("Completed", "Terminated", ...).
	Status string `json:"status,omitempty"`
	// Phase is the result's phase of a Completed finalization
	// ("Published", "Discarded", "Abandoned", "Failed").
	Phase string `json:"phase,omitempty"`
}

// Finalizations answers whether a finalization is closed and how it ended.
type Finalizations interface {
	Finalization(ctx context.Context, workflowID string) (FinalizationState, error)
}

// Executions is the part of the Temporal client TemporalFinalizations uses.
type Executions interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
	GetWorkflow(ctx context.Context, workflowID string, runID string) client.WorkflowRun
}

// TemporalFinalizations asks Temporal by workflow ID: DescribeWorkflowExecution
// and, for a completed one, its result from the history. Both read the
// execution's own state, never visibility, which lags and could show a
// closed finalization as running or the other way round.
type TemporalFinalizations struct {
	Client Executions
}

// Finalization implements Finalizations.
func (f TemporalFinalizations) Finalization(ctx context.Context, workflowID string) (FinalizationState, error) {
	st := FinalizationState{WorkflowID: workflowID}
	resp, err := f.Client.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	info := resp.GetWorkflowExecutionInfo()
	st.Found, st.Status = true, info.GetStatus().String()
	switch info.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		st.Running = true
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		// The result names the phase; only Completed executions have one.
		var res struct {
			Phase string `json:"phase"`
		}
		if err := f.Client.GetWorkflow(ctx, workflowID, info.GetExecution().GetRunId()).Get(ctx, &res); err != nil {
			return st, fmt.Errorf("result of %s: %w", workflowID, err)
		}
		st.Phase = res.Phase
	}
	return st, nil
}
