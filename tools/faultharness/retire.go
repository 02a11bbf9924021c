package faultharness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

const (
	// drainTimeout bounds waiting for a job's finalizations before a
	// retirement that lets them end first.
	drainTimeout = 30 * time.Second
	// forgetSlack is how long past its grace and TTL a retired job may take
	// to be forgotten: passes fail while Temporal restarts, and a pass
	// takes its time on a loaded machine.
	forgetSlack = 3 * time.Minute
)

// retireAndReuse is a job manager done with its job: it retires the job
// and a new job manager claims the ID again above the old epochs. Half the
// retirements let the job's finalizations end first, half retire with
// them in flight. Half have the reconciler discard the checkpoints: the
// new manager waits until the reconciler has collected the tombstones and
// forgotten the job, and restarts checkpoint IDs at 1, as Flink does for a
// fresh submission under a fixed job ID. Half keep the checkpoints for the
// operator (retained): their records keep the job retired for good, so the
// new manager resubmits at once, as Flink's application mode does after a
// cancel, and its checkpoint IDs continue above the old ones. It returns
// false when the job was never forgotten: its manager gives up.
func (r *run) retireAndReuse(ctx context.Context, j *job) (bool, error) {
	j.life.Lock()
	defer j.life.Unlock()
	discard := j.rng.IntN(2) == 0
	if j.rng.IntN(2) == 0 {
		r.drain(ctx, j)
	}
	j.mu.Lock()
	epoch, inFlight := j.epoch, j.inFlight
	j.mu.Unlock()
	req := contract.RetireRequest{Cluster: j.id.Cluster, Job: j.id.Job, Epoch: epoch, Owner: ownerOf(j.id, epoch), DiscardCheckpoints: discard}
	err := pace.Retry(ctx, "retire "+j.id.String(), func(ctx context.Context) error { return j.lane.Client.Retire(ctx, req) }, definite)
	if err != nil {
		if ctx.Err() != nil {
			return false, err
		}
		r.violation("lifecycle", j.id.String(), "the job manager of epoch %d could not retire its job: %v", epoch, err)
		return r.give(j), nil
	}
	retiredAt := time.Now()
	j.mu.Lock()
	j.retired = append(j.retired, invariants.Retirement{UpTo: epoch, Discard: discard})
	j.mu.Unlock()
	r.countRetirement(discard, inFlight)
	r.cfg.Logger.Info("job retired", "job", j.id, "epoch", epoch, "discardCheckpoints", discard, "inFlight", inFlight)

	r.checkRetired(ctx, j, epoch)
	if !discard || r.keepsRecord(ctx, j) {
		return r.resubmit(ctx, j, epoch)
	}
	if !r.awaitForgotten(ctx, j, retiredAt) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return r.give(j), nil
	}
	r.probeStaleClaim(ctx, j, epoch)
	if err := r.claim(ctx, j); err != nil {
		if ctx.Err() != nil {
			return false, err
		}
		r.violation("lifecycle", j.id.String(), "forgotten at epoch %d, yet a claim above it failed: %v", epoch, err)
		return r.give(j), nil
	}
	j.mu.Lock()
	j.next = 1
	j.mu.Unlock()
	r.mu.Lock()
	r.rep.Lifecycle.ReusedIDs++
	r.mu.Unlock()
	r.cfg.Logger.Info("job ID reused", "job", j.id, "epoch", epoch+1)
	return true, nil
}

// resubmit claims a job retired at epoch, its checkpoints retained, again
// at once: a new incarnation, whose checkpoint IDs continue above every key
// the old one left (the claim's watermark). A claim at or below the retired
// epoch is then Rejected (stale epoch).
func (r *run) resubmit(ctx context.Context, j *job, epoch uint64) (bool, error) {
	if err := r.claim(ctx, j); err != nil {
		if ctx.Err() != nil {
			return false, err
		}
		r.violation("lifecycle", j.id.String(), "retired at epoch %d keeping its checkpoints, yet a resubmission above it failed: %v", epoch, err)
		return r.give(j), nil
	}
	js, err := j.lane.Checker().ReadJob(ctx, j.id)
	for err != nil && ctx.Err() == nil {
		pace.Sleep(ctx, 250*time.Millisecond)
		js, err = j.lane.Checker().ReadJob(ctx, j.id)
	}
	if err != nil {
		return false, err
	}
	j.mu.Lock()
	j.next = js.Watermark + 1
	j.mu.Unlock()
	r.probeStaleClaim(ctx, j, epoch)
	r.mu.Lock()
	r.rep.Lifecycle.ReusedIDs++
	r.mu.Unlock()
	r.cfg.Logger.Info("job ID resubmitted", "job", j.id, "epoch", epoch+1, "next", js.Watermark+1)
	return true, nil
}

// give marks a job whose manager gives up on it: stuck retired.
func (r *run) give(j *job) bool {
	j.mu.Lock()
	j.stuck = true
	j.mu.Unlock()
	r.mu.Lock()
	r.rep.Lifecycle.Stuck++
	r.mu.Unlock()
	return false
}

