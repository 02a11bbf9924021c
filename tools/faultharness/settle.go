package faultharness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
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
	return r.checks().Leftovers(ctx, ids, r.byCheckpoint())
}

// byCheckpoint maps each checkpoint ID to its finalizations, adversarial
// ones included: every incarnation of a reused job ID has its own.
func (r *run) byCheckpoint() map[stores.CheckpointID][]invariants.Finalization {
	r.mu.Lock()
	all := append(append([]*finalization(nil), r.fins...), r.advs...)
	r.mu.Unlock()
	return invariants.ByCheckpoint(seenAll(all))
}
