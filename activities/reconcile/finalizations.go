package reconcile

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
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

// DescribeInput names finalizations of one job to ask Temporal about.
type DescribeInput struct {
	stores.JobID
	// Finalizations are the job's (epoch, checkpoint) pairs; the activity
	// derives each workflow ID from them and the job, so that no other
	// job's or cluster's finalization can be asked for.
	Finalizations []FinalizationIdentity `json:"finalizations"`
}

// FinalizationIdentity is one finalization of a job.
type FinalizationIdentity struct {
	Epoch      uint64 `json:"epoch"`
	Checkpoint uint64 `json:"checkpoint"`
}

// DescribeFinalizations asks for each finalization in turn, answering in
// the input's order. A failure is retryable: it says nothing about the
// finalization.
func (a *Activities) DescribeFinalizations(ctx context.Context, in DescribeInput) ([]FinalizationState, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return nil, err
	}
	out := make([]FinalizationState, 0, len(in.Finalizations))
	for i, f := range in.Finalizations {
		activity.RecordHeartbeat(ctx, i)
		id := contract.FinalizationID(stores.CheckpointID{JobID: in.JobID, Checkpoint: f.Checkpoint}, f.Epoch)
		st, err := a.Finalizations.Finalization(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
