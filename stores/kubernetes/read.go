package kubernetes

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// snapshotOf reads and decodes the job's ConfigMap with a quorum read.
func (s *Store) snapshotOf(ctx context.Context, op string, job stores.JobID) (*snapshot, error) {
	if err := s.checkOpen(op); err != nil {
		return nil, err
	}
	name, err := ConfigMapName(job)
	if err != nil {
		return nil, err
	}
	cm, err := s.get(ctx, name)
	if err != nil {
		return nil, failRead(op, err)
	}
	snap, err := newSnapshot(job, s.namespace, name, cm)
	if err != nil {
		return nil, decodeFailure(op, err)
	}
	return snap, nil
}

// Read implements stores.ReferenceStore.
func (s *Store) Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	if err := id.Validate(); err != nil {
		return stores.Entry{}, err
	}
	op := fmt.Sprintf("read %s", id)
	snap, err := s.snapshotOf(ctx, op, id.JobID)
	if err != nil {
		return stores.Entry{}, err
	}
	e, err := snap.entry(id.Checkpoint)
	if err != nil {
		return stores.Entry{}, decodeFailure(op, err)
	}
	return e, nil
}

// ReadJob implements stores.ReferenceStore.
func (s *Store) ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error) {
	if err := job.Validate(); err != nil {
		return stores.JobState{}, err
	}
	snap, err := s.snapshotOf(ctx, fmt.Sprintf("read job %s", job), job)
	if err != nil {
		return stores.JobState{}, err
	}
	return snap.state, nil
}

// List implements stores.ReferenceStore: published references only, in
// checkpoint order.
func (s *Store) List(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	op := fmt.Sprintf("list %s", job)
	snap, err := s.snapshotOf(ctx, op, job)
	if err != nil {
		return nil, err
	}
	all, err := snap.entries()
	if err != nil {
		return nil, decodeFailure(op, err)
	}
	var refs []stores.Entry
	for _, e := range all {
		if e.Reference != nil {
			refs = append(refs, e)
		}
	}
	return refs, nil
}
