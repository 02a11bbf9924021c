package kubernetes

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Each operation validates its input, then hands one decision function of
// package stores to mutate. The decisions carry the semantics; this file
// only maps their answers onto a change of the ConfigMap.

// ClaimEpoch implements stores.ReferenceStore.
func (s *Store) ClaimEpoch(ctx context.Context, job stores.JobID, epoch uint64, owner string) error {
	if err := stores.ValidateClaim(job, epoch, owner); err != nil {
		return err
	}
	op := fmt.Sprintf("claim epoch %d of %s", epoch, job)
	return s.mutate(ctx, op, job, serverFits, func(snap *snapshot) (*change, error) {
		var entries []stores.Entry
		if snap.state.Retired {
			var err error
			if entries, err = snap.entries(); err != nil {
				return nil, decodeFailure(op, err)
			}
		}
		next, err := stores.DecideClaim(snap.state, entries, epoch, owner)
		if err != nil || next == nil {
			return nil, err
		}
		return &change{state: next}, nil
	})
}

// Publish implements stores.ReferenceStore. It must leave FenceReserve
// bytes free in the ConfigMap.
func (s *Store) Publish(ctx context.Context, p stores.Publication) error {
	if err := p.Validate(); err != nil {
		return err
	}
	op := fmt.Sprintf("publish %s attempt %d", p.CheckpointID, p.Reference.Attempt)
	return s.mutate(ctx, op, p.JobID, publishFits, func(snap *snapshot) (*change, error) {
		cur, err := snap.entry(p.Checkpoint)
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		next, err := stores.DecidePublish(snap.state, cur, p)
		if err != nil || next == nil {
			return nil, err
		}
		return &change{put: []stores.Entry{*next}}, nil
	})
}

// Verify implements stores.ReferenceStore: a quorum read, and when the key
// does not hold token a conditional write of the fence. Absent is answered
// only once the fence stands.
func (s *Store) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	if err := stores.ValidateVerify(id, token, attempt); err != nil {
		return stores.VerdictUnknown, err
	}
	op := fmt.Sprintf("verify %s token %q attempt %d", id, token, attempt)
	var verdict stores.Verdict
	err := s.mutate(ctx, op, id.JobID, serverFits, func(snap *snapshot) (*change, error) {
		cur, err := snap.entry(id.Checkpoint)
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		var fence *stores.Entry
		verdict, fence = stores.DecideVerify(cur, token, attempt, time.Now())
		if fence == nil {
			return nil, nil
		}
		return &change{put: []stores.Entry{*fence}}, nil
	})
	if err != nil {
		return stores.VerdictUnknown, err
	}
	return verdict, nil
}

// Subsume implements stores.ReferenceStore: the tombstone and the raised
// watermark land in one Update.
func (s *Store) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	if err := stores.ValidateIdentity(id, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("subsume %s epoch %d", id, epoch)
	return s.mutate(ctx, op, id.JobID, serverFits, func(snap *snapshot) (*change, error) {
		cur, err := snap.entry(id.Checkpoint)
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		entry, next, err := stores.DecideSubsume(snap.state, cur, id.Checkpoint, epoch, time.Now())
		if err != nil || (entry == nil && next == nil) {
			return nil, err
		}
		c := &change{state: next}
		if entry != nil {
			c.put = []stores.Entry{*entry}
		}
		return c, nil
	})
}

// Retire implements stores.ReferenceStore: every tombstone and the retired
// job state land in one Update, so a retirement is never half done.
func (s *Store) Retire(ctx context.Context, job stores.JobID, epoch uint64, keep bool) error {
	if err := stores.ValidateRetire(job, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("retire %s epoch %d", job, epoch)
	return s.mutate(ctx, op, job, serverFits, func(snap *snapshot) (*change, error) {
		entries, err := snap.entries()
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		writes, next, err := stores.DecideRetire(snap.state, entries, epoch, keep, time.Now())
		if err != nil || next == nil {
			return nil, err
		}
		return &change{state: next, put: writes}, nil
	})
}

// CollectTombstones implements stores.ReferenceStore. A retired job whose
// keys all go is forgotten by resetting its annotations to the forgotten
// state (its epoch floor kept) in the same Update; the ConfigMap stays, so
// the store never needs the delete verb and a new incarnation's claims
// continue above the old epochs.
func (s *Store) CollectTombstones(ctx context.Context, job stores.JobID, olderThan time.Time) (int, error) {
	if err := job.Validate(); err != nil {
		return 0, err
	}
	op := fmt.Sprintf("collect tombstones of %s older than %s", job, olderThan.UTC().Format(time.RFC3339))
	collected := 0
	err := s.mutate(ctx, op, job, serverFits, func(snap *snapshot) (*change, error) {
		collected = 0
		entries, err := snap.entries()
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		drop, next := stores.DecideCollect(snap.state, entries, olderThan)
		if snap.cm == nil || (len(drop) == 0 && next == nil) {
			return nil, nil
		}
		c := &change{drop: drop, state: next}
		collected = len(drop)
		return c, nil
	})
	if err != nil {
		return 0, err
	}
	return collected, nil
}

// CollectSubsumed implements stores.ReferenceStore: the key leaves the
// ConfigMap in one Update conditional on what was read.
func (s *Store) CollectSubsumed(ctx context.Context, id stores.CheckpointID, token string) error {
	if err := stores.ValidateTokenKey(id, token); err != nil {
		return err
	}
	op := fmt.Sprintf("collect the subsumed tombstone of %s", id)
	return s.mutate(ctx, op, id.JobID, serverFits, func(snap *snapshot) (*change, error) {
		cur, err := snap.entry(id.Checkpoint)
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		drop, err := stores.DecideCollectSubsumed(snap.state, cur, token)
		if err != nil || !drop {
			return nil, err
		}
		return &change{drop: []uint64{id.Checkpoint}}, nil
	})
}
