package zookeeper

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimEpoch implements stores.ReferenceStore.
func (s *Store) ClaimEpoch(ctx context.Context, job stores.JobID, epoch uint64, owner string) error {
	if err := stores.ValidateClaim(job, epoch, owner); err != nil {
		return err
	}
	// The job node itself is created by the compare-and-set below.
	for _, p := range []string{path.Dir(s.jobPath(job)), s.checkpointsPath(job)} {
		if err := s.ensurePath(ctx, p); err != nil {
			return fmt.Errorf("claim epoch %d of %s: %w", epoch, job, err)
		}
	}
	op := fmt.Sprintf("claim epoch %d of %s", epoch, job)
	return s.casLoop(ctx, op, func() (bool, error) {
		cur, version, err := s.getJob(ctx, job)
		if err != nil {
			return false, err
		}
		var entries []stores.Entry
		if cur.Retired {
			// Every write to a key rewrites the job node too, so the
			// version below covers what this lists.
			if entries, _, err = s.getEntries(ctx, job); err != nil {
				return false, err
			}
		}
		next, err := stores.DecideClaim(cur, entries, epoch, owner)
		if err != nil || next == nil {
			return false, err
		}
		data, err := stores.EncodeJobState(*next)
		if err != nil {
			return false, err
		}
		return s.apply(ctx, op, s.put(s.jobPath(job), data, version))
	})
}

// Publish implements stores.ReferenceStore: one multi-op that checks the job
// node's version and creates or sets the checkpoint node.
func (s *Store) Publish(ctx context.Context, p stores.Publication) error {
	if err := p.Validate(); err != nil {
		return err
	}
	op := fmt.Sprintf("publish checkpoint %s attempt %d", p.CheckpointID, p.Reference.Attempt)
	return s.writeKey(ctx, op, p.CheckpointID, true, func(job stores.JobState, cur stores.Entry, version int32) (any, error) {
		next, err := stores.DecidePublish(job, cur, p)
		if err != nil || next == nil {
			return nil, err
		}
		return s.putEntry(p.CheckpointID, *next, version)
	})
}

// Verify implements stores.ReferenceStore: sync, read (casLoop syncs),
// and fence when the key does not hold the token.
func (s *Store) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	if err := stores.ValidateVerify(id, token, attempt); err != nil {
		return stores.VerdictUnknown, err
	}
	op := fmt.Sprintf("verify checkpoint %s attempt %d", id, attempt)
	var verdict stores.Verdict
	// Decided on the key alone, read at one moment.
	err := s.writeKey(ctx, op, id, false, func(_ stores.JobState, cur stores.Entry, version int32) (any, error) {
		var fence *stores.Entry
		verdict, fence = stores.DecideVerify(cur, token, attempt, s.now())
		if fence == nil {
			return nil, nil
		}
		return s.putEntry(id, *fence, version)
	})
	if err != nil {
		return stores.VerdictUnknown, err
	}
	return verdict, nil
}

// Subsume implements stores.ReferenceStore: the tombstone and the raised
// watermark land in one multi-op.
func (s *Store) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	if err := stores.ValidateIdentity(id, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("subsume checkpoint %s", id)
	return s.casLoop(ctx, op, func() (bool, error) {
		job, jobVersion, err := s.getJob(ctx, id.JobID)
		if err != nil {
			return false, err
		}
		cur, version, err := s.getEntry(ctx, id)
		if err != nil {
			return false, err
		}
		entry, next, err := stores.DecideSubsume(job, cur, id.Checkpoint, epoch, s.now())
		if err != nil || next == nil {
			return s.settled(ctx, id.JobID, jobVersion, err)
		}
		jobData, err := stores.EncodeJobState(*next)
		if err != nil {
			return false, err
		}
		ops := []any{&zk.SetDataRequest{Path: s.jobPath(id.JobID), Data: jobData, Version: jobVersion}}
		if entry != nil {
			data, err := s.encode(*entry)
			if err != nil {
				return false, err
			}
			ops = append(ops, s.put(s.keyPath(id), data, version))
		} else {
			ops = append(ops, &zk.CheckVersionRequest{Path: s.keyPath(id), Version: version})
		}
		return s.apply(ctx, op, ops...)
	})
}

