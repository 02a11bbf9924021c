package zookeeper

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Read implements stores.ReferenceStore; it syncs first.
func (s *Store) Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	if err := id.Validate(); err != nil {
		return stores.Entry{}, err
	}
	if err := s.sync(ctx); err != nil {
		return stores.Entry{}, fmt.Errorf("read checkpoint %s: %w", id, err)
	}
	// The job node too: a key of a job whose state is corrupt is not read
	// as if the job were sound, as every other backend reads them together.
	if _, _, err := s.getJob(ctx, id.JobID); err != nil {
		return stores.Entry{}, err
	}
	e, _, err := s.getEntry(ctx, id)
	return e, err
}

// ReadJob implements stores.ReferenceStore; it syncs first.
func (s *Store) ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error) {
	if err := job.Validate(); err != nil {
		return stores.JobState{}, err
	}
	if err := s.sync(ctx); err != nil {
		return stores.JobState{}, fmt.Errorf("read job %s: %w", job, err)
	}
	st, _, err := s.getJob(ctx, job)
	return st, err
}

// List implements stores.ReferenceStore; it syncs first.
func (s *Store) List(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	if err := s.sync(ctx); err != nil {
		return nil, fmt.Errorf("list references of %s: %w", job, err)
	}
	entries, _, err := s.snapshot(ctx, job)
	if err != nil {
		return nil, err
	}
	published := entries[:0]
	for _, e := range entries {
		if e.Reference != nil {
			published = append(published, e)
		}
	}
	return published, nil
}
