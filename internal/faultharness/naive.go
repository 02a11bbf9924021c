package faultharness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// NaiveWorkflow is the registered name of NaiveFinalize: never the
// contract's FinalizeCheckpoint, so no caller can reach it by mistake.
const NaiveWorkflow = "FaultHarnessNaiveFinalize"

// NaiveInput is the input of NaiveFinalize.
type NaiveInput struct {
	Request workflows.FinalizeRequest `json:"request"`
	// ActivityTaskQueue is where the real workers run the activities.
	ActivityTaskQueue string `json:"activityTaskQueue"`
}

// naiveActivities names the real activities by method; its fields are
// never used in a workflow.
var naiveActivities *activities.Activities

// NaiveFinalize is finalization as Flink did it before FLINK-22494: persist
// the handle, publish once, and on any publish error discard the state. No
// retry within the attempt, no verify, no fence: an ambiguous failure whose
// write landed leaves a reference to discarded state, and a write that is
// still in flight can land after the discard. It exists to prove that the
// harness sees those violations; never use it for anything else.
func NaiveFinalize(ctx workflow.Context, in NaiveInput) (workflows.FinalizeResult, error) {
	req := in.Request
	res := workflows.FinalizeResult{Attempts: 1}
	actx := func(attempts int32, timeout time.Duration) workflow.Context {
		return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:           in.ActivityTaskQueue,
			StartToCloseTimeout: timeout,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: attempts},
		})
	}

	// Persisting is as safe as in the real workflow: retried until it works.
	var persisted activities.PersistResult
	if err := workflow.ExecuteActivity(actx(0, time.Minute), naiveActivities.PersistHandle, req.Handle()).Get(ctx, &persisted); err != nil {
		res.Phase, res.Reason = workflows.Failed, err.Error()
		return res, nil
	}
	res.HandleKey = persisted.HandleKey

	pub := stores.Publication{
		CheckpointID: req.CheckpointID(),
		Epoch:        req.Epoch,
		Reference:    stores.Reference{Handle: persisted.HandleKey, Token: req.Token(), Attempt: 1, Savepoint: req.Savepoint},
	}
	if err := workflow.ExecuteActivity(actx(1, 30*time.Second), naiveActivities.Publish, pub).Get(ctx, nil); err != nil {
		// The unsafe step: "failed" is taken at its word.
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second},
		})
		if derr := workflow.ExecuteLocalActivity(lctx, NaiveDiscardActivity, persisted.HandleKey).Get(ctx, nil); derr != nil {
			res.Phase, res.Reason = workflows.Abandoned, "discard failed: "+derr.Error()
			return res, nil
		}
		res.Phase, res.Reason = workflows.Discarded, "publish failed: "+err.Error()
		return res, nil
	}

	// Subsumption stays the real coordinator's job.
	report := activities.ReportInput{
		WorkflowID:   workflows.CoordinatorID(req.Cluster, req.Job),
		WorkflowType: workflows.CoordinatorWorkflow,
		Signal:       workflows.PublishedSignal,
		SignalArg:    workflows.PublishedReport{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch, Checkpoint: req.Checkpoint},
		StartArg:     workflows.CoordinatorState{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch},
	}
	if err := workflow.ExecuteActivity(actx(10, 30*time.Second), naiveActivities.Report, report).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("report to coordinator failed", "error", err)
	}
	res.Phase = workflows.Published
	return res, nil
}

// NaiveDiscardActivity is the registered name of naiveDiscarder.Discard.
const NaiveDiscardActivity = "FaultHarnessNaiveDiscard"

// naiveDiscarder deletes a handle's state with no check at all, as Flink's
// discard did. The real Discard activity fences the key and re-reads it
// before it deletes anything, the very safety naive mode switches off; so
// the naive workflow runs this one, a local activity of the harness's own
// workflow worker, on the harness's path to the bucket.
type naiveDiscarder struct{ states *blobstate.Store }

func (d naiveDiscarder) Discard(ctx context.Context, handleKey string) error {
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

// naiveWorkflowID keeps naive executions apart from the contract's IDs.
func naiveWorkflowID(req workflows.FinalizeRequest) string { return "naive-" + req.WorkflowID() }