func (r *run) countRetirement(discard bool, inFlight int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := &r.rep.Lifecycle
	l.Retirements++
	l.InFlightAtRetirement += inFlight
	if discard {
		l.Discarding++
	} else {
		l.Retained++
	}
}

// drain waits a while for the job's finalizations to end.
func (r *run) drain(ctx context.Context, j *job) {
	deadline := time.Now().Add(drainTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		j.mu.Lock()
		n := j.inFlight
		j.mu.Unlock()
		if n == 0 {
			return
		}
		pace.Sleep(ctx, 100*time.Millisecond)
	}
}

// checkRetired checks that Retire is linearizable with publish: once it
// returned, the job holds no published reference, and none lands later
// (a publish that raced it landed before and was tombstoned, or was
// rejected). A reference still there a moment later is a violation.
func (r *run) checkRetired(ctx context.Context, j *job, epoch uint64) {
	for try := 0; ; try++ {
		refs, err := j.lane.Checker().List(ctx, j.id)
		if err != nil || len(refs) == 0 {
			return
		}
		if try == 2 {
			for _, e := range refs {
				r.violation("lifecycle", fmt.Sprintf("%s checkpoint %d", j.id, e.Checkpoint),
					"still published (%s) after Retire at epoch %d returned: a publish survived the retirement",
					invariants.DescribeEntry(e), epoch)
			}
			return
		}
		pace.Sleep(ctx, time.Second)
	}
}

// keepsRecord reports whether the retired job holds a kept record (a
// savepoint's tombstone, whatever the retirement said, or a retained
// one): no collection takes it, so the job stays retired for good and its
// job manager resubmits instead of waiting for it to be forgotten.
func (r *run) keepsRecord(ctx context.Context, j *job) bool {
	entries, err := j.lane.Checker().ListEntries(ctx, j.id)
	for err != nil && ctx.Err() == nil {
		pace.Sleep(ctx, 250*time.Millisecond)
		entries, err = j.lane.Checker().ListEntries(ctx, j.id)
	}
	for _, e := range entries {
		if e.Tombstone != nil && e.Tombstone.Kept() {
			return true
		}
	}
	return false
}

// awaitForgotten waits until the store no longer holds the job retired:
// the reconciler collected its tombstones and forgot it. A job still
// retired long past its grace and tombstone TTL is a violation.
func (r *run) awaitForgotten(ctx context.Context, j *job, retiredAt time.Time) bool {
	limit := r.cfg.TombstoneTTL + r.cfg.ReconcileGrace + forgetSlack
	for ctx.Err() == nil {
		js, err := j.lane.Checker().ReadJob(ctx, j.id)
		if err == nil && !js.Retired {
			waited := time.Since(retiredAt)
			r.mu.Lock()
			r.rep.Lifecycle.ForgetWaitTotal += waited
			r.rep.Lifecycle.ForgetWaitMax = max(r.rep.Lifecycle.ForgetWaitMax, waited)
			r.mu.Unlock()
			return true
		}
		if time.Since(retiredAt) > limit {
			r.violation("lifecycle", j.id.String(), "retired %s ago and still not forgotten (grace %s, tombstone TTL %s, a reconciler pass every %s); state %+v, read error %v",
				time.Since(retiredAt).Round(time.Second), r.cfg.ReconcileGrace, r.cfg.TombstoneTTL, r.cfg.ReconcileEvery, js, err)
			return false
		}
		pace.Sleep(ctx, 250*time.Millisecond)
	}
	return false
}

// probeStaleClaim has a job manager of the forgotten (or resubmitted)
// incarnation claim the reused ID at or below its last epoch: Rejected
// (stale epoch), or a violation, since a reused ID continues above the old
// epochs.
func (r *run) probeStaleClaim(ctx context.Context, j *job, last uint64) {
	epoch := last
	if last > 1 && j.rng.IntN(2) == 0 {
		epoch = 1 + uint64(j.rng.IntN(int(last-1)))
	}
	req := contract.ClaimRequest{Cluster: j.id.Cluster, Job: j.id.Job, Epoch: epoch, Owner: fmt.Sprintf("stale-%s-%d", j.id.Job, epoch)}
	err := pace.Retry(ctx, "stale claim", func(ctx context.Context) error { _, err := j.lane.Client.ClaimEpoch(ctx, req); return err }, definite)
	switch {
	case errors.Is(err, client.ErrStaleEpoch):
		r.mu.Lock()
		r.rep.Lifecycle.StaleClaimsRejected++
		r.mu.Unlock()
	case err == nil:
		r.violation("lifecycle", j.id.String(), "claim of epoch %d accepted after the job was forgotten at epoch %d: a reused ID must continue above the old epochs",
			epoch, last)
	case ctx.Err() == nil:
		r.violation("lifecycle", j.id.String(), "claim of epoch %d after the job was forgotten at epoch %d: %v, not Rejected (stale epoch)",
			epoch, last, err)
	}
}
