package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
//
// The listing and the handles are read one after the other, and retention
// may remove a listed reference and delete its files in between: a handle
// missing then says nothing about the job. So an answer that is not
// resolved stands only if the listing read again afterwards is the same
// (references are removed before their files, and a checkpoint's key never
// holds a reference again once removed); otherwise the read starts over.
func (a *Activities) RestorePoint(ctx context.Context, in RestoreInput) (contract.RestorePoint, error) {
	if err := in.JobID.Validate(); err != nil {
		return contract.RestorePoint{}, Translate(err)
	}
	for range maxRestoreReads {
		rp, refs, err := a.readRestorePoint(ctx, in)
		if err != nil || rp.State == contract.RestoreResolved {
			return rp, Translate(err)
		}
		again, err := a.References.List(ctx, in.JobID)
		if err != nil {
			return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
		}
		if sameReferences(refs, again) {
			return rp, nil
		}
	}
	return contract.RestorePoint{}, Translate(fmt.Errorf("restore point of %s: %w", in.JobID, ErrReferencesChanging))
}

// maxRestoreReads bounds the reads of one RestorePoint whose listing
// changed under it; the activity's retry reads again later.
const maxRestoreReads = 8

// ErrReferencesChanging: the job's references changed during every read
// of its restore point (a publish and retention each time). Unknown: the
// read is repeated.
var ErrReferencesChanging = errors.New("the job's references changed during each read of its restore point")

// readRestorePoint is one read of the restore point, with the listing it
// rests on. Its error is not yet translated.
func (a *Activities) readRestorePoint(ctx context.Context, in RestoreInput) (contract.RestorePoint, []stores.Entry, error) {
	job, err := a.References.ReadJob(ctx, in.JobID)
	if err != nil {
		return contract.RestorePoint{}, nil, fmt.Errorf("restore point of %s: %w", in.JobID, err)
	}
	if in.Owner != "" && (!job.Claimed(in.Epoch) || job.Owner != in.Owner) {
		return contract.RestorePoint{}, nil, fmt.Errorf("restore point of %s: the claim of epoch %d by %q no longer stands (epoch %d by %q): %w",
			in.JobID, in.Epoch, in.Owner, job.Epoch, job.Owner, stores.ErrStaleEpoch)
	}
	refs, err := a.References.List(ctx, in.JobID)
	if err != nil {
		return contract.RestorePoint{}, nil, fmt.Errorf("restore point of %s: %w", in.JobID, err)
	}
	rp := contract.RestorePoint{Cluster: in.Cluster, Job: in.Job, Epoch: job.Epoch, Watermark: job.Watermark, State: contract.RestoreNone}
	for i := len(refs) - 1; i >= 0; i-- {
		c, problem, err := a.restoreCheckpoint(ctx, in.JobID, refs[i])
		if err != nil {
			return contract.RestorePoint{}, nil, fmt.Errorf("restore point of %s: %w", in.JobID, err)
		}
		if rp.Latest == nil {
			rp.Latest = c
			if problem == "" {
				rp.State = contract.RestoreResolved
				return rp, refs, nil
			}
			rp.State, rp.Dangling = contract.RestoreDangling, problem
			continue
		}
		if problem == "" {
			rp.Fallback = c
			break
		}
	}
	return rp, refs, nil
}

// sameReferences reports whether two listings hold the same references:
// the same checkpoints, each under the same token and handle.
func sameReferences(a, b []stores.Entry) bool {
	return slices.EqualFunc(a, b, func(x, y stores.Entry) bool {
		if x.Checkpoint != y.Checkpoint || (x.Reference == nil) != (y.Reference == nil) {
			return false
		}
		return x.Reference == nil || x.Reference.Token == y.Reference.Token && x.Reference.Handle == y.Reference.Handle
	})
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
