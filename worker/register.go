package worker

import (
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
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

// workerOptions are the Temporal worker's options. Its interceptors are
// the one tenant gate (activities.Gate): every workflow and activity
// Register registers passes it before its code runs; then rejectionLog,
// which logs an activity's routine rejection at WARN instead of the SDK's
// ERROR.
//
// Its workflow task pollers scale with the server's feedback: a job manager
// in another process starts without eager execution, so its finalization's
// first task waits in the task queue for a poller, and behind the SDK's
// fixed two (which alternate with the sticky queue) it waited up to
// seconds under load (docs/performance.md, the remote path).
func workerOptions(cfg Config, layout blobstate.Layout, fatal chan<- error) sdkworker.Options {
	return sdkworker.Options{
		WorkflowTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		WorkerStopTimeout:          cfg.ShutdownGrace,
		OnFatalError:               func(err error) { fatal <- err },
		Interceptors:               []interceptor.WorkerInterceptor{activities.Gate{Layout: layout}.Interceptor(), &rejectionLog{}},
	}
}
