package stores

import (
	"context"
	"fmt"
	"time"
)

// The calls of ReferenceStore and Inventory, each a validation and one
// decision of decide.go mapped onto a Change.

// ClaimEpoch implements ReferenceStore. A retired job's keys are read, as
// only they matter there: a resubmission's claim looks for the records it
// keeps.
func (e *Engine) ClaimEpoch(ctx context.Context, job JobID, epoch uint64, owner string) error {
	if err := ValidateClaim(job, epoch, owner); err != nil {
		return err
	}
	op := fmt.Sprintf("claim epoch %d of %s", epoch, job)
	return e.mutate(ctx, op, job, KeysIfRetired(), false, func(snap Snapshot) (*Change, error) {
		next, err := DecideClaim(snap.State, snap.Entries, epoch, owner)
		if err != nil || next == nil {
			return nil, err
		}
		return &Change{State: next}, nil
	})
}

// Publish implements ReferenceStore.
func (e *Engine) Publish(ctx context.Context, p Publication) error {
	if err := p.Validate(); err != nil {
		return err
	}
	op := fmt.Sprintf("publish checkpoint %s attempt %d", p.CheckpointID, p.Reference.Attempt)
	return e.mutate(ctx, op, p.JobID, KeyOf(p.Checkpoint), false, func(snap Snapshot) (*Change, error) {
		next, err := DecidePublish(snap.State, snap.key(), p)
		if err != nil || next == nil {
			return nil, err
		}
		return &Change{Put: []Entry{*next}, LeaveFenceRoom: true}, nil
	})
}

// Verify implements ReferenceStore: a read of the key, and when it does not
// hold token a conditional write of the fence. Absent is answered only once
// the fence stands; it is decided on the key alone.
func (e *Engine) Verify(ctx context.Context, id CheckpointID, token string, attempt uint32) (Verdict, error) {
	if err := ValidateVerify(id, token, attempt); err != nil {
		return VerdictUnknown, err
	}
	op := fmt.Sprintf("verify checkpoint %s token %q attempt %d", id, token, attempt)
	var verdict Verdict
	err := e.mutate(ctx, op, id.JobID, KeyOf(id.Checkpoint), true, func(snap Snapshot) (*Change, error) {
		var fence *Entry
		verdict, fence = DecideVerify(snap.key(), token, attempt, time.Now())
		if fence == nil {
			return nil, nil
		}
		return &Change{Put: []Entry{*fence}}, nil
	})
	if err != nil {
		return VerdictUnknown, err
	}
	return verdict, nil
}

