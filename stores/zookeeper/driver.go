package zookeeper

import (
	"context"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// driver is the Store's stores.Driver. A Load syncs first, then reads the
// job node and the keys of the scope; a Commit is one multi-op that writes
// the job node at the version read together with the keys at theirs.
//
// The sync matters: a session's server may be a follower that lags behind
// the leader, and a rejection, or a write found already done, decided on
// its stale nodes would answer for a state the store had already left (a
// publish of a just claimed epoch Rejected as stale). The sync makes the
// reads after it see every write committed before it; a pass after a lost
// compare-and-set then also sees the write it lost to.
type driver struct{ s *Store }

// revision holds the versions a Load read: the job node's and each key's
// (missing for a key that was not there).
type revision struct {
	job  int32
	keys map[uint64]int32
}

// Load implements stores.Driver.
func (d driver) Load(ctx context.Context, job stores.JobID, scope stores.Scope) (stores.Snapshot, error) {
	s := d.s
	if err := s.sync(ctx); err != nil {
		return stores.Snapshot{}, err
	}
	st, version, err := s.getJob(ctx, job)
	if err != nil {
		return stores.Snapshot{}, err
	}
	snap := stores.Snapshot{Job: job, State: st}
	rev := revision{job: version, keys: map[uint64]int32{}}
	switch {
	case scope.All(st):
		// Every write to a key rewrites the job node too, so the job
		// node's version covers what this lists.
		snap.Entries, rev.keys, err = s.getEntries(ctx, job)
	case scope.Key() != 0:
		id := stores.CheckpointID{JobID: job, Checkpoint: scope.Key()}
		var e stores.Entry
		var v int32
		e, v, err = s.getEntry(ctx, id)
		snap.Entries, rev.keys[id.Checkpoint] = []stores.Entry{e}, v
	}
	if err != nil {
		return stores.Snapshot{}, err
	}
	snap.Revision = rev
	return snap, nil
}

// Commit implements stores.Driver. The job node is written in every
// commit, unchanged when the change leaves the state as read, so that its
// version moves with every change of the job: a retirement or a collection
// that read the keys before a new one appeared then fails its own version
// check, and an unchanged version proves that reads made in between saw
// one snapshot (creating a child alone would not change the parent's
// version). A forgotten job's node is rewritten, never deleted: a node
// created again would restart at version 0, and a write prepared against
// the old one could pass its version check.
func (d driver) Commit(ctx context.Context, snap stores.Snapshot, c stores.Change) error {
	s := d.s
	rev, ok := snap.Revision.(revision)
	if !ok {
		return fmt.Errorf("commit: a snapshot this store did not load: %w", stores.ErrInvalid)
	}
	if rev.job == missing {
		// The job node is created below; its parent and the keys' must be
		// there first.
		for _, p := range []string{path.Dir(s.jobPath(snap.Job)), s.checkpointsPath(snap.Job)} {
			if err := s.ensurePath(ctx, p); err != nil {
				return err
			}
		}
	}
	state := snap.State
	if c.State != nil {
		state = *c.State
	}
	data, err := stores.EncodeJobState(state)
	if err != nil {
		return err
	}
	ops := []any{s.put(s.jobPath(snap.Job), data, rev.job)}
	for _, n := range c.Drop {
		ops = append(ops, &zk.DeleteRequest{Path: s.keyPath(stores.CheckpointID{JobID: snap.Job, Checkpoint: n}), Version: rev.version(n)})
	}
	for _, e := range c.Put {
		data, err := stores.EncodeEntry(e, s.maxValue)
		if err != nil {
			return err
		}
		ops = append(ops, s.put(s.keyPath(stores.CheckpointID{JobID: snap.Job, Checkpoint: e.Checkpoint}), data, rev.version(e.Checkpoint)))
	}
	return s.apply(ctx, ops...)
}

// version is key n's version as read, missing when it was not there.
func (r revision) version(n uint64) int32 {
	if v, ok := r.keys[n]; ok {
		return v
	}
	return missing
}

// Settle implements stores.Driver: the job node still at the version read
// shows that nothing of the job changed since, so reads made in between
// were one snapshot.
func (d driver) Settle(ctx context.Context, snap stores.Snapshot) error {
	rev, ok := snap.Revision.(revision)
	if !ok {
		return fmt.Errorf("settle: a snapshot this store did not load: %w", stores.ErrInvalid)
	}
	_, now, err := d.s.get(ctx, d.s.jobPath(snap.Job))
	switch {
	case err != nil:
		return err
	case now != rev.job:
		return stores.ErrRaced
	}
	return nil
}

var _ stores.Driver = driver{}
