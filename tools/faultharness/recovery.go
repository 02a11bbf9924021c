package faultharness

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

// recover simulates each job's failover: a new job manager claims a new
// epoch through the finalizer, reads the job's newest reference and
// retrieves its handle and data, where Flink failed with "Could not
// retrieve checkpoint N from state handle".
func (r *run) recover(ctx context.Context) {
	for _, j := range r.all {
		if !j.active() {
			continue // stuck retired: reported under lifecycle
		}
		rec := Recovery{Job: j.id.String()}
		if err := r.claim(ctx, j); err != nil {
			rec.Error = err.Error()
			r.violation("recovery", j.id.String(), "claim a new epoch: %v", err)
			r.rep.Recovery = append(r.rep.Recovery, rec)
			continue
		}
		j.mu.Lock()
		rec.Epoch = j.epoch
		j.mu.Unlock()
		n, err := r.recoverJob(ctx, j)
		rec.Checkpoint = n
		if err != nil {
			rec.Error = err.Error()
			r.violation("recovery", j.id.String(), "%v", err)
		}
		// Nothing runs any more: the claim's answer is what the store holds.
		if answered := r.lastRestore(j).Latest; err == nil && (answered == nil) != (n == 0) || answered != nil && answered.Checkpoint != n {
			r.violation("recovery", j.id.String(), "the claim of epoch %d answered %+v; the store's newest reference is %d", rec.Epoch, answered, n)
		}
		r.rep.Recovery = append(r.rep.Recovery, rec)
	}
}

// recoverJob reads the newest reference and everything it points at.
func (r *run) recoverJob(ctx context.Context, j *job) (uint64, error) {
	job := j.id
	var refs []stores.Entry
	if err := pace.Retry(ctx, "list "+job.String(), func(ctx context.Context) (err error) {
		refs, err = r.laneOf(job).Checker().List(ctx, job)
		return err
	}, nil); err != nil {
		return 0, err
	}
	if len(refs) == 0 {
		for _, f := range r.finalizations() {
			_, past := j.retiredIncarnation(f.req.Epoch)
			if res, _, _ := f.outcome(); f.req.CheckpointID().JobID == job && res.Phase == contract.Published && !past {
				return 0, fmt.Errorf("no reference left, though checkpoint %d was published", f.req.Checkpoint)
			}
		}
		return 0, nil // never published anything: a fresh start is right
	}
	newest := refs[len(refs)-1]
	h, err := r.w.States().ReadKey(ctx, newest.Reference.Handle)
	if err != nil {
		return newest.Checkpoint, fmt.Errorf("could not retrieve checkpoint %d from state handle %s: %w", newest.Checkpoint, newest.Reference.Handle, err)
	}
	if err := r.w.States().CheckData(ctx, h); err != nil {
		return newest.Checkpoint, fmt.Errorf("could not retrieve checkpoint %d from state handle %s: %w", newest.Checkpoint, newest.Reference.Handle, err)
	}
	data := h.ExclusivePrefix + "data-0"
	var ok bool
	if err := pace.Retry(ctx, "stat "+data, func(ctx context.Context) (err error) {
		ok, err = invariants.BucketHas(ctx, r.w.Bucket(), data)
		return err
	}, nil); err != nil {
		return newest.Checkpoint, err
	}
	if !ok {
		return newest.Checkpoint, fmt.Errorf("could not retrieve checkpoint %d: data file %s is missing", newest.Checkpoint, data)
	}
	return newest.Checkpoint, nil
}
