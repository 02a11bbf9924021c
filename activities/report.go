package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ReportInput signals a workflow, starting it first if it does not run.
// Workflows pass the names, so this package needs none of theirs.
type ReportInput struct {
	WorkflowID   string `json:"workflowId"`
	WorkflowType string `json:"workflowType"`
	Signal       string `json:"signal"`
	SignalArg    any    `json:"signalArg"`
	StartArg     any    `json:"startArg"`
}

// Clusters is the cluster of the workflow signalled (the worker's tenant
// gate): a report reaches only a workflow of the contract's, of a served
// cluster.
func (in ReportInput) Clusters() []string { return []string{contract.WorkflowCluster(in.WorkflowID)} }

// Report delivers a signal with start. Signals are at-least-once; the
// receiver de-duplicates.
func (a *Activities) Report(ctx context.Context, in ReportInput) error {
	_, err := a.Temporal.SignalWithStartWorkflow(ctx, in.WorkflowID, in.Signal, in.SignalArg,
		client.StartWorkflowOptions{ID: in.WorkflowID, TaskQueue: a.TaskQueue}, in.WorkflowType, in.StartArg)
	if err != nil {
		return fmt.Errorf("signal %s to %s: %w", in.Signal, in.WorkflowID, err)
	}
	return nil
}
