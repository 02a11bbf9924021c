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
)

// Memo keys FinalizeCheckpoint carries (the workflow upserts the first
// two when a starter left them out); MemoPath asks for the path without a
// version marker (contract.PathVersion).
const (
	MemoSummary     = contract.MemoSummary
	MemoContentHash = contract.MemoContentHash
	MemoPath        = contract.MemoPath
)

// Finalize triggers the finalization of req and returns its handle without
// waiting; see Finalization.Wait.
//
// It is idempotent: the workflow ID derives from the request's identity; a
// running execution of it is reused, and a completed one is never run
// again but attached to (its result stands). Either way the existing
// execution's content hash is compared with the request's: different
// content for the same identity fails with a *ContentMismatchError and
// starts nothing. An invalid request fails with ErrInvalidRequest before
// anything is sent.
func (c *Client) Finalize(ctx context.Context, req contract.FinalizeRequest) (*Finalization, error) {
	if err := req.Validate(); err != nil {
		return nil, invalidRequest("finalize", err)
	}
	id, hash := req.WorkflowID(), req.ContentHash()
	run, err := c.tc.ExecuteWorkflow(ctx, c.startOptions(req), contract.FinalizeWorkflow, req)
	if err == nil {
		// This request started it (the SDK's resends of the start carry the
		// same request ID, which the server de-duplicates): its content is ours.
		c.log.Debug("finalization started", "workflowId", id, "runId", run.GetRunID())
		return &Finalization{c: c, WorkflowID: id, RunID: run.GetRunID()}, nil
	}
	var done *serviceerror.WorkflowExecutionAlreadyStarted
	if !errors.As(err, &done) {
		return nil, fmt.Errorf("finalize: start %s: %w", id, err)
	}
	// Running or completed: the run that stands is the one the server
	// describes, and its memo says which content it finalizes.
	f, existing, err := c.describe(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	if existing != hash {
		// The memo is what the starter wrote (absent, or hashed its own way
		// by a caller in another language, until the workflow's first task
		// rewrites it): the start input decides.
		if existing, err = c.contentFromHistory(ctx, id, f.RunID); err != nil {
			return nil, fmt.Errorf("finalize: %w", err)
		}
	}
	if existing != hash {
		return nil, &ContentMismatchError{WorkflowID: id, RunID: f.RunID, Existing: existing, Requested: hash}
	}
	c.log.Debug("finalization joined", "workflowId", id, "runId", f.RunID)
	return f, nil
}

// startOptions: the identity's search attributes are set at start, not
// only by the workflow's first task, so the execution is findable at once.
func (c *Client) startOptions(req contract.FinalizeRequest) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:        req.WorkflowID(),
		TaskQueue: c.taskQueue,
		// A repeated trigger while the first runs fails to start and joins
		// it: the error tells this request apart from the one that started it.
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		// After it ended, never a second execution: its outcome (the state
		// may be discarded by now) is the finalization's outcome.
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		Memo: map[string]any{
			MemoSummary:     contract.Summary(req),
			MemoContentHash: req.ContentHash(),
			MemoPath:        contract.PathVersion,
		},
		// What the Web UI lists and shows on the execution's page.
		StaticSummary: contract.Summary(req),
		StaticDetails: contract.StaticDetails(req),
		TypedSearchAttributes: temporal.NewSearchAttributes(
			contract.AttrCluster.ValueSet(req.Cluster),
			contract.AttrJob.ValueSet(req.Job),
			contract.AttrEpoch.ValueSet(int64(req.Epoch)),
			contract.AttrCheckpoint.ValueSet(int64(req.Checkpoint)),
			contract.AttrPhase.ValueSet(string(contract.Persisting)),
			contract.AttrPhaseSince.ValueSet(time.Now().UTC()),
		),
		EnableEagerStart: c.eager,
	}
}
