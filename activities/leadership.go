package activities

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Leadership is the part of the HA store that claims and retires jobs; it
// reads the job to check a retirement's claim.
type Leadership interface {
	ClaimEpoch(ctx context.Context, job stores.JobID, epoch uint64, owner string) error
	Retire(ctx context.Context, job stores.JobID, epoch uint64, keep bool) error
	jobReader
}

// ClaimInput names a leadership claim.
type ClaimInput struct {
	stores.JobID
	Epoch uint64 `json:"epoch"`
	Owner string `json:"owner"`
}

// ClaimEpoch makes the epoch the job's current one, fencing older ones.
// Claiming the standing epoch again is success.
func (a *Activities) ClaimEpoch(ctx context.Context, in ClaimInput) error {
	err := a.Leadership.ClaimEpoch(ctx, in.JobID, in.Epoch, in.Owner)
	CountStoreCall(ctx, "claim", stores.OutcomeOf(err))
	return Translate(err)
}

// RetireInput names a job to retire.
type RetireInput struct {
	stores.JobID
	Epoch uint64 `json:"epoch"`
	// Owner is the claimant of Epoch; only the standing claim retires.
	Owner string `json:"owner,omitempty"`
	// DiscardCheckpoints lets the reconciler discard the retired
	// checkpoints' state once the grace has passed since the retirement;
	// without it their state is retained for the operator.
	DiscardCheckpoints bool `json:"discardCheckpoints,omitempty"`
}

// Retire tombstones every reference of the job, so its ID space can start
// over once the tombstones are collected.
func (a *Activities) Retire(ctx context.Context, in RetireInput) error {
	if err := claimant(ctx, a.Leadership, in.JobID, in.Epoch, in.Owner); err != nil {
		return Translate(fmt.Errorf("retire job %s: %w", in.JobID, err))
	}
	err := a.Leadership.Retire(ctx, in.JobID, in.Epoch, !in.DiscardCheckpoints)
	CountStoreCall(ctx, "retire", stores.OutcomeOf(err))
	return Translate(err)
}

// jobReader reads a job's state linearizably.
type jobReader interface {
	ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error)
}

// claimant refuses a call whose (epoch, owner) is not the job's standing
// claim, for the calls the store conditions on the epoch alone
// (stores.DecideClaimant says why one read decides it).
func claimant(ctx context.Context, r jobReader, job stores.JobID, epoch uint64, owner string) error {
	if owner == "" {
		return nil
	}
	st, err := r.ReadJob(ctx, job)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	if err != nil {
		return err
	}
	return stores.DecideClaimant(st, epoch, owner)
}