// Retire implements stores.ReferenceStore.
func (s *Store) Retire(ctx context.Context, job stores.JobID, epoch uint64, keep bool) error {
	if err := stores.ValidateRetire(job, epoch); err != nil {
		return err
	}
	op := fmt.Sprintf("retire job %s", job)
	return s.casLoop(ctx, op, func() (bool, error) {
		st, jobVersion, err := s.getJob(ctx, job)
		if err != nil {
			return false, err
		}
		entries, versions, err := s.getEntries(ctx, job)
		if err != nil {
			return false, err
		}
		writes, next, err := stores.DecideRetire(st, entries, epoch, keep, s.now())
		if err != nil || next == nil {
			return s.settled(ctx, job, jobVersion, err)
		}
		jobData, err := stores.EncodeJobState(*next)
		if err != nil {
			return false, err
		}
		ops := []any{&zk.SetDataRequest{Path: s.jobPath(job), Data: jobData, Version: jobVersion}}
		for _, e := range writes {
			data, err := s.encode(e)
			if err != nil {
				return false, err
			}
			id := stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}
			ops = append(ops, s.put(s.keyPath(id), data, versions[e.Checkpoint]))
		}
		return s.apply(ctx, op, ops...)
	})
}

// CollectTombstones implements stores.ReferenceStore.
func (s *Store) CollectTombstones(ctx context.Context, job stores.JobID, olderThan time.Time) (int, error) {
	if err := job.Validate(); err != nil {
		return 0, err
	}
	op := fmt.Sprintf("collect tombstones of %s", job)
	var collected int
	err := s.casLoop(ctx, op, func() (bool, error) {
		st, jobVersion, err := s.getJob(ctx, job)
		if err != nil {
			return false, err
		}
		entries, versions, err := s.getEntries(ctx, job)
		if err != nil {
			return false, err
		}
		drop, next := stores.DecideCollect(st, entries, olderThan)
		collected = len(drop)
		if len(drop) == 0 && next == nil {
			return s.settled(ctx, job, jobVersion, nil)
		}
		// The job node's version pins the watermark and the keys the choice
		// was made against. A forgotten job's node is rewritten, never
		// deleted: a node created again would restart at version 0, and a
		// publish prepared against the old one could pass its version check.
		if next == nil {
			next = &st
		}
		touch, err := s.touchJob(job, *next, jobVersion)
		if err != nil {
			return false, err
		}
		ops := []any{touch}
		for _, n := range drop {
			id := stores.CheckpointID{JobID: job, Checkpoint: n}
			ops = append(ops, &zk.DeleteRequest{Path: s.keyPath(id), Version: versions[n]})
		}
		return s.apply(ctx, op, ops...)
	})
	if err != nil {
		return 0, err
	}
	return collected, nil
}

// CollectSubsumed implements stores.ReferenceStore: the key's delete and
// the job node's touch land in one multi-op, as every key write does.
func (s *Store) CollectSubsumed(ctx context.Context, id stores.CheckpointID, token string) error {
	if err := stores.ValidateTokenKey(id, token); err != nil {
		return err
	}
	op := fmt.Sprintf("collect the subsumed tombstone of checkpoint %s", id)
	return s.writeKey(ctx, op, id, true, func(job stores.JobState, cur stores.Entry, version int32) (any, error) {
		drop, err := stores.DecideCollectSubsumed(job, cur, token)
		if err != nil || !drop {
			return nil, err
		}
		return &zk.DeleteRequest{Path: s.keyPath(id), Version: version}, nil
	})
}

// writeKey is one compare-and-set of a checkpoint's key, the job node
// touched in the same multi-op as every key write is. decide gets the job
// and the key as read and returns the operation on the key, nil when there
// is nothing to write. onJob: the decision reads the job state too, so a
// decision without a write stands only once the job node is seen
// unchanged; otherwise it was made on the key alone, read at one moment.
func (s *Store) writeKey(ctx context.Context, op string, id stores.CheckpointID, onJob bool,
	decide func(job stores.JobState, cur stores.Entry, version int32) (any, error)) error {
	return s.casLoop(ctx, op, func() (bool, error) {
		job, jobVersion, err := s.getJob(ctx, id.JobID)
		if err != nil {
			return false, err
		}
		cur, version, err := s.getEntry(ctx, id)
		if err != nil {
			return false, err
		}
		write, err := decide(job, cur, version)
		switch {
		case (err != nil || write == nil) && onJob:
			return s.settled(ctx, id.JobID, jobVersion, err)
		case err != nil || write == nil:
			return false, err
		}
		touch, err := s.touchJob(id.JobID, job, jobVersion)
		if err != nil {
			return false, err
		}
		return s.apply(ctx, op, touch, write)
	})
}

// putEntry is the write of an entry at the key's version as read.
func (s *Store) putEntry(id stores.CheckpointID, e stores.Entry, version int32) (any, error) {
	data, err := s.encode(e)
	if err != nil {
		return nil, err
	}
	return s.put(s.keyPath(id), data, version), nil
}
