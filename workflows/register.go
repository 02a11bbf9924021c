package workflows

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"go.temporal.io/sdk/workflow"
)

// Registry is the part of a Temporal worker that registers workflows.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// Register registers the finalizer's workflows under their contract names.
// The reconciler's workflow is workflows/reconcile's; a worker registers
// both (worker/run.go).
func Register(r Registry) {
	r.RegisterWorkflowWithOptions(FinalizeCheckpoint, workflow.RegisterOptions{Name: contract.FinalizeWorkflow})
	r.RegisterWorkflowWithOptions(JobCoordinator, workflow.RegisterOptions{Name: contract.CoordinatorWorkflow})
	r.RegisterWorkflowWithOptions(SubsumeCheckpoint, workflow.RegisterOptions{Name: contract.SubsumeWorkflow})
	r.RegisterWorkflowWithOptions(ClaimEpoch, workflow.RegisterOptions{Name: contract.ClaimWorkflow})
	r.RegisterWorkflowWithOptions(RetireJob, workflow.RegisterOptions{Name: contract.RetireWorkflow})
	r.RegisterWorkflowWithOptions(LatestCheckpoint, workflow.RegisterOptions{Name: contract.LatestWorkflow})
}
