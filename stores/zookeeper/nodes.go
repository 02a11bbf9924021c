package zookeeper

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// missing is the version of a node that does not exist: writing it means
// creating it.
const missing int32 = -1

// getJob reads the job node: the zero state when there is none (never
// claimed), ErrCorruptState naming the node when it holds anything the
// encoder did not write.
func (s *Store) getJob(ctx context.Context, job stores.JobID) (stores.JobState, int32, error) {
	path := s.jobPath(job)
	data, version, err := s.get(ctx, path)
	if err != nil || version == missing {
		return stores.JobState{}, version, err
	}
	st, err := stores.DecodeJobState(data)
	if err != nil {
		return stores.JobState{}, version, fmt.Errorf("job node %s: %w", path, err)
	}
	return st, version, nil
}

func (s *Store) getEntry(ctx context.Context, id stores.CheckpointID) (stores.Entry, int32, error) {
	path := s.keyPath(id)
	data, version, err := s.get(ctx, path)
	if err != nil || version == missing {
		return stores.Entry{Checkpoint: id.Checkpoint}, version, err
	}
	e, err := stores.DecodeEntry(id.Checkpoint, data)
	if err != nil {
		return stores.Entry{}, version, fmt.Errorf("key node %s: %w", path, err)
	}
	return e, version, nil
}

func (s *Store) get(ctx context.Context, path string) ([]byte, int32, error) {
	type node struct {
		data []byte
		stat *zk.Stat
	}
	n, err := call(ctx, func() (node, error) {
		data, stat, err := s.conn.Get(path)
		return node{data, stat}, err
	})
	if err == zk.ErrNoNode {
		return nil, missing, nil
	}
	if err != nil {
		return nil, missing, fmt.Errorf("read %s: %w", path, readError(err))
	}
	return n.data, n.stat.Version, nil
}

// getEntries returns every key of the job in checkpoint order, with the
// version of each.
func (s *Store) getEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, map[uint64]int32, error) {
	dir := s.checkpointsPath(job)
	children, err := call(ctx, func() ([]string, error) {
		children, _, err := s.conn.Children(dir)
		return children, err
	})
	if err == zk.ErrNoNode {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, readError(err))
	}
	ids := make([]uint64, 0, len(children))
	for _, c := range children {
		n, err := strconv.ParseUint(c, 10, 64)
		if err != nil || n == 0 || keyName(n) != c {
			// Another program's node, or a key spelt as we never spell
			// one: skipping it could hide a reference, reading it as
			// another key could alias one.
			return nil, nil, fmt.Errorf("list %s: node %q is not a checkpoint key (%%019d of an ID from 1): %w", dir, c, stores.ErrCorruptState)
		}
		ids = append(ids, n)
	}
	// Numeric order: IDs of 20 digits sort lexically before 19-digit ones.
	slices.Sort(ids)
	entries := make([]stores.Entry, 0, len(ids))
	versions := make(map[uint64]int32, len(ids))
	for _, n := range ids {
		e, v, err := s.getEntry(ctx, stores.CheckpointID{JobID: job, Checkpoint: n})
		if err != nil {
			return nil, nil, err
		}
		if v == missing { // collected between the listing and the read
			continue
		}
		entries = append(entries, e)
		versions[n] = v
	}
	return entries, versions, nil
}

// put writes data at path if the node is still at version; a missing node
// is created, and the create fails if it appeared meanwhile.
func (s *Store) put(path string, data []byte, version int32) any {
	if version == missing {
		return &zk.CreateRequest{Path: path, Data: data, Acl: s.acl}
	}
	return &zk.SetDataRequest{Path: path, Data: data, Version: version}
}
