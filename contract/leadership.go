package contract

import (
	"fmt"

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
	// Owner is the claimant of Epoch: only the standing claim retires.
	Owner string `json:"owner"`
	// DiscardCheckpoints: the reconciler discards the state of the
	// checkpoints the retirement removed once its grace has passed since
	// the retirement (Flink's DELETE_ON_CANCELLATION). By default their
	// state is retained for the operator (RETAIN_ON_CANCELLATION): reported,
	// never deleted, so a resubmitted job can restore from it.
	DiscardCheckpoints bool `json:"discardCheckpoints,omitempty"`
}

// Validate checks the retirement's identity and claim.
func (r RetireRequest) Validate() error {
	if err := stores.ValidateRetire(stores.JobID{Cluster: r.Cluster, Job: r.Job}, r.Epoch); err != nil {
		return err
	}
	return ValidateOwner(r.Owner)
}

// WorkflowID names the retirement.
func (r RetireRequest) WorkflowID() string {
	return fmt.Sprintf("retire/%s/%s/%d", r.Cluster, r.Job, r.Epoch)
}

// Clusters is the cluster the claim touches (the worker's tenant gate).
func (r ClaimRequest) Clusters() []string { return []string{r.Cluster} }

// Clusters is the cluster the retirement touches (the worker's tenant gate).
func (r RetireRequest) Clusters() []string { return []string{r.Cluster} }
