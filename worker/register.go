package worker

import (
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/workflows"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// Registry is the part of a Temporal worker the finalizer registers with.
type Registry interface {
	sdkworker.WorkflowRegistry
	RegisterActivity(a any)
}

// Register registers every workflow and activity the worker serves: the
// one list the worker runs, every harness that runs a worker of its own
// registers, and the tenant gate's test enumerates (gate_test.go), so that
// a type added here without saying its cluster fails it.
func Register(r Registry, finalizer *activities.Activities, reconciler *reconcileacts.Activities) {
	workflows.Register(r)
	reconcile.Register(r)
	r.RegisterActivity(finalizer)
	r.RegisterActivity(reconciler)
}

// workerOptions are the Temporal worker's options besides the assembly's
// interceptors (Assembly.Options).
//
// Its workflow task pollers scale with the server's feedback: a job manager
// in another process starts without eager execution, so its finalization's
// first task waits in the task queue for a poller, and behind the SDK's
// fixed two (which alternate with the sticky queue) it waited up to
// seconds under load (docs/performance.md, the remote path).
func workerOptions(cfg Config, fatal chan<- error) sdkworker.Options {
	return sdkworker.Options{
		WorkflowTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		WorkerStopTimeout:          cfg.ShutdownGrace,
		OnFatalError:               func(err error) { fatal <- err },
	}
}
