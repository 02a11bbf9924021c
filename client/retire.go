package client

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Retire retires a job whose checkpoint ID space is about to restart: every
// reference is tombstoned and the job stays closed until the reconciler
// forgets it; a new incarnation then claims epochs above the old ones. The
// checkpoints' state is retained for the operator unless
// req.DiscardCheckpoints. Only the job's current epoch may retire it
// (ErrStaleEpoch otherwise); retiring a retired job succeeds, and the first
// retirement's choice stands. A retirement that closed without an answer
// (terminated, say) is an *EndedError matching ErrEnded.
func (c *Client) Retire(ctx context.Context, req contract.RetireRequest) error {
	if err := (stores.JobID{Cluster: req.Cluster, Job: req.Job}).Validate(); err != nil {
		return invalidRequest("retire", err)
	}
	if req.Epoch == 0 {
		return invalidRequest("retire", &stores.InvalidError{Field: "epoch", Rule: "must be at least 1"})
	}
	id := req.WorkflowID()
	run, err := c.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: c.taskQueue,
		// The ID names the job and epoch, so a running retirement is
		// this one (or one whose retention choice stands): wait for it.
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		// A finished one may run again: the store answers from its state.
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, contract.RetireWorkflow, req)
	if err != nil {
		return fmt.Errorf("retire: start %s: %w", id, err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return fmt.Errorf("retire: %w", waitError(id, err))
	}
	return nil
}
