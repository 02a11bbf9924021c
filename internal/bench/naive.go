package bench

import (
	"context"
	"fmt"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// NaiveWorkflow is the naive workflow's registered name.
const NaiveWorkflow = "BenchNaiveFinalize"

// NaiveInput is the naive workflow's input: the request and the task
// queue the finalizer's activities run on.
type NaiveInput struct {
	Request   workflows.FinalizeRequest `json:"request"`
	TaskQueue string                    `json:"taskQueue"`
}

// acts names the finalizer's activities by method.
var acts *activities.Activities

// NaiveFinalize is the straightforward workflow the durable path is
// compared with: one regular activity per step of the happy path
// (PersistHandle, Publish, Report to the job's coordinator), each a round
// trip through the finalizer's task queue. It has no verify, fence or
// discard: an Unknown publish fails it. Good enough to measure what the
// happy path costs; not a finalizer.
func NaiveFinalize(ctx workflow.Context, in NaiveInput) (workflows.FinalizeResult, error) {
	req := in.Request
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           in.TaskQueue,
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var persisted activities.PersistResult
	if err := workflow.ExecuteActivity(ctx, acts.PersistHandle, req.Handle()).Get(ctx, &persisted); err != nil {
		return workflows.FinalizeResult{}, fmt.Errorf("persist: %w", err)
	}
	p := stores.Publication{
		CheckpointID: req.CheckpointID(),
		Epoch:        req.Epoch,
		Reference:    stores.Reference{Handle: persisted.HandleKey, Token: req.Token(), Attempt: 1, Savepoint: req.Savepoint},
	}
	if err := workflow.ExecuteActivity(ctx, acts.Publish, p).Get(ctx, nil); err != nil {
		return workflows.FinalizeResult{}, fmt.Errorf("publish: %w", err)
	}
	report := workflows.PublishedReport{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch, Checkpoint: req.Checkpoint}
	if err := workflow.ExecuteActivity(ctx, acts.Report, activities.ReportInput{
		WorkflowID:   workflows.CoordinatorID(req.Cluster, req.Job),
		WorkflowType: workflows.CoordinatorWorkflow,
		Signal:       workflows.PublishedSignal,
		SignalArg:    report,
		StartArg:     workflows.CoordinatorState{Cluster: req.Cluster, Job: req.Job, Epoch: req.Epoch},
	}).Get(ctx, nil); err != nil {
		return workflows.FinalizeResult{}, fmt.Errorf("report: %w", err)
	}
	return workflows.FinalizeResult{Phase: workflows.Published, Attempts: 1, HandleKey: persisted.HandleKey}, nil
}

// startBaselineWorker runs the workflows the finalizer is compared with,
// the naive one and the floor (reading refs), on a task queue of their
// own, over the worker's Temporal client; the caller stops it.
func startBaselineWorker(tc sdkclient.Client, taskQueue string, refs stores.ReferenceStore) (sdkworker.Worker, error) {
	w := sdkworker.New(tc, taskQueue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(NaiveFinalize, workflow.RegisterOptions{Name: NaiveWorkflow})
	registerFloor(w, refs)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("start baseline worker on %s: %w", taskQueue, err)
	}
	return w, nil
}

// naive starts the naive workflow (no eager start: a naive caller does
// not set it up) and waits for its result.
func naive(tc sdkclient.Client, naiveQueue, finalizerQueue string) finalizeFunc {
	return func(ctx context.Context, req workflows.FinalizeRequest) (time.Duration, error) {
		start := time.Now()
		run, err := tc.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: "naive/" + req.WorkflowID(), TaskQueue: naiveQueue,
		}, NaiveWorkflow, NaiveInput{Request: req, TaskQueue: finalizerQueue})
		if err != nil {
			return 0, fmt.Errorf("start naive workflow: %w", err)
		}
		triggered := time.Since(start)
		var res workflows.FinalizeResult
		if err := run.Get(ctx, &res); err != nil {
			return triggered, fmt.Errorf("naive workflow: %w", err)
		}
		return triggered, published(res)
	}
}
