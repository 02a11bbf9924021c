package client

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Finalization is the handle of one FinalizeCheckpoint execution.
type Finalization struct {
	c          *Client
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
}

// Attach returns the handle of an existing finalization, for a caller that
// knows only its identity; ErrNotFound when there is none.
func (c *Client) Attach(ctx context.Context, cluster, job string, epoch, checkpoint uint64) (*Finalization, error) {
	f, _, err := c.describe(ctx, identity(cluster, job, epoch, checkpoint).WorkflowID())
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	return f, nil
}

// Status queries the finalization of that identity; see Finalization.Status.
func (c *Client) Status(ctx context.Context, cluster, job string, epoch, checkpoint uint64) (contract.Status, error) {
	f := &Finalization{c: c, WorkflowID: identity(cluster, job, epoch, checkpoint).WorkflowID()}
	return f.Status(ctx)
}

func identity(cluster, job string, epoch, checkpoint uint64) contract.FinalizeRequest {
	return contract.FinalizeRequest{Cluster: cluster, Job: job, Epoch: epoch, Checkpoint: checkpoint}
}

// Wait blocks until the finalization ends and returns its result.
// Acknowledge the checkpoint only when the result's Phase is
// contract.Published. A finalization that closed without a result ended
// for good, not Published: ErrEnded, or ErrRejected (with the store's
// sentinel) when the worker refused it. Any other error (ctx done,
// connection lost) says nothing about the finalization, which runs on:
// wait again.
func (f *Finalization) Wait(ctx context.Context) (contract.FinalizeResult, error) {
	var res contract.FinalizeResult
	if err := f.c.tc.GetWorkflow(ctx, f.WorkflowID, f.RunID).Get(ctx, &res); err != nil {
		return res, waitError(f.WorkflowID, err)
	}
	return res, nil
}

// Status answers the workflow's "status" query: phase, attempts,
// verifications. It needs a worker to answer, also once the finalization
// has ended.
func (f *Finalization) Status(ctx context.Context) (contract.Status, error) {
	var st contract.Status
	v, err := f.c.tc.QueryWorkflow(ctx, f.WorkflowID, f.RunID, contract.StatusQuery)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return st, fmt.Errorf("status of %s: %w", f.WorkflowID, ErrNotFound)
	}
	if err != nil {
		return st, fmt.Errorf("status of %s: %w", f.WorkflowID, err)
	}
	if err := v.Get(&st); err != nil {
		return st, fmt.Errorf("status of %s: decode: %w", f.WorkflowID, err)
	}
	return st, nil
}

// RetryNow ends the current backoff of a stuck finalization (Persisting,
// Verifying, Discarding): its persist, verify or discard starts again at
// once.
func (f *Finalization) RetryNow(ctx context.Context) error {
	if err := f.c.tc.SignalWorkflow(ctx, f.WorkflowID, f.RunID, contract.RetryNowSignal, nil); err != nil {
		return fmt.Errorf("retry-now %s: %w", f.WorkflowID, err)
	}
	return nil
}

// Abandon ends a stuck finalization (Persisting, Verifying, Discarding) as
// Abandoned, its state kept and marked so in the bucket, for an operator
// who gave up on its store or bucket; the result's reason says in which
// phase. Publishing does not read the signal: sent then, it waits for the
// next phase that does.
func (f *Finalization) Abandon(ctx context.Context, reason string) error {
	if err := f.c.tc.SignalWorkflow(ctx, f.WorkflowID, f.RunID, contract.AbandonSignal, reason); err != nil {
		return fmt.Errorf("abandon %s: %w", f.WorkflowID, err)
	}
	return nil
}
