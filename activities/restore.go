package activities

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RestoreInput names the job to read. With an Owner, the read is a claim's:
// it is refused (Rejected.StaleEpoch) unless (Epoch, Owner) still stands.
type RestoreInput struct {
	stores.JobID
	Epoch uint64 `json:"epoch,omitempty"`
	Owner string `json:"owner,omitempty"`
}

// RestorePoint reads the job's references newest first and follows each to
// its handle and metadata until one resolves. The store reads are
// linearizable, so the answer reflects every publish that completed before
// this activity started; after a claim, no older epoch can publish later.
func (a *Activities) RestorePoint(ctx context.Context, in RestoreInput) (contract.RestorePoint, error) {
	if err := in.JobID.Validate(); err != nil {
		return contract.RestorePoint{}, Translate(err)
	}
	job, err := a.References.ReadJob(ctx, in.JobID)
	if err != nil {
		return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
	}
	if in.Owner != "" && (!job.Claimed(in.Epoch) || job.Owner != in.Owner) {
		return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: the claim of epoch %d by %q no longer stands (epoch %d by %q): %w",
			in.JobID, in.Epoch, in.Owner, job.Epoch, job.Owner, stores.ErrStaleEpoch))
	}
	refs, err := a.References.List(ctx, in.JobID)
	if err != nil {
		return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
	}
	rp := contract.RestorePoint{Cluster: in.Cluster, Job: in.Job, Epoch: job.Epoch, Watermark: job.Watermark, State: contract.RestoreNone}
	for i := len(refs) - 1; i >= 0; i-- {
		c, problem, err := a.restoreCheckpoint(ctx, in.JobID, refs[i])
		if err != nil {
			return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
		}
		if rp.Latest == nil {
			rp.Latest = c
			if problem == "" {
				rp.State = contract.RestoreResolved
				return rp, nil
			}
			rp.State, rp.Dangling = contract.RestoreDangling, problem
			continue
		}
		if problem == "" {
			rp.Fallback = c
			break
		}
	}
	return rp, nil
}

// restoreCheckpoint resolves one published reference.
func (a *Activities) restoreCheckpoint(ctx context.Context, job stores.JobID, e stores.Entry) (*contract.RestoreCheckpoint, string, error) {
	c := &contract.RestoreCheckpoint{Checkpoint: e.Checkpoint, HandleKey: e.Reference.Handle, Savepoint: e.Reference.Savepoint}
	problem, h, err := Resolve(ctx, a.States, a.Layout, e.Reference.Handle)
	if err != nil {
		return nil, "", err
	}
	if h != nil && problem == "" && h.CheckpointID != (stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}) {
		// Recovering from it would restore another checkpoint's state.
		problem = contract.ProblemHandleForeign
	}
	if h != nil {
		c.Epoch, c.MetadataKey, c.MetadataSHA256 = h.Epoch, h.MetadataKey, h.MetadataSHA256
		c.ExclusivePrefix, c.Savepoint = h.ExclusivePrefix, h.Savepoint
		c.RestorePath = a.States.ObjectURL(h.MetadataKey)
	}
	return c, problem, nil
}
