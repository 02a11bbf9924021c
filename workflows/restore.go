package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// LatestCheckpoint answers the job's restore point without claiming
// anything. It is a workflow, not a query or an update: reading the store
// is I/O, which a query handler may not do, and no long-lived execution
// per job exists to carry an update (a job's coordinator runs only while
// it has finalizations). A short workflow also leaves the read in the
// history, visible in the Web UI.
func LatestCheckpoint(ctx workflow.Context, req contract.LatestRequest) (contract.RestorePoint, error) {
	var rp contract.RestorePoint
	err := storeCall.execute(ctx, false, a.RestorePoint, activities.RestoreInput{JobID: req.JobID()}).Get(ctx, &rp)
	return rp, err
}

// restoreVersion: claims started before ClaimEpoch answered the restore
// point replay without reading it.
const restoreVersion = "claim-restore-point"

// restorePoint reads the restore point once the claim stands; the read
// refuses a claim a newer one replaced meanwhile.
func restorePoint(ctx workflow.Context, req contract.ClaimRequest) (contract.RestorePoint, error) {
	if workflow.GetVersion(ctx, restoreVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return contract.RestorePoint{}, nil
	}
	in := activities.RestoreInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner}
	var rp contract.RestorePoint
	err := storeCall.execute(ctx, false, a.RestorePoint, in).Get(ctx, &rp)
	return rp, err
}
