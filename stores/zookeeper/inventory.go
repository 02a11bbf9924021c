package zookeeper

import (
	"context"
	"fmt"

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
