package reconcile

import (
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Register registers the Reconcile workflow with a worker, a replayer or a
// test environment, under its contract name (contract.ReconcileWorkflow):
// the name histories, schedules and its own continuations start it by.
func Register(r sdkworker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: contract.ReconcileWorkflow})
}
