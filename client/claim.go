package client

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimEpoch claims the job's epoch for req.Owner, waits for the store's
// answer and returns the job's restore point: the newest published
// reference, read after the claim fenced every older epoch, and whether it
// resolves (see workflows.RestorePoint). A newer epoch, or the same epoch
// held by another owner, fails with a *RejectedError matching
// ErrStaleEpoch. Claiming the epoch the owner already holds succeeds, so a
// caller that lost the answer claims again.
func (c *Client) ClaimEpoch(ctx context.Context, req contract.ClaimRequest) (contract.RestorePoint, error) {
	job := stores.JobID{Cluster: req.Cluster, Job: req.Job}
	if err := stores.ValidateClaim(job, req.Epoch, req.Owner); err != nil {
		return contract.RestorePoint{}, invalidRequest("claim epoch", err)
	}
	id := req.WorkflowID()
	opts := client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: c.taskQueue,
		// Never attach to a running claim: it may be another owner's, and
		// its success is not ours. Wait for it to end, then claim anew.
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}
	for {
		run, err := c.tc.ExecuteWorkflow(ctx, opts, contract.ClaimWorkflow, req)
		var running *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &running) {
			// Its outcome is not ours whatever it is: only its end matters.
			_ = c.tc.GetWorkflow(ctx, id, running.RunId).Get(ctx, nil)
			if ctx.Err() != nil {
				return contract.RestorePoint{}, fmt.Errorf("claim epoch %s: waiting for a concurrent claim: %w", id, ctx.Err())
			}
			continue
		}
		if err != nil {
			return contract.RestorePoint{}, fmt.Errorf("claim epoch: start %s: %w", id, err)
		}
		var rp contract.RestorePoint
		if err := run.Get(ctx, &rp); err != nil {
			return contract.RestorePoint{}, fmt.Errorf("claim epoch: %w", rejection(id, err))
		}
		if rp.State == "" {
			// A claim a worker from before the restore point ran: the claim
			// has completed, so a read now is still a read after it.
			return c.LatestCheckpoint(ctx, job)
		}
		return rp, nil
	}
}
