package activities

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RestoreState says what a job manager can recover from.
type RestoreState string

const (
	// RestoreNone: the job has no published reference; start from scratch
	// (or from a savepoint the operator names).
	RestoreNone RestoreState = "none"
	// RestoreResolved: Latest is the newest published reference and its
	// handle and metadata resolve; recover from it.
	RestoreResolved RestoreState = "resolved"
	// RestoreDangling: the newest published reference does not resolve
	// (Dangling says why); Fallback, when set, is the newest one that does.
	// The caller decides: Flink would fail recovering from Latest.
	RestoreDangling RestoreState = "dangling"
)

// RestorePoint is the job's newest published reference, read linearizably
// after the call started, and whether it resolves.
type RestorePoint struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	// Epoch is the job's standing epoch when the references were read
	// (0 when never claimed).
	Epoch uint64       `json:"epoch"`
	State RestoreState `json:"state"`
	// Latest is the newest published reference (State resolved or dangling).
	Latest *RestoreCheckpoint `json:"latest,omitempty"`
	// Dangling is why Latest does not resolve: one of the Problem constants.
	Dangling string `json:"dangling,omitempty"`
	// Fallback is the newest reference older than Latest that resolves,
	// when Latest dangles and one does.
	Fallback *RestoreCheckpoint `json:"fallback,omitempty"`
}

// RestoreCheckpoint is one published checkpoint a job manager may recover
// from. Handle fields are empty when the handle itself could not be read.
type RestoreCheckpoint struct {
	Checkpoint uint64 `json:"checkpoint"`
	// Epoch is the epoch of the job manager that took the checkpoint.
	Epoch          uint64 `json:"epoch,omitempty"`
	MetadataKey    string `json:"metadataKey,omitempty"`
	MetadataSHA256 string `json:"metadataSha256,omitempty"`
	// ExclusivePrefix is the checkpoint's own directory in the bucket.
	ExclusivePrefix string `json:"exclusivePrefix,omitempty"`
	Savepoint       bool   `json:"savepoint,omitempty"`
	// HandleKey is the bucket key of the state handle the reference names.
	HandleKey string `json:"handleKey"`
	// RestorePath is the metadata file's URL in the state bucket, what
	// Flink's `-s` / execution.savepoint.path takes ("s3://b/c1/j1/chk-7/_metadata").
	RestorePath string `json:"restorePath,omitempty"`
}

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
func (a *Activities) RestorePoint(ctx context.Context, in RestoreInput) (RestorePoint, error) {
	if err := a.Layout.Serves(in.Cluster); err != nil {
		return RestorePoint{}, translate(err)
	}
	if err := in.JobID.Validate(); err != nil {
		return RestorePoint{}, translate(err)
	}
	job, err := a.References.ReadJob(ctx, in.JobID)
	if err != nil {
		return RestorePoint{}, translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
	}
	if in.Owner != "" && (!job.Claimed(in.Epoch) || job.Owner != in.Owner) {
		return RestorePoint{}, translate(fmt.Errorf("restore point of %s: the claim of epoch %d by %q no longer stands (epoch %d by %q): %w",
			in.JobID, in.Epoch, in.Owner, job.Epoch, job.Owner, stores.ErrStaleEpoch))
	}
	refs, err := a.References.List(ctx, in.JobID)
	if err != nil {
		return RestorePoint{}, translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
	}
	rp := RestorePoint{Cluster: in.Cluster, Job: in.Job, Epoch: job.Epoch, State: RestoreNone}
	for i := len(refs) - 1; i >= 0; i-- {
		c, problem, err := a.restoreCheckpoint(ctx, in.JobID, refs[i])
		if err != nil {
			return RestorePoint{}, translate(fmt.Errorf("restore point of %s: %w", in.JobID, err))
		}
		if rp.Latest == nil {
			rp.Latest = c
			if problem == "" {
				rp.State = RestoreResolved
				return rp, nil
			}
			rp.State, rp.Dangling = RestoreDangling, problem
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
func (a *Activities) restoreCheckpoint(ctx context.Context, job stores.JobID, e stores.Entry) (*RestoreCheckpoint, string, error) {
	c := &RestoreCheckpoint{Checkpoint: e.Checkpoint, HandleKey: e.Reference.Handle, Savepoint: e.Reference.Savepoint}
	problem, h, err := a.resolve(ctx, e.Reference.Handle)
	if err != nil {
		return nil, "", err
	}
	if h != nil && problem == "" && (h.CheckpointID != (stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}) || a.Layout.Check(*h) != nil) {
		// Recovering from it would restore another checkpoint's state.
		problem = ProblemHandleForeign
	}
	if h != nil {
		c.Epoch, c.MetadataKey, c.MetadataSHA256 = h.Epoch, h.MetadataKey, h.MetadataSHA256
		c.ExclusivePrefix, c.Savepoint = h.ExclusivePrefix, h.Savepoint
		c.RestorePath = a.States.ObjectURL(h.MetadataKey)
	}
	return c, problem, nil
}
