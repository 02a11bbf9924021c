package faultharness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// closing has every job of the random phase finalize one more checkpoint
// at its current epoch once the faults healed, as a job manager keeps
// checkpointing. It also brings each job's coordinator up to its newest
// epoch: one that a leadership change deposed removes nothing until it
// hears of the new epoch, and retention could not settle without it.
func (r *run) closing(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(r.jobs))
	for _, j := range r.jobs {
		if !j.active() {
			continue // stuck retired: reported under lifecycle
		}
		r.rep.Closing++
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := r.checkpoint(ctx, j, false, 0)
			if err != nil {
				errs <- err
				return
			}
			f, err := r.trigger(ctx, req, "closing")
			if err != nil {
				errs <- err
				return
			}
			r.await(ctx, f)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return fmt.Errorf("closing checkpoint: %w", err)
	}
	return nil
}

// settle waits until retention and discards are done: every job within
// its retention and no state at rest without a reference, or ctx ends (the
// check then reports what is left).
func (r *run) settle(ctx context.Context) {
	for {
		leftovers, err := r.leftovers(ctx)
		if err == nil && leftovers == 0 {
			return
		}
		select {
		case <-ctx.Done():
			r.cfg.Logger.Warn("retention did not settle in time", "leftovers", leftovers, "error", err)
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// leftovers counts what settling still has to do: references over
// retention and checkpoints whose state lies without a reference.
func (r *run) leftovers(ctx context.Context) (int, error) {
	ids := make([]stores.JobID, 0, len(r.all))
	for _, j := range r.all {
		ids = append(ids, j.id)
	}
	return r.checks().leftovers(ctx, ids, r.byCheckpoint())
}

// leftovers counts the references over the jobs' retention and the
// checkpoints whose state lies without a reference.
func (j *judge) leftovers(ctx context.Context, jobs []stores.JobID, byID map[stores.CheckpointID][]*finalization) (int, error) {
	n, err := j.overRetention(ctx, jobs)
	if err != nil {
		return 0, err
	}
	orphans, _, err := j.orphans(ctx, byID)
	return n + len(orphans), err
}

// orphan is state at rest that no reference points at and nothing keeps.
type orphan struct {
	state  *stateAtRest
	entry  stores.Entry
	reason string
}

// orphans lists the checkpoints whose state lies in the bucket while their
// key holds no reference, apart from what is kept by design (see keptBy);
// kept counts those by why they stay. byID are the finalizations of each
// checkpoint.
func (j *judge) orphans(ctx context.Context, byID map[stores.CheckpointID][]*finalization) (leaks []orphan, kept map[string]int, err error) {
	states, err := scanBucket(ctx, j.bucket)
	if err != nil {
		return nil, nil, fmt.Errorf("scan the bucket: %w", err)
	}
	kept = map[string]int{}
	for id, s := range states {
		e, err := j.store(id.JobID).Read(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if e.Reference != nil {
			continue
		}
		why := j.keptBy(s, byID[id])
		reason := "no finalization known"
		switch {
		case why == keptRetained && !j.allReported(s):
			// Kept, but an operator must hear of it (I3).
			reason = "retained by its job's retirement, yet never reported by the reconciler"
		case why != "":
			kept[why]++
			continue
		case len(byID[id]) > 0:
			fins := byID[id]
			res, _, failure := fins[len(fins)-1].outcome()
			reason = "finalization " + outcomeName(res, failure)
		}
		leaks = append(leaks, orphan{state: s, entry: e, reason: reason})
	}
	return leaks, kept, nil
}

// byCheckpoint maps each checkpoint ID to its finalizations, adversarial
// ones included: every incarnation of a reused job ID has its own.
func (r *run) byCheckpoint() map[stores.CheckpointID][]*finalization {
	r.mu.Lock()
	all := append(append([]*finalization(nil), r.fins...), r.advs...)
	r.mu.Unlock()
	return byCheckpoint(all)
}

// byCheckpoint maps each checkpoint ID to its finalizations, in order.
func byCheckpoint(fins []*finalization) map[stores.CheckpointID][]*finalization {
	m := map[stores.CheckpointID][]*finalization{}
	for _, f := range fins {
		id := f.req.CheckpointID()
		m[id] = append(m[id], f)
	}
	return m
}
