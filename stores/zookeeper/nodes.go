package zookeeper

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// missing is the version of a node that does not exist: writing it means
// creating it.
const missing int32 = -1

func (s *Store) getJob(ctx context.Context, job stores.JobID) (stores.JobState, int32, error) {
	data, version, err := s.get(ctx, s.jobPath(job))
	if err != nil || version == missing {
		return stores.JobState{}, version, err
	}
	st, err := stores.DecodeJobState(data)
	return st, version, err
}

func (s *Store) getEntry(ctx context.Context, id stores.CheckpointID) (stores.Entry, int32, error) {
	data, version, err := s.get(ctx, s.keyPath(id))
	if err != nil || version == missing {
		return stores.Entry{Checkpoint: id.Checkpoint}, version, err
	}
	e, err := stores.DecodeEntry(id.Checkpoint, data)
	return e, version, err
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
	sort.Strings(children) // %019d: lexical order is checkpoint order
	entries := make([]stores.Entry, 0, len(children))
	versions := make(map[uint64]int32, len(children))
	for _, c := range children {
		n, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("list %s: unexpected node %q", dir, c)
		}
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

func (s *Store) encode(e stores.Entry) ([]byte, error) {
	return stores.EncodeEntry(e, s.maxValue)
}
