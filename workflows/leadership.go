package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimRequest is the input of ClaimEpoch: a job manager claims its
// leadership incarnation before it recovers or triggers anything.
type ClaimRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	Epoch   uint64 `json:"epoch"`
	// Owner identifies the claimant (e.g. the job manager's leader session
	// ID): a second claimant of the same epoch number is refused.
	Owner string `json:"owner"`
}

// WorkflowID names the claim.
func (r ClaimRequest) WorkflowID() string {
	return fmt.Sprintf("claim/%s/%s/%d", r.Cluster, r.Job, r.Epoch)
}

// RetireRequest is the input of RetireJob.
type RetireRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	Epoch   uint64 `json:"epoch"`
	// DiscardCheckpoints: the reconciler discards the state of the
	// checkpoints the retirement removed once its grace has passed since
	// the retirement (Flink's DELETE_ON_CANCELLATION). By default their
	// state is retained for the operator (RETAIN_ON_CANCELLATION): reported,
	// never deleted, so a resubmitted job can restore from it.
	DiscardCheckpoints bool `json:"discardCheckpoints,omitempty"`
}

// WorkflowID names the retirement.
func (r RetireRequest) WorkflowID() string {
	return fmt.Sprintf("retire/%s/%s/%d", r.Cluster, r.Job, r.Epoch)
}

// ClaimEpoch claims a job's epoch and answers its restore point, read
// after the claim fenced every older epoch. It fails with the rejection's
// type (e.g. Rejected.StaleEpoch) when a newer or another claim stands.
func ClaimEpoch(ctx workflow.Context, req ClaimRequest) (RestorePoint, error) {
	in := activities.ClaimInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner}
	if err := storeCall.execute(ctx, false, a.ClaimEpoch, in).Get(ctx, nil); err != nil {
		return RestorePoint{}, err
	}
	return restorePoint(ctx, req)
}

// RetireJob retires a job whose checkpoint ID space is about to restart.
func RetireJob(ctx workflow.Context, req RetireRequest) error {
	in := activities.RetireInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, DiscardCheckpoints: req.DiscardCheckpoints}
	return storeCall.execute(ctx, false, a.Retire, in).Get(ctx, nil)
}
