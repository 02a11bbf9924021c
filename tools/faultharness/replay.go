package faultharness

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// replayable reports whether f is done with its key for good, so that a
// publish attempt of it can only be a zombie: a tombstone of its token
// stands (fenced, subsumed or retired), or it ended Discarded.
func (r *run) replayable(ctx context.Context, f *finalization) (stores.Entry, bool) {
	res, ended, _ := f.outcome()
	if !ended {
		return stores.Entry{}, false
	}
	var e stores.Entry
	err := pace.Retry(ctx, "read "+f.req.CheckpointID().String(), func(ctx context.Context) (err error) {
		e, err = r.laneOf(f.req.CheckpointID().JobID).Checker().Read(ctx, f.req.CheckpointID())
		return err
	}, nil)
	if err != nil {
		return e, false
	}
	fenced := e.Tombstone != nil && e.Tombstone.Token == f.req.Token()
	return e, fenced || res.Phase == contract.Discarded
}

// replay sends one stale publish attempt of f straight to the store, as a
// zombie activity on a cut-off worker would, and checks I6: Rejected, and
// the key's znode untouched.
func (r *run) replay(ctx context.Context, f *finalization, e stores.Entry, rng *rand.Rand) (bool, string) {
	upTo := uint32(1)
	if e.Tombstone != nil && e.Tombstone.FencedUpTo > 0 {
		upTo = e.Tombstone.FencedUpTo
	}
	attempt := 1 + uint32(rng.IntN(int(upTo)))
	res, _, _ := f.outcome()
	handle := res.HandleKey
	if handle == "" {
		handle = blobstate.Key(f.req.CheckpointID(), f.req.Epoch)
	}
	p := stores.Publication{CheckpointID: f.req.CheckpointID(), Epoch: f.req.Epoch, Owner: f.req.Owner,
		Reference: stores.Reference{Handle: handle, Token: f.req.Token(), Attempt: attempt, Savepoint: f.req.Savepoint}}

	lane := r.laneOf(p.CheckpointID.JobID)
	var before, after string
	if err := pace.Retry(ctx, "stat before replay", func(context.Context) (err error) {
		before, err = lane.KeyVersion(ctx, p.CheckpointID)
		return err
	}, nil); err != nil {
		r.harnessError(err)
		return false, ""
	}
	// An Unknown answer (the checker's own connection failed) says
	// nothing: replay until the store answers definitely.
	var err error
	_ = pace.Retry(ctx, "replay", func(ctx context.Context) error {
		err = lane.Checker().Publish(ctx, p)
		if stores.OutcomeOf(err) == stores.Unknown {
			return err
		}
		return nil
	}, nil)
	if rerr := pace.Retry(ctx, "stat after replay", func(context.Context) (err error) {
		after, err = lane.KeyVersion(ctx, p.CheckpointID)
		return err
	}, nil); rerr != nil {
		r.harnessError(rerr)
		return false, ""
	}

	outcome := stores.OutcomeOf(err)
	r.mu.Lock()
	r.rep.Replays.Performed++
	switch outcome {
	case stores.Rejected:
		r.rep.Replays.Rejected++
	case stores.Published:
		if before != after {
			r.rep.Replays.Landed++
		}
	}
	if before != after {
		r.rep.Replays.Changed++
	}
	r.mu.Unlock()

	detail := fmt.Sprintf("%s attempt %d: %s (%v)", f.req.CheckpointID(), attempt, outcome, err)
	switch {
	case before != after:
		r.violation("I6", f.subject(), "stale attempt %d replayed after the finalization ended %s: %s, and the key changed (%s -> %s)",
			attempt, res.Phase, outcome, before, after)
	case outcome != stores.Rejected && e.Tombstone != nil:
		r.violation("I6", f.subject(), "stale attempt %d replayed over a tombstone (%s up to %d): %s, not Rejected",
			attempt, e.Tombstone.Reason, e.Tombstone.FencedUpTo, outcome)
	}
	// A key that already held the reference (a naive discard after a
	// dropped reply) answers Published and changes nothing: I1 and I2
	// report that finalization, not I6.
	return true, detail
}

// staleReplay is the random phase's replay: one finished finalization
// whose key is done with it, chosen at random.
func (r *run) staleReplay(ctx context.Context, rng *rand.Rand) (int, string, error) {
	fins := r.finalizations()
	rng.Shuffle(len(fins), func(i, j int) { fins[i], fins[j] = fins[j], fins[i] })
	for i, f := range fins {
		if i == 20 {
			break // enough looking: most keys are fenced or subsumed
		}
		if e, ok := r.replayable(ctx, f); ok {
			done, detail := r.replay(ctx, f, e, rng)
			if done {
				return 1, detail, nil
			}
		}
	}
	return 0, "no finished finalization with a fence yet", nil
}

// replaySweep replays a stale attempt of every finalization done with its
// key, once the run has settled.
func (r *run) replaySweep(ctx context.Context, rng *rand.Rand) {
	for _, f := range r.finalizations() {
		if e, ok := r.replayable(ctx, f); ok {
			r.replay(ctx, f, e, rng)
		}
	}
}
