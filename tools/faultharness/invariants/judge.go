package invariants

import (
	"context"

	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// Judge is the invariant checks over what a run observed and what the
// store and the bucket hold: the harness's own run and Check, for runs
// outside the harness, both judge through it. What it finds goes to
// Violation; a read that failed until its context ended, to HarnessError.
type Judge struct {
	// Store is the HA store of the job's keys, read on a path no fault
	// touches.
	Store func(stores.JobID) stores.ReferenceStore
	// States and Bucket are the state bucket as it is: handles, and a
	// listing of every object.
	States *blobstate.Store
	Bucket *blob.Bucket
	Retain int
	// Incarnation returns the retirement that ended the incarnation of
	// the job's epoch (nil: no job was ever retired).
	Incarnation func(stores.JobID, uint64) (Retirement, bool)
	// Reported says whether the reconciler reported the handle blob and
	// kept it (nil: no reconciler report).
	Reported func(key string) bool
	// Within is appended to "did not end" (the wait that gave up).
	Within string

	Violation    func(inv, subject, format string, args ...any)
	HarnessError func(error)
}

// Retirement ends one incarnation of a job ID: the job manager retired
// the job at its last epoch; once the reconciler forgot it, a new job
// manager claims the ID above that epoch and restarts checkpoint IDs at 1,
// as Flink does for a fresh submission under a fixed job ID.
type Retirement struct {
	// UpTo is the incarnation's last epoch: every epoch at or below it
	// (down to the previous retirement's) is that incarnation's.
	UpTo uint64
	// Discard: the retirement asked the reconciler to discard the
	// checkpoints (DiscardCheckpoints); otherwise they are retained for
	// the operator, reported and never deleted.
	Discard bool
}

func (j *Judge) retired(id stores.JobID, epoch uint64) (Retirement, bool) {
	if j.Incarnation == nil {
		return Retirement{}, false
	}
	return j.Incarnation(id, epoch)
}

func (j *Judge) wasReported(key string) bool { return j.Reported != nil && j.Reported(key) }

// CheckJob reads the job's references and state, checks every reference
// (I1, shared: the job's shared file) and retention (I5: once subsumption
// settled, the newest Retain and the newest non-savepoint, nothing else).
// ok is false when the store could not be read.
func (j *Judge) CheckJob(ctx context.Context, job stores.JobID, shared string) (js stores.JobState, ok bool) {
	var refs []stores.Entry
	err := pace.Retry(ctx, "read job "+job.String(), func(ctx context.Context) (err error) {
		if refs, err = j.Store(job).List(ctx, job); err != nil {
			return err
		}
		js, err = j.Store(job).ReadJob(ctx, job)
		return err
	}, nil)
	if err != nil {
		j.HarnessError(err)
		return js, false
	}
	for _, e := range refs {
		j.CheckReference(ctx, e, job, shared)
	}
	if keep, remove := activities.RetentionPlan(refs, j.Retain); len(remove) > 0 {
		j.Violation("I5", job.String(), "%d references after settling, retention (retain %d) keeps %v only",
			len(refs), j.Retain, keep)
	}
	return js, true
}

// overRetention counts the references over the jobs' retention.
func (j *Judge) overRetention(ctx context.Context, jobs []stores.JobID) (int, error) {
	n := 0
	for _, job := range jobs {
		refs, err := j.Store(job).List(ctx, job)
		if err != nil {
			return 0, err
		}
		_, remove := activities.RetentionPlan(refs, j.Retain)
		n += len(remove)
	}
	return n, nil
}
