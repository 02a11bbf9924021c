package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Bounds of the pause before claiming again when the wait for a
// concurrent claim failed (the server did not answer, rather than the
// claim ended): claiming again at once would spin against a failing
// server.
const (
	claimRetryMin = 100 * time.Millisecond
	claimRetryMax = 5 * time.Second
)

// ClaimEpoch claims the job's epoch for req.Owner, waits for the store's
// answer and returns the job's restore point: the newest published
// reference, read after the claim fenced every older epoch, and whether it
// resolves (see contract.RestorePoint). A newer epoch, or the same epoch
// held by another owner, fails with a *RejectedError matching
// ErrStaleEpoch. Claiming the epoch the owner already holds succeeds, so a
// caller that lost the answer claims again. A claim that closed without an
// answer (terminated, say) is an *EndedError matching ErrEnded.
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
	pause := claimRetryMin
	for {
		run, err := c.tc.ExecuteWorkflow(ctx, opts, contract.ClaimWorkflow, req)
		var running *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &running) {
			// Its outcome is not ours whatever it is: only its end matters.
			waitErr := c.tc.GetWorkflow(ctx, id, running.RunId).Get(ctx, nil)
			if _, ended := errors.AsType[*temporal.WorkflowExecutionError](waitErr); waitErr == nil || ended {
				pause = claimRetryMin
				continue
			}
			if ctx.Err() == nil { // else the wait failed because ctx ended: no claim follows
				c.log.Warn("waiting for a concurrent claim failed, claiming again after a pause",
					"workflowId", id, "runId", running.RunId, "pause", pause, "error", waitErr)
			}
			if err := waitFor(ctx, pause); err != nil {
				return contract.RestorePoint{}, fmt.Errorf("claim epoch %s: waiting for concurrent claim run %s: %w",
					id, running.RunId, lastError(err, waitErr))
			}
			pause = min(2*pause, claimRetryMax)
			continue
		}
		if err != nil {
			return contract.RestorePoint{}, fmt.Errorf("claim epoch: start %s: %w", id, err)
		}
		var rp contract.RestorePoint
		if err := run.Get(ctx, &rp); err != nil {
			return contract.RestorePoint{}, fmt.Errorf("claim epoch: %w", waitError(id, err))
		}
		if rp.State == "" {
			// A claim a worker from before the restore point ran: the claim
			// has completed, so a read now is still a read after it.
			return c.LatestCheckpoint(ctx, job)
		}
		return rp, nil
	}
}

// waitFor pauses for d, or returns ctx's error when it ends first.
func waitFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lastError is ctx's end with the last failure before it, unless that
// failure was the end itself.
func lastError(ctxErr, last error) error {
	if errors.Is(last, ctxErr) {
		return last
	}
	return fmt.Errorf("%w (last wait: %w)", ctxErr, last)
}
