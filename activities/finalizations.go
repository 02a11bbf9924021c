package activities

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
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

// Closures answers whether a finalization still runs: all retention needs
// before it collects a subsumed tombstone, whatever the result.
type Closures interface {
	Running(ctx context.Context, workflowID string) (bool, error)
}

// Executions is the part of the Temporal client TemporalFinalizations uses.
type Executions interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
	GetWorkflow(ctx context.Context, workflowID string, runID string) client.WorkflowRun
}

// TemporalFinalizations asks Temporal by workflow ID: DescribeWorkflowExecution
// and, for a completed one whose result is asked for, its result from the
// history. Both read the execution's own state, never visibility, which
// lags and could show a closed finalization as running or the other way
// round.
type TemporalFinalizations struct {
	Client Executions
}

// Finalization implements Finalizations.
func (f TemporalFinalizations) Finalization(ctx context.Context, workflowID string) (FinalizationState, error) {
	st, info, err := f.describe(ctx, workflowID)
	if err != nil || info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return st, err
	}
	// The result names the phase; only Completed executions have one.
	var res struct {
		Phase string `json:"phase"`
	}
	if err := f.Client.GetWorkflow(ctx, workflowID, info.GetExecution().GetRunId()).Get(ctx, &res); err != nil {
		return st, fmt.Errorf("result of %s: %w", workflowID, err)
	}
	st.Phase = res.Phase
	return st, nil
}

// Running implements Closures with the describe alone: no history read.
func (f TemporalFinalizations) Running(ctx context.Context, workflowID string) (bool, error) {
	st, _, err := f.describe(ctx, workflowID)
	return st.Running, err
}

// describe is the execution's state, without its result; an ID Temporal
// does not know is not Found, and no error.
func (f TemporalFinalizations) describe(ctx context.Context, workflowID string) (FinalizationState, *workflowpb.WorkflowExecutionInfo, error) {
	st := FinalizationState{WorkflowID: workflowID}
	resp, err := f.Client.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return st, nil, nil
	}
	if err != nil {
		return st, nil, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	info := resp.GetWorkflowExecutionInfo()
	st.Found, st.Status = true, info.GetStatus().String()
	st.Running = info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	return st, info, nil
}
