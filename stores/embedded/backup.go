package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrNotStore: a file is not an embedded store (not a bbolt file, a
// damaged one, or one without the store's buckets), so it must not be
// restored.
var ErrNotStore = errors.New("not an embedded store")

// Backup writes a consistent copy of the whole store file to w, in one
// read transaction: writers go on meanwhile, and the copy is the store as
// it was when the transaction began (bbolt's Tx.WriteTo). size, called
// before the first byte is written, receives the copy's length, so an
// HTTP response can announce it and its reader detect a truncated copy.
func (s *Store) Backup(ctx context.Context, w io.Writer, size func(int64)) (int64, error) {
	return backup(ctx, s.db, w, size)
}

// BackupFile is Backup of the store file at path when no worker has it
// open. A worker holding it fails the call with ErrLocked after
// LockTimeout: bbolt's lock is the process's own, so only that worker can
// copy it then (Backup).
func BackupFile(ctx context.Context, path string, w io.Writer, size func(int64)) (int64, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return 0, err
	}
	n, err := backup(ctx, db, w, size)
	return n, errors.Join(err, db.Close())
}

func backup(ctx context.Context, db *bolt.DB, w io.Writer, size func(int64)) (n int64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("back up embedded store: %w", err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		if size != nil {
			size(tx.Size())
		}
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("back up embedded store %s: %w", db.Path(), err)
	}
	return n, nil
}

// VerifyFile reports whether the file at path is an embedded store that can be
// restored: bbolt opens it, its consistency check passes, and it holds the
// store's buckets. Anything else is ErrNotStore.
func VerifyFile(path string) error {
	db, err := openReadOnly(path)
	if errors.Is(err, ErrLocked) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotStore, err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{jobsBucket, refsBucket} {
			if tx.Bucket(b) == nil {
				return fmt.Errorf("%s: no %q bucket: %w", path, b, ErrNotStore)
			}
		}
		var problems []error
		for err := range tx.Check() {
			problems = append(problems, err)
		}
		if len(problems) > 0 {
			return fmt.Errorf("%s: %w: %w", path, ErrNotStore, errors.Join(problems...))
		}
		return nil
	})
	return errors.Join(err, db.Close())
}

// openReadOnly opens path without creating or changing it. Read-only, bbolt
// takes a shared lock, which a worker's exclusive one blocks: ErrLocked
// after LockTimeout.
func openReadOnly(path string) (*bolt.DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: LockTimeout, ReadOnly: true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w (timed out after %s waiting for the file lock: stop the worker or back up through it)", path, ErrLocked, LockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("open embedded store %s: %w", path, err)
	}
	return db, nil
}

// EnsureUnlocked returns ErrLocked when a process holds a store file at
// path, nil when none does (or path is no store at all): renaming a copy
// over a file a worker holds would leave that worker writing to the
// replaced file, its publishes lost with it.
func EnsureUnlocked(path string) error {
	db, err := openReadOnly(path)
	if errors.Is(err, ErrLocked) {
		return err
	}
	if err != nil {
		return nil
	}
	return db.Close()
}
