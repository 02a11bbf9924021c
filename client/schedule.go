package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// MinReconcileInterval is the shortest interval a schedule accepts: a run
// lists a whole cluster.
const MinReconcileInterval = time.Minute

// ScheduleReconcile creates the cluster's reconcile schedule, or updates it
// when it exists: a run with req every interval, never two at once (a run
// still going when the next is due makes that one skip), and a run missed
// while Temporal was down is not caught up beyond one interval. It reports
// whether it created the schedule. Its ID is
// contract.ReconcileScheduleID(req.Cluster).
func (c *Client) ScheduleReconcile(ctx context.Context, req contract.ReconcileRequest, interval time.Duration) (created bool, err error) {
	if err := req.Validate(); err != nil {
		return false, invalidRequest("schedule reconcile", err)
	}
	if req.Carry != nil {
		return false, invalidRequest("schedule reconcile", &stores.InvalidError{Field: "carry", Rule: "is the workflow's own"})
	}
	if interval < MinReconcileInterval {
		return false, invalidRequest("schedule reconcile", &stores.InvalidError{
			Field: "interval", Rule: fmt.Sprintf("must be at least %s, got %s", MinReconcileInterval, interval)})
	}
	id := contract.ReconcileScheduleID(req.Cluster)
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: interval}}}
	action := &client.ScheduleWorkflowAction{
		ID:        id,
		Workflow:  contract.ReconcileWorkflow,
		Args:      []any{req},
		TaskQueue: c.taskQueue,
	}
	_, err = c.tc.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID: id, Spec: spec, Action: action,
		Overlap:       enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: interval,
	})
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return false, fmt.Errorf("schedule reconcile: create %s: %w", id, err)
	}
	err = c.tc.ScheduleClient().GetHandle(ctx, id).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := in.Description.Schedule
			s.Spec, s.Action = &spec, action
			if s.Policy == nil {
				s.Policy = &client.SchedulePolicies{}
			}
			s.Policy.Overlap, s.Policy.CatchupWindow = enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, interval
			return &client.ScheduleUpdate{Schedule: &s}, nil
		},
	})
	if err != nil {
		return false, fmt.Errorf("schedule reconcile: update %s: %w", id, err)
	}
	return false, nil
}
