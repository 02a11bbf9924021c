package zookeeper

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

var _ stores.Inventory = (*Store)(nil)

// ListJobs implements stores.Inventory; it syncs first. A job is the union
// of <root>/<cluster>/jobs/<job> (its state) and
// <root>/<cluster>/checkpoints/<job> (its keys; a fence may come before any
// claim).
func (s *Store) ListJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	if err := stores.ValidateCluster(cluster); err != nil {
		return nil, err
	}
	op := fmt.Sprintf("list jobs of cluster %s", cluster)
	if err := s.sync(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var jobs []stores.JobID
	seen := map[string]bool{}
	for _, dir := range []string{s.root + "/" + cluster + "/jobs", s.root + "/" + cluster + "/checkpoints"} {
		names, err := s.children(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		for _, name := range names {
			if seen[name] {
				continue
			}
			seen[name] = true
			job := stores.JobID{Cluster: cluster, Job: name}
			if err := job.Validate(); err != nil {
				// %v: the name is what the store holds, not the caller's
				// invalid input, so no ErrInvalid (Rejected) in the chain.
				return nil, fmt.Errorf("%s: node %s/%s is not a job: %v: %w", op, dir, name, err, stores.ErrCorruptState)
			}
			st, _, err := s.getJob(ctx, job)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			keys, err := s.children(ctx, s.checkpointsPath(job))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			if stores.JobKnown(st, len(keys)) {
				jobs = append(jobs, job)
			}
		}
	}
	return stores.SortJobs(jobs), nil
}

// children lists a node's children; a missing node has none.
func (s *Store) children(ctx context.Context, path string) ([]string, error) {
	names, err := call(ctx, func() ([]string, error) {
		names, _, err := s.conn.Children(path)
		return names, err
	})
	if err == zk.ErrNoNode {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", path, readError(err))
	}
	return names, nil
}

// ListEntries implements stores.Inventory; it syncs first.
func (s *Store) ListEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	if err := s.sync(ctx); err != nil {
		return nil, fmt.Errorf("list keys of %s: %w", job, err)
	}
	entries, _, err := s.snapshot(ctx, job)
	return entries, err
}

// Quarantine implements stores.Inventory: one compare-and-set of the key at
// the version read.
func (s *Store) Quarantine(ctx context.Context, id stores.CheckpointID, token string) error {
	return s.retombstone(ctx, fmt.Sprintf("quarantine checkpoint %s", id), id, token, stores.DecideQuarantine)
}

// Release implements stores.ReferenceStore: one compare-and-set of the key
// at the version read.
func (s *Store) Release(ctx context.Context, id stores.CheckpointID, token string) error {
	return s.retombstone(ctx, fmt.Sprintf("release checkpoint %s", id), id, token, stores.DecideRelease)
}

// retombstone rewrites a key of token as decide says.
func (s *Store) retombstone(ctx context.Context, op string, id stores.CheckpointID, token string,
	decide func(stores.Entry, string, time.Time) (*stores.Entry, error)) error {
	if err := stores.ValidateTokenKey(id, token); err != nil {
		return err
	}
	// Decided on the key alone, read at one moment.
	return s.writeKey(ctx, op, id, false, func(_ stores.JobState, cur stores.Entry, version int32) (any, error) {
		next, err := decide(cur, token, s.now())
		if err != nil || next == nil {
			return nil, err
		}
		return s.putEntry(id, *next, version)
	})
}
