package embedded

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimEpoch implements stores.ReferenceStore.
func (s *Store) ClaimEpoch(ctx context.Context, job stores.JobID, epoch uint64, owner string) error {
	if err := stores.ValidateClaim(job, epoch, owner); err != nil {
		return err
	}
	return s.update(ctx, fmt.Sprintf("claim epoch %d of %s", epoch, job), func(tx *bolt.Tx) error {
		cur, err := readJob(tx, job)
		if err != nil {
			return err
		}
		var all []stores.Entry
		if cur.Retired {
			if all, err = entries(tx, job); err != nil {
				return err
			}
		}
		next, err := stores.DecideClaim(cur, all, epoch, owner)
		if err != nil || next == nil {
			return err
		}
		return writeJob(tx, job, *next)
	})
}

// Publish implements stores.ReferenceStore.
func (s *Store) Publish(ctx context.Context, p stores.Publication) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return s.update(ctx, fmt.Sprintf("publish checkpoint %s", p.CheckpointID), func(tx *bolt.Tx) error {
		job, cur, err := readKey(tx, p.CheckpointID)
		if err != nil {
			return err
		}
		next, err := stores.DecidePublish(job, cur, p)
		if err != nil || next == nil {
			return err
		}
		return writeEntry(tx, p.JobID, *next)
	})
}

// Verify implements stores.ReferenceStore.
func (s *Store) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	if err := stores.ValidateVerify(id, token, attempt); err != nil {
		return stores.VerdictUnknown, err
	}
	var verdict stores.Verdict
	err := s.update(ctx, fmt.Sprintf("verify checkpoint %s", id), func(tx *bolt.Tx) error {
		cur, err := readEntry(tx, id)
		if err != nil {
			return err
		}
		v, fence := stores.DecideVerify(cur, token, attempt, s.now())
		if fence != nil {
			if err := writeEntry(tx, id.JobID, *fence); err != nil {
				return err
			}
		}
		verdict = v
		return nil
	})
	if err != nil {
		return stores.VerdictUnknown, err
	}
	return verdict, nil
}

// Subsume implements stores.ReferenceStore.
func (s *Store) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	if err := stores.ValidateIdentity(id, epoch); err != nil {
		return err
	}
	return s.update(ctx, fmt.Sprintf("subsume checkpoint %s", id), func(tx *bolt.Tx) error {
		job, cur, err := readKey(tx, id)
		if err != nil {
			return err
		}
		entry, next, err := stores.DecideSubsume(job, cur, id.Checkpoint, epoch, s.now())
		if err != nil {
			return err
		}
		if entry != nil {
			if err := writeEntry(tx, id.JobID, *entry); err != nil {
				return err
			}
		}
		if next != nil {
			return writeJob(tx, id.JobID, *next)
		}
		return nil
	})
}

// Retire implements stores.ReferenceStore.
func (s *Store) Retire(ctx context.Context, job stores.JobID, epoch uint64, keep bool) error {
	if err := stores.ValidateRetire(job, epoch); err != nil {
		return err
	}
	return s.update(ctx, fmt.Sprintf("retire job %s", job), func(tx *bolt.Tx) error {
		st, err := readJob(tx, job)
		if err != nil {
			return err
		}
		all, err := entries(tx, job)
		if err != nil {
			return err
		}
		writes, next, err := stores.DecideRetire(st, all, epoch, keep, s.now())
		if err != nil || next == nil {
			return err
		}
		for _, e := range writes {
			if err := writeEntry(tx, job, e); err != nil {
				return err
			}
		}
		return writeJob(tx, job, *next)
	})
}

// CollectTombstones implements stores.ReferenceStore.
func (s *Store) CollectTombstones(ctx context.Context, job stores.JobID, olderThan time.Time) (int, error) {
	if err := job.Validate(); err != nil {
		return 0, err
	}
	var n int
	err := s.update(ctx, fmt.Sprintf("collect tombstones of %s", job), func(tx *bolt.Tx) error {
		st, err := readJob(tx, job)
		if err != nil {
			return err
		}
		all, err := entries(tx, job)
		if err != nil {
			return err
		}
		drop, next := stores.DecideCollect(st, all, olderThan)
		for _, id := range drop {
			if err := tx.Bucket(refsBucket).Delete(refKey(stores.CheckpointID{JobID: job, Checkpoint: id})); err != nil {
				return err
			}
		}
		n = len(drop)
		if next != nil {
			return writeJob(tx, job, *next)
		}
		return nil
	})
	return n, err
}

// CollectSubsumed implements stores.ReferenceStore.
func (s *Store) CollectSubsumed(ctx context.Context, id stores.CheckpointID, token string) error {
	if err := stores.ValidateTokenKey(id, token); err != nil {
		return err
	}
	return s.update(ctx, fmt.Sprintf("collect the subsumed tombstone of checkpoint %s", id), func(tx *bolt.Tx) error {
		job, cur, err := readKey(tx, id)
		if err != nil {
			return err
		}
		drop, err := stores.DecideCollectSubsumed(job, cur, token)
		if err != nil || !drop {
			return err
		}
		return tx.Bucket(refsBucket).Delete(refKey(id))
	})
}

// readKey reads a checkpoint's key and its job's state in one transaction.
func readKey(tx *bolt.Tx, id stores.CheckpointID) (stores.JobState, stores.Entry, error) {
	job, err := readJob(tx, id.JobID)
	if err != nil {
		return stores.JobState{}, stores.Entry{}, err
	}
	cur, err := readEntry(tx, id)
	return job, cur, err
}
