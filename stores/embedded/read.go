package embedded

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func (s *Store) view(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := s.db.View(fn); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Read implements stores.ReferenceStore.
func (s *Store) Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	if err := id.Validate(); err != nil {
		return stores.Entry{}, err
	}
	var e stores.Entry
	err := s.view(ctx, fmt.Sprintf("read checkpoint %s", id), func(tx *bolt.Tx) (err error) {
		e, err = readEntry(tx, id)
		return err
	})
	return e, err
}

// ReadJob implements stores.ReferenceStore.
func (s *Store) ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error) {
	if err := job.Validate(); err != nil {
		return stores.JobState{}, err
	}
	var st stores.JobState
	err := s.view(ctx, fmt.Sprintf("read job %s", job), func(tx *bolt.Tx) (err error) {
		st, err = readJob(tx, job)
		return err
	})
	return st, err
}

// List implements stores.ReferenceStore.
func (s *Store) List(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	var published []stores.Entry
	err := s.view(ctx, fmt.Sprintf("list references of %s", job), func(tx *bolt.Tx) error {
		all, err := entries(tx, job)
		for _, e := range all {
			if e.Reference != nil {
				published = append(published, e)
			}
		}
		return err
	})
	return published, err
}
