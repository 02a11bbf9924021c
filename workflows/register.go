package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// Registry is the part of a Temporal worker that registers workflows.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// Register registers every workflow under its contract name.
func Register(r Registry) {
	r.RegisterWorkflowWithOptions(FinalizeCheckpoint, workflow.RegisterOptions{Name: FinalizeWorkflow})
	r.RegisterWorkflowWithOptions(JobCoordinator, workflow.RegisterOptions{Name: CoordinatorWorkflow})
	r.RegisterWorkflowWithOptions(SubsumeCheckpoint, workflow.RegisterOptions{Name: SubsumeWorkflow})
	r.RegisterWorkflowWithOptions(ClaimEpoch, workflow.RegisterOptions{Name: ClaimWorkflow})
	r.RegisterWorkflowWithOptions(RetireJob, workflow.RegisterOptions{Name: RetireWorkflow})
	r.RegisterWorkflowWithOptions(Reconcile, workflow.RegisterOptions{Name: ReconcileWorkflow})
	r.RegisterWorkflowWithOptions(LatestCheckpoint, workflow.RegisterOptions{Name: LatestWorkflow})
}
