package bench

import (
	"context"
	"fmt"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/naive"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// NaiveWorkflow is the name the benchmark registers naive.Finalize under:
// the straightforward workflow the durable path is compared with, one
// regular activity per step of the happy path (PersistHandle, Publish,
// Report to the job's coordinator), each a round trip through the
// finalizer's task queue, with no verify and no fence. Good enough to
// measure what the happy path costs; not a finalizer.
const NaiveWorkflow = "BenchNaiveFinalize"

// startBaselineWorker runs the workflows the finalizer is compared with,
// the naive one (its discard over states) and the floor (reading refs),
// on a task queue of their own, over the worker's Temporal client; the
// caller stops it.
func startBaselineWorker(tc sdkclient.Client, taskQueue string, refs stores.ReferenceStore, states *blobstate.Store) (sdkworker.Worker, error) {
	w := sdkworker.New(tc, taskQueue, sdkworker.Options{})
	naive.Register(w, NaiveWorkflow, states)
	registerFloor(w, refs)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("start baseline worker on %s: %w", taskQueue, err)
	}
	return w, nil
}

// naiveFinalize starts the naive workflow (no eager start: a naive caller
// does not set it up) and waits for its result.
func naiveFinalize(tc sdkclient.Client, naiveQueue, finalizerQueue string) finalizeFunc {
	return func(ctx context.Context, req contract.FinalizeRequest) (time.Duration, error) {
		start := time.Now()
		run, err := tc.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: "naive/" + req.WorkflowID(), TaskQueue: naiveQueue,
		}, NaiveWorkflow, naive.Input{Request: req, ActivityTaskQueue: finalizerQueue})
		if err != nil {
			return 0, fmt.Errorf("start naive workflow: %w", err)
		}
		triggered := time.Since(start)
		var res contract.FinalizeResult
		if err := run.Get(ctx, &res); err != nil {
			return triggered, fmt.Errorf("naive workflow: %w", err)
		}
		return triggered, published(res)
	}
}
