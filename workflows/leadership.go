package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimEpoch claims a job's epoch and answers its restore point, read
// after the claim fenced every older epoch. It fails with the rejection's
// type (e.g. Rejected.StaleEpoch) when a newer or another claim stands.
func ClaimEpoch(ctx workflow.Context, req contract.ClaimRequest) (contract.RestorePoint, error) {
	in := activities.ClaimInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner}
	if err := storeCall.execute(ctx, false, a.ClaimEpoch, in).Get(ctx, nil); err != nil {
		return contract.RestorePoint{}, err
	}
	return restorePoint(ctx, req)
}

// RetireJob retires a job whose checkpoint ID space is about to restart.
// Only the standing claim, epoch and owner, retires it. A discarding
// retirement then discards the state it let go once the checkpoints'
// finalizations have closed (discardRetired), and completes only then, as
// Flink's cleanup of a job deletes its checkpoints before it completes.
func RetireJob(ctx workflow.Context, req contract.RetireRequest) error {
	if err := validated(ctx, req.Validate()); err != nil {
		return temporal.NewNonRetryableApplicationError("retire job: "+err.Error(), contract.TypeInvalid, err)
	}
	in := activities.RetireInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner, DiscardCheckpoints: req.DiscardCheckpoints}
	if err := storeCall.execute(ctx, false, a.Retire, in).Get(ctx, nil); err != nil || !req.DiscardCheckpoints {
		return err
	}
	return discardRetired(ctx, req)
}
