package faultharness

import (
	"context"
	"fmt"

	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// judge is the invariant checks over what a run observed and what the
// store and the bucket hold: the harness's own run (check.go) and Check,
// for runs outside the harness (observed.go), both judge through it.
type judge struct {
	// store is the HA store of the job's keys, read on a path no fault
	// touches.
	store func(stores.JobID) stores.ReferenceStore
	// states and bucket are the state bucket as it is: handles, and a
	// listing of every object.
	states *blobstate.Store
	bucket *blob.Bucket
	retain int
	// incarnation returns the retirement that ended the incarnation of
	// the job's epoch (nil: no job was ever retired).
	incarnation func(stores.JobID, uint64) (retirement, bool)
	// reported says whether the reconciler reported the handle blob and
	// kept it (nil: no reconciler report).
	reported func(key string) bool
	// within is appended to "did not end" (the wait that gave up).
	within string

	violation    func(inv, subject, format string, args ...any)
	harnessError func(error)
}

// checks is the run's judge: its stores per lane, its retirements and the
// reconciler's reports.
func (r *run) checks() *judge {
	return &judge{
		store:  func(id stores.JobID) stores.ReferenceStore { return r.laneOf(id).Checker() },
		states: r.w.States(), bucket: r.w.Bucket(), retain: r.cfg.Retain,
		incarnation: func(id stores.JobID, epoch uint64) (retirement, bool) {
			return r.jobOf(id).retiredIncarnation(epoch)
		},
		reported: func(key string) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.kept[key] != ""
		},
		within:       fmt.Sprintf(" within the settle timeout (%s)", r.cfg.SettleTimeout),
		violation:    r.violation,
		harnessError: r.harnessError,
	}
}

func (j *judge) retired(id stores.JobID, epoch uint64) (retirement, bool) {
	if j.incarnation == nil {
		return retirement{}, false
	}
	return j.incarnation(id, epoch)
}

func (j *judge) wasReported(key string) bool { return j.reported != nil && j.reported(key) }

// checkJob reads the job's references and state, checks every reference
// (I1, shared: the job's shared file) and retention (I5: once subsumption
// settled, the newest Retain and the newest non-savepoint, nothing else).
// ok is false when the store could not be read.
func (j *judge) checkJob(ctx context.Context, job stores.JobID, shared string) (js stores.JobState, ok bool) {
	var refs []stores.Entry
	err := pace.Retry(ctx, "read job "+job.String(), func(ctx context.Context) (err error) {
		if refs, err = j.store(job).List(ctx, job); err != nil {
			return err
		}
		js, err = j.store(job).ReadJob(ctx, job)
		return err
	}, nil)
	if err != nil {
		j.harnessError(err)
		return js, false
	}
	for _, e := range refs {
		j.checkReference(ctx, e, job, shared)
	}
	if keep, remove := workflows.RetentionPlan(refs, j.retain); len(remove) > 0 {
		j.violation("I5", job.String(), "%d references after settling, retention (retain %d) keeps %v only",
			len(refs), j.retain, keep)
	}
	return js, true
}

// overRetention counts the references over the jobs' retention.
func (j *judge) overRetention(ctx context.Context, jobs []stores.JobID) (int, error) {
	n := 0
	for _, job := range jobs {
		refs, err := j.store(job).List(ctx, job)
		if err != nil {
			return 0, err
		}
		_, remove := workflows.RetentionPlan(refs, j.retain)
		n += len(remove)
	}
	return n, nil
}
