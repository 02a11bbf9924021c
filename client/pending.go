package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// PendingActivity is an activity a running workflow waits for, as the
// server describes it: its attempts and last failure show while it
// retries, which the workflow's own status learns only once it ends.
type PendingActivity struct {
	// Type is the activity's name, e.g. "PersistHandle", "Verify".
	Type string `json:"type"`
	// State is the server's: "Scheduled", "Started", "CancelRequested".
	State   string `json:"state"`
	Attempt int32  `json:"attempt"`
	// LastFailure is the last attempt's failure, as the workflow's status
	// words one ("message (type)"); empty before any failed.
	LastFailure string `json:"lastFailure,omitempty"`
	// NextAttempt is when the next attempt starts, while it backs off.
	NextAttempt *time.Time `json:"nextAttempt,omitempty"`
}

// PendingActivities describes the running execution of workflowID and
// returns the activities it waits for (none once it closed); ErrNotFound
// when there is no execution. It needs no worker, unlike the status query.
func (c *Client) PendingActivities(ctx context.Context, workflowID string) ([]PendingActivity, error) {
	desc, err := c.tc.DescribeWorkflow(ctx, workflowID, "")
	if _, nf := errors.AsType[*serviceerror.NotFound](err); nf {
		return nil, fmt.Errorf("describe %s: %w", workflowID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	raw := desc.RawResponse.GetPendingActivities()
	out := make([]PendingActivity, 0, len(raw))
	for _, pa := range raw {
		out = append(out, pendingOf(pa))
	}
	return out, nil
}

// Described is what the server knows of a finalization without asking its
// workflow: the phase it listed last (its search attributes), its
// execution's state and the activities it waits for.
type Described struct {
	Stuck
	// ExecutionStatus is the server's: "Running", "Completed",
	// "Terminated", ...
	ExecutionStatus   string            `json:"executionStatus"`
	PendingActivities []PendingActivity `json:"pendingActivities,omitempty"`
}

// Describe describes the finalization of workflowID (its newest run) from
// the server alone, for when no worker answers the status query (every
// worker down); ErrNotFound when there is none. Its LastError is the
// pending activity's last failure.
func (c *Client) Describe(ctx context.Context, workflowID string) (Described, error) {
	desc, err := c.tc.DescribeWorkflow(ctx, workflowID, "")
	if _, nf := errors.AsType[*serviceerror.NotFound](err); nf {
		return Described{}, fmt.Errorf("describe %s: %w", workflowID, ErrNotFound)
	}
	if err != nil {
		return Described{}, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	s, err := c.stuckOf(info)
	if err != nil {
		return Described{}, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	d := Described{Stuck: s, ExecutionStatus: stateName(strings.TrimPrefix(info.GetStatus().String(), "WORKFLOW_EXECUTION_STATUS_"))}
	for _, pa := range desc.RawResponse.GetPendingActivities() {
		d.PendingActivities = append(d.PendingActivities, pendingOf(pa))
	}
	d.LastError = lastFailure(d.PendingActivities)
	return d, nil
}

func pendingOf(pa *workflowpb.PendingActivityInfo) PendingActivity {
	p := PendingActivity{
		Type:    pa.GetActivityType().GetName(),
		State:   stateName(pa.GetState().String()),
		Attempt: pa.GetAttempt(),
	}
	if f := pa.GetLastFailure(); f != nil {
		p.LastFailure = contract.FailureMessage(temporal.GetDefaultFailureConverter().FailureToError(f))
	}
	if next := pa.GetNextAttemptScheduleTime(); next != nil {
		t := next.AsTime()
		p.NextAttempt = &t
	}
	return p
}

// stateName is "CancelRequested" for PENDING_ACTIVITY_STATE_CANCEL_REQUESTED;
// the API's own String() ("CancelRequested") stays as it is.
func stateName(s string) string {
	s = strings.TrimPrefix(s, "PENDING_ACTIVITY_STATE_")
	if s != strings.ToUpper(s) {
		return s
	}
	parts := strings.Split(strings.ToLower(s), "_")
	for i, w := range parts {
		if w != "" {
			parts[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(parts, "")
}

// lastFailure is the first pending activity's last failure (our workflows
// wait for one activity at a time): what an operator reads as the
// execution's last error.
func lastFailure(pending []PendingActivity) string {
	for _, p := range pending {
		if p.LastFailure != "" {
			return p.LastFailure
		}
	}
	return ""
}
