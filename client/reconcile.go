package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ReconcileRun is the handle of one Reconcile execution.
type ReconcileRun struct {
	c          *Client
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
}

// ReconcileRunID names a run started by hand: the schedule's prefix, then
// the start time, so runs never collide with each other or the schedule's.
func ReconcileRunID(cluster string, at time.Time) string {
	return fmt.Sprintf("%s/run-%s", contract.ReconcileScheduleID(cluster), at.UTC().Format("20060102T150405.000000000Z"))
}

// StartReconcile starts one run of the reconciler over req.Cluster. An
// invalid request fails with ErrInvalidRequest before anything is sent.
func (c *Client) StartReconcile(ctx context.Context, req contract.ReconcileRequest) (*ReconcileRun, error) {
	if err := req.Validate(); err != nil {
		return nil, invalidRequest("reconcile", err)
	}
	id := ReconcileRunID(req.Cluster, time.Now())
	run, err := c.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                c.taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
	}, contract.ReconcileWorkflow, req)
	if err != nil {
		return nil, fmt.Errorf("reconcile: start %s: %w", id, err)
	}
	return &ReconcileRun{c: c, WorkflowID: id, RunID: run.GetRunID()}, nil
}

// Reconcile runs the reconciler once and returns its report.
func (c *Client) Reconcile(ctx context.Context, req contract.ReconcileRequest) (contract.ReconcileReport, error) {
	run, err := c.StartReconcile(ctx, req)
	if err != nil {
		return contract.ReconcileReport{}, err
	}
	return run.Wait(ctx)
}

// Wait blocks until the run ends (following its continuations) and
// returns its report. An error (ctx done, connection lost) says nothing
// about the run, which goes on.
func (r *ReconcileRun) Wait(ctx context.Context) (contract.ReconcileReport, error) {
	var rep contract.ReconcileReport
	// An empty run ID follows the chain of continue-as-new to its end.
	if err := r.c.tc.GetWorkflow(ctx, r.WorkflowID, "").Get(ctx, &rep); err != nil {
		return rep, fmt.Errorf("wait for %s: %w", r.WorkflowID, err)
	}
	return rep, nil
}

// Status answers the run's status query: the report so far.
func (r *ReconcileRun) Status(ctx context.Context) (contract.ReconcileReport, error) {
	var rep contract.ReconcileReport
	v, err := r.c.tc.QueryWorkflow(ctx, r.WorkflowID, "", contract.StatusQuery)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return rep, fmt.Errorf("status of %s: %w", r.WorkflowID, ErrNotFound)
	}
	if err != nil {
		return rep, fmt.Errorf("status of %s: %w", r.WorkflowID, err)
	}
	if err := v.Get(&rep); err != nil {
		return rep, fmt.Errorf("status of %s: decode: %w", r.WorkflowID, err)
	}
	return rep, nil
}
