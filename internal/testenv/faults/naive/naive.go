// Package naive is checkpoint finalization as Flink did it before
// FLINK-22494: persist the handle, publish once, and on any publish error
// discard the state. No retry within the attempt, no verify, no fence: an
// ambiguous failure whose write landed leaves a reference to discarded
// state, and a write still in flight can land after the discard.
//
// Two tools run it and nothing else may: the fault harness
// (tools/faultharness) to prove that it sees those violations where
// the real workflow has none, and the benchmark (tools/bench) as the
// straightforward one-activity-per-step workflow the durable path is
// compared with. Each registers it under a name of its own, never the
// contract's FinalizeCheckpoint, so no caller can reach it by mistake.
package naive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// DiscardActivity is the registered name of the unchecked discard that
// Finalize runs as a local activity.
const DiscardActivity = "FaultHarnessNaiveDiscard"

// Input is the input of Finalize.
type Input struct {
	Request contract.FinalizeRequest `json:"request"`
	// ActivityTaskQueue is where the real workers run the activities.
	ActivityTaskQueue string `json:"activityTaskQueue"`
}

// acts names the real activities by method; its fields are never used in
// a workflow.
var acts *activities.Activities

// Register registers Finalize on w under workflowName, and the unchecked
// discard it runs as a local activity, over states. The real activities
// (persist, publish, report) stay with the real workers on the task queue
// each Input names.
func Register(w sdkworker.Registry, workflowName string, states *blobstate.Store) {
	w.RegisterWorkflowWithOptions(Finalize, workflow.RegisterOptions{Name: workflowName})
	w.RegisterActivityWithOptions(discarder{states}.Discard, activity.RegisterOptions{Name: DiscardActivity})
}

// Finalize persists the handle (retried until it works, as safe as in
// the real workflow), publishes once and discards on any publish error;
// a publication is reported to the job's coordinator, which keeps
// subsumption. It returns the outcome as a result, never as an error.
func Finalize(ctx workflow.Context, in Input) (contract.FinalizeResult, error) {
	req := in.Request
	res := contract.FinalizeResult{Attempts: 1}
	actx := func(attempts int32, timeout time.Duration) workflow.Context {
		return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:           in.ActivityTaskQueue,
			StartToCloseTimeout: timeout,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: attempts},
		})
	}

	var persisted activities.PersistResult
	if err := workflow.ExecuteActivity(actx(0, time.Minute), acts.PersistHandle, activities.HandleOf(req)).Get(ctx, &persisted); err != nil {
		res.Phase, res.Reason = contract.Failed, err.Error()
		return res, nil
	}
	res.HandleKey = persisted.HandleKey

	pub := stores.Publication{
		CheckpointID: req.CheckpointID(),
		Epoch:        req.Epoch,
		Owner:        req.Owner,
		Reference:    stores.Reference{Handle: persisted.HandleKey, Token: req.Token(), Attempt: 1, Savepoint: req.Savepoint},
	}
	if err := workflow.ExecuteActivity(actx(1, 30*time.Second), acts.Publish, pub).Get(ctx, nil); err != nil {
		// The unsafe step: "failed" is taken at its word.
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second},
		})
		if derr := workflow.ExecuteLocalActivity(lctx, DiscardActivity, persisted.HandleKey).Get(ctx, nil); derr != nil {
			res.Phase, res.Reason = contract.Abandoned, "discard failed: "+derr.Error()
			return res, nil
		}
		res.Phase, res.Reason = contract.Discarded, "publish failed: "+err.Error()
		return res, nil
	}

	report := activities.ReportInput{
		WorkflowID:   contract.CoordinatorID(req.Cluster, req.Job),
		WorkflowType: contract.CoordinatorWorkflow,
		Signal:       contract.PublishedSignal,
		SignalArg:    contract.PublishedReport{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch, Checkpoint: req.Checkpoint},
		StartArg:     contract.CoordinatorState{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch},
	}
	if err := workflow.ExecuteActivity(actx(10, 30*time.Second), acts.Report, report).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("report to coordinator failed", "error", err)
	}
	res.Phase = contract.Published
	return res, nil
}

// discarder deletes a handle's state with no check at all, as Flink's
// discard did. The real Discard activity fences the key and re-reads it
// before it deletes anything, the very safety naive mode switches off; so
// Finalize runs this one, a local activity of the worker that runs the
// workflow, on that worker's path to the bucket.
type discarder struct{ states *blobstate.Store }

func (d discarder) Discard(ctx context.Context, handleKey string) error {
	h, err := d.states.ReadKey(ctx, handleKey)
	if errors.Is(err, blobstate.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("naive discard %s: %w", handleKey, err)
	}
	if _, err := d.states.Discard(ctx, h); err != nil {
		return fmt.Errorf("naive discard %s: %w", handleKey, err)
	}
	return nil
}