// Subsume implements ReferenceStore: the tombstone and the raised
// watermark land in one commit.
func (e *Engine) Subsume(ctx context.Context, id CheckpointID, epoch uint64) error {
	if err := ValidateIdentity(id, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("subsume checkpoint %s epoch %d", id, epoch)
	return e.mutate(ctx, op, id.JobID, KeyOf(id.Checkpoint), false, func(snap Snapshot) (*Change, error) {
		entry, next, err := DecideSubsume(snap.State, snap.key(), id.Checkpoint, epoch, time.Now())
		if err != nil || (entry == nil && next == nil) {
			return nil, err
		}
		c := &Change{State: next}
		if entry != nil {
			c.Put = []Entry{*entry}
		}
		return c, nil
	})
}

// Retire implements ReferenceStore: every tombstone and the retired job
// state land in one commit, so a retirement is never half done.
func (e *Engine) Retire(ctx context.Context, job JobID, epoch uint64, keep bool) error {
	if err := ValidateRetire(job, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("retire job %s epoch %d", job, epoch)
	return e.mutate(ctx, op, job, AllKeys(), false, func(snap Snapshot) (*Change, error) {
		writes, next, err := DecideRetire(snap.State, snap.Entries, epoch, keep, time.Now())
		if err != nil || next == nil {
			return nil, err
		}
		return &Change{State: next, Put: writes}, nil
	})
}

// CollectTombstones implements ReferenceStore. A retired job whose keys
// all go is forgotten in the same commit; its record stays (its epoch floor
// kept), so a new incarnation's claims continue above the old epochs and a
// write prepared against the old job never passes a check of the new one.
func (e *Engine) CollectTombstones(ctx context.Context, job JobID, olderThan time.Time) (int, error) {
	if err := job.Validate(); err != nil {
		return 0, err
	}
	op := fmt.Sprintf("collect tombstones of %s older than %s", job, olderThan.UTC().Format(time.RFC3339))
	collected := 0
	err := e.mutate(ctx, op, job, AllKeys(), false, func(snap Snapshot) (*Change, error) {
		drop, next := DecideCollect(snap.State, snap.Entries, olderThan)
		collected = len(drop)
		if len(drop) == 0 && next == nil {
			return nil, nil
		}
		return &Change{State: next, Drop: drop}, nil
	})
	if err != nil {
		return 0, err
	}
	return collected, nil
}

// CollectSubsumed implements ReferenceStore.
func (e *Engine) CollectSubsumed(ctx context.Context, id CheckpointID, token string) error {
	if err := ValidateTokenKey(id, token); err != nil {
		return err
	}
	op := fmt.Sprintf("collect the subsumed tombstone of checkpoint %s", id)
	return e.mutate(ctx, op, id.JobID, KeyOf(id.Checkpoint), false, func(snap Snapshot) (*Change, error) {
		drop, err := DecideCollectSubsumed(snap.State, snap.key(), token)
		if err != nil || !drop {
			return nil, err
		}
		return &Change{Drop: []uint64{id.Checkpoint}}, nil
	})
}

// Release implements ReferenceStore: the retired tombstone replaces the
// kept record in one commit.
func (e *Engine) Release(ctx context.Context, id CheckpointID, token string) error {
	return e.retombstone(ctx, fmt.Sprintf("release checkpoint %s token %q", id, token), id, token, DecideRelease)
}

// Quarantine implements Inventory: the tombstone replaces the reference in
// one commit.
func (e *Engine) Quarantine(ctx context.Context, id CheckpointID, token string) error {
	return e.retombstone(ctx, fmt.Sprintf("quarantine checkpoint %s token %q", id, token), id, token, DecideQuarantine)
}

// retombstone rewrites a key of token as decide says; it is decided on the
// key alone.
func (e *Engine) retombstone(ctx context.Context, op string, id CheckpointID, token string,
	decide func(Entry, string, time.Time) (*Entry, error)) error {
	if err := ValidateTokenKey(id, token); err != nil {
		return err
	}
	return e.mutate(ctx, op, id.JobID, KeyOf(id.Checkpoint), true, func(snap Snapshot) (*Change, error) {
		next, err := decide(snap.key(), token, time.Now())
		if err != nil || next == nil {
			return nil, err
		}
		return &Change{Put: []Entry{*next}}, nil
	})
}

// Read implements ReferenceStore.
func (e *Engine) Read(ctx context.Context, id CheckpointID) (Entry, error) {
	if err := id.Validate(); err != nil {
		return Entry{}, err
	}
	snap, err := e.read(ctx, fmt.Sprintf("read checkpoint %s", id), id.JobID, KeyOf(id.Checkpoint))
	if err != nil {
		return Entry{}, err
	}
	return snap.key(), nil
}

// ReadJob implements ReferenceStore.
func (e *Engine) ReadJob(ctx context.Context, job JobID) (JobState, error) {
	if err := job.Validate(); err != nil {
		return JobState{}, err
	}
	snap, err := e.read(ctx, fmt.Sprintf("read job %s", job), job, JobOnly())
	return snap.State, err
}

// List implements ReferenceStore: published references only, in
// checkpoint order.
func (e *Engine) List(ctx context.Context, job JobID) ([]Entry, error) {
	all, err := e.ListEntries(ctx, job)
	if err != nil {
		return nil, err
	}
	published := all[:0]
	for _, en := range all {
		if en.Reference != nil {
			published = append(published, en)
		}
	}
	return published, nil
}

// ListEntries implements ReferenceStore: every key of the job as of one
// moment.
func (e *Engine) ListEntries(ctx context.Context, job JobID) ([]Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	snap, err := e.read(ctx, fmt.Sprintf("list keys of %s", job), job, AllKeys())
	return snap.Entries, err
}
