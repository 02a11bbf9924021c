package faultharness

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// writeCheckpoint writes checkpoint n of job into the state bucket as a
// job manager does (jobmanager.Files, in its jobmanager.CheckpointDir) and
// returns its request.
func (r *run) writeCheckpoint(ctx context.Context, job stores.JobID, epoch, n uint64, savepoint bool) (contract.FinalizeRequest, error) {
	return r.writeCheckpointAt(ctx, job, epoch, n, jobmanager.CheckpointDir(job, n), savepoint)
}

// writeCheckpointAt writes checkpoint n's files under dir, wherever that
// is (an adversarial request names a directory of its own choosing).
func (r *run) writeCheckpointAt(ctx context.Context, job stores.JobID, epoch, n uint64, dir string, savepoint bool) (contract.FinalizeRequest, error) {
	for _, f := range jobmanager.Files(job, n, dir) {
		if err := pace.Retry(ctx, "write "+f.Key, func(ctx context.Context) error {
			if err := r.w.Bucket().WriteAll(ctx, f.Key, f.Data, nil); err != nil {
				return fmt.Errorf("write %s: %w", f.Key, err)
			}
			return nil
		}, nil); err != nil {
			return contract.FinalizeRequest{}, err
		}
	}
	return checkpointRequest(job, epoch, n, dir, savepoint), nil
}

// ownerOf is the claimant of epoch of job: its job manager claims under
// it, and every request of that epoch names it.
func ownerOf(job stores.JobID, epoch uint64) string { return fmt.Sprintf("jm-%s-%d", job.Job, epoch) }

// checkpointRequest finalizes checkpoint n of job at epoch under its
// job manager's claim, its metadata and exclusive data under dir.
func checkpointRequest(job stores.JobID, epoch, n uint64, dir string, savepoint bool) contract.FinalizeRequest {
	return jobmanager.Request(job, epoch, ownerOf(job, epoch), n, dir, savepoint)
}
