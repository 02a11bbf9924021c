package embedded

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// MaxValueSize keeps values within what the ZooKeeper and Kubernetes
// backends accept, so a reference valid here is valid everywhere.
const MaxValueSize = 1 << 20

// LockTimeout bounds how long Open waits for another process's lock.
const LockTimeout = time.Second

// ErrLocked: another process holds the store file.
var ErrLocked = errors.New("embedded store is locked by another process")

var (
	jobsBucket = []byte("jobs")
	refsBucket = []byte("references")
)

// Store is the embedded reference store: the stores.Engine over one bbolt
// file.
type Store struct {
	*stores.Engine
	db *bolt.DB
}

var _ stores.ReferenceStore = (*Store)(nil)

// Open opens or creates the store file at path.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, &stores.InvalidError{Field: "path", Rule: "must not be empty"}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: LockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open embedded store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{jobsBucket, refsBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("initialise embedded store %s: %w", path, err), db.Close())
	}
	s := &Store{db: db}
	s.Engine = stores.NewEngine(driver{s}, 0)
	return s, nil
}

// Close releases the file and its lock.
func (s *Store) Close() error { return s.db.Close() }

func jobKey(job stores.JobID) []byte { return []byte(job.Cluster + "/" + job.Job + "/") }

func refKey(id stores.CheckpointID) []byte {
	return fmt.Appendf(jobKey(id.JobID), "%019d", id.Checkpoint)
}

// readJob reads the job's state: the zero state when there is none (never
// claimed), ErrCorruptState naming the key when it holds anything the
// encoder did not write.
func readJob(tx *bolt.Tx, job stores.JobID) (stores.JobState, error) {
	b := tx.Bucket(jobsBucket).Get(jobKey(job))
	if b == nil {
		return stores.JobState{}, nil
	}
	st, err := stores.DecodeJobState(b)
	if err != nil {
		return stores.JobState{}, fmt.Errorf("%s key %q: %w", jobsBucket, jobKey(job), err)
	}
	return st, nil
}

func writeJob(tx *bolt.Tx, job stores.JobID, st stores.JobState) error {
	b, err := stores.EncodeJobState(st)
	if err != nil {
		return err
	}
	return tx.Bucket(jobsBucket).Put(jobKey(job), b)
}

// readEntry reads one key, refusing it while its job's state is corrupt:
// every backend reads a key with its job's state, so no call decides on a
// key of a job it could not read.
func readEntry(tx *bolt.Tx, id stores.CheckpointID) (stores.Entry, error) {
	if _, err := readJob(tx, id.JobID); err != nil {
		return stores.Entry{}, err
	}
	b := tx.Bucket(refsBucket).Get(refKey(id))
	if b == nil {
		return stores.Entry{Checkpoint: id.Checkpoint}, nil
	}
	e, err := stores.DecodeEntry(id.Checkpoint, b)
	if err != nil {
		return stores.Entry{}, fmt.Errorf("%s key %q: %w", refsBucket, refKey(id), err)
	}
	return e, nil
}

func writeEntry(tx *bolt.Tx, job stores.JobID, e stores.Entry) error {
	b, err := stores.EncodeEntry(e, MaxValueSize)
	if err != nil {
		return err
	}
	return tx.Bucket(refsBucket).Put(refKey(stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}), b)
}

// entries returns every key of the job, published or tombstone, in
// checkpoint order (numeric: keys of 20-digit IDs sort lexically first).
// Like readEntry it refuses the keys of a job whose state is corrupt.
func entries(tx *bolt.Tx, job stores.JobID) ([]stores.Entry, error) {
	if _, err := readJob(tx, job); err != nil {
		return nil, err
	}
	prefix := jobKey(job)
	var out []stores.Entry
	c := tx.Bucket(refsBucket).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		id, err := strconv.ParseUint(string(k[len(prefix):]), 10, 64)
		if err != nil || id == 0 || !bytes.Equal(k, refKey(stores.CheckpointID{JobID: job, Checkpoint: id})) {
			// Skipping it could hide a reference; reading it as another
			// key could alias one.
			return nil, fmt.Errorf("%s key %q is not a checkpoint key of %s: %w", refsBucket, k, job, stores.ErrCorruptState)
		}
		e, err := stores.DecodeEntry(id, v)
		if err != nil {
			return nil, fmt.Errorf("%s key %q: %w", refsBucket, k, err)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b stores.Entry) int { return cmp.Compare(a.Checkpoint, b.Checkpoint) })
	return out, nil
}
