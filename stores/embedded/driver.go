package embedded

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// driver is the Store's stores.Driver: a Load is one read transaction, a
// Commit one write transaction that first checks that every byte the Load
// read is still there. bbolt runs one writer at a time, so the check and
// the write are one step.
type driver struct{ s *Store }

// revision is what a Load read, byte for byte: the job's state, then each
// key of the scope and its value (nil for a missing key).
type revision struct {
	scope stores.Scope
	bytes [][]byte
}

// view runs fn in one read transaction.
func (s *Store) view(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := s.db.View(fn); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Load implements stores.Driver.
func (d driver) Load(ctx context.Context, job stores.JobID, scope stores.Scope) (stores.Snapshot, error) {
	var snap stores.Snapshot
	err := d.s.view(ctx, "load", func(tx *bolt.Tx) error {
		var err error
		snap, err = load(tx, job, scope)
		return err
	})
	return snap, err
}

func load(tx *bolt.Tx, job stores.JobID, scope stores.Scope) (stores.Snapshot, error) {
	st, err := readJob(tx, job)
	if err != nil {
		return stores.Snapshot{}, err
	}
	snap := stores.Snapshot{Job: job, State: st}
	switch {
	case scope.All(st):
		snap.Entries, err = entries(tx, job)
	case scope.Key() != 0:
		var e stores.Entry
		e, err = readEntry(tx, stores.CheckpointID{JobID: job, Checkpoint: scope.Key()})
		snap.Entries = []stores.Entry{e}
	}
	if err != nil {
		return stores.Snapshot{}, err
	}
	snap.Revision = revision{scope, read(tx, job, scope, st)}
	return snap, nil
}

// read returns the bytes behind a snapshot of scope.
func read(tx *bolt.Tx, job stores.JobID, scope stores.Scope, st stores.JobState) [][]byte {
	rev := [][]byte{slices.Clone(tx.Bucket(jobsBucket).Get(jobKey(job)))}
	switch {
	case scope.All(st):
		prefix := jobKey(job)
		c := tx.Bucket(refsBucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			rev = append(rev, slices.Clone(k), slices.Clone(v))
		}
	case scope.Key() != 0:
		k := refKey(stores.CheckpointID{JobID: job, Checkpoint: scope.Key()})
		rev = append(rev, k, slices.Clone(tx.Bucket(refsBucket).Get(k)))
	}
	return rev
}

// Commit implements stores.Driver.
func (d driver) Commit(ctx context.Context, snap stores.Snapshot, c stores.Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := d.s.db.Update(func(tx *bolt.Tx) error {
		if !unchanged(tx, snap) {
			return stores.ErrRaced
		}
		if c.State != nil {
			if err := writeJob(tx, snap.Job, *c.State); err != nil {
				return err
			}
		}
		for _, n := range c.Drop {
			if err := tx.Bucket(refsBucket).Delete(refKey(stores.CheckpointID{JobID: snap.Job, Checkpoint: n})); err != nil {
				return err
			}
		}
		for _, e := range c.Put {
			if err := writeEntry(tx, snap.Job, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || err == stores.ErrRaced || stores.OutcomeOf(err) == stores.Rejected {
		return err
	}
	return stores.Unknownf(err, "commit")
}

// unchanged reports whether tx holds the bytes snap was decided on.
func unchanged(tx *bolt.Tx, snap stores.Snapshot) bool {
	was, ok := snap.Revision.(revision)
	if !ok {
		return false
	}
	return slices.EqualFunc(was.bytes, read(tx, snap.Job, was.scope, snap.State), bytes.Equal)
}

// Settle implements stores.Driver: a Load is one transaction, one moment.
func (driver) Settle(context.Context, stores.Snapshot) error { return nil }

var _ stores.Driver = driver{}
