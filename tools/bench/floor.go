package bench

import (
	"context"
	"fmt"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// FloorWorkflow is the floor path's registered name.
const FloorWorkflow = "BenchFloor"

// floorReads are the floor workflow's local activities: a read of the
// checkpoint's key, nothing else.
type floorReads struct{ refs stores.ReferenceStore }

// ReadReference reads the checkpoint's key from the HA store.
func (f *floorReads) ReadReference(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	return f.refs.Read(ctx, id)
}

// reads names the floor's activities by method.
var reads *floorReads

// FloorFinalize is the cheapest workflow Temporal runs for a finalization: two
// local activities (a store read each) in its first workflow task, which
// eager start hands to the triggering process. Everything the durable
// path costs beyond it (the coordinator's signal and pass, upserts,
// version markers, the persist and publish themselves) is overhead the
// finalizer chose.
func FloorFinalize(ctx workflow.Context, id stores.CheckpointID) error {
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for range 2 {
		if err := workflow.ExecuteLocalActivity(ctx, reads.ReadReference, id).Get(ctx, nil); err != nil {
			return fmt.Errorf("read reference %s: %w", id, err)
		}
	}
	return nil
}

// registerFloor registers the floor workflow and its reads on w.
func registerFloor(w sdkworker.Worker, refs stores.ReferenceStore) {
	w.RegisterWorkflowWithOptions(FloorFinalize, workflow.RegisterOptions{Name: FloorWorkflow})
	w.RegisterActivity(&floorReads{refs: refs})
}

// floor starts the floor workflow eagerly on the in-process worker's task
// queue and waits for it.
func floor(tc sdkclient.Client, taskQueue string) finalizeFunc {
	return func(ctx context.Context, req contract.FinalizeRequest) (time.Duration, error) {
		start := time.Now()
		run, err := tc.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: "floor/" + req.WorkflowID(), TaskQueue: taskQueue, EnableEagerStart: true,
		}, FloorWorkflow, req.CheckpointID())
		if err != nil {
			return 0, fmt.Errorf("start floor workflow: %w", err)
		}
		triggered := time.Since(start)
		if err := run.Get(ctx, nil); err != nil {
			return triggered, fmt.Errorf("floor workflow: %w", err)
		}
		return triggered, nil
	}
}
