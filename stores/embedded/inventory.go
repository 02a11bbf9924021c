package embedded

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

var _ stores.Inventory = (*Store)(nil)

// ListJobs implements stores.Inventory: the job names under the cluster's
// prefix of both buckets, since a fence can exist before any claim.
func (s *Store) ListJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	if err := stores.ValidateCluster(cluster); err != nil {
		return nil, err
	}
	var jobs []stores.JobID
	err := s.view(ctx, fmt.Sprintf("list jobs of cluster %s", cluster), func(tx *bolt.Tx) error {
		prefix := []byte(cluster + "/")
		seen := map[string]bool{}
		for _, b := range [][]byte{jobsBucket, refsBucket} {
			c := tx.Bucket(b).Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				name, _, _ := strings.Cut(string(k[len(prefix):]), "/")
				job := stores.JobID{Cluster: cluster, Job: name}
				if err := ownKey(b, k, job); err != nil {
					return err
				}
				if seen[name] {
					continue
				}
				seen[name] = true
				st, err := readJob(tx, job)
				if err != nil {
					return err
				}
				all, err := entries(tx, job)
				if err != nil {
					return err
				}
				if stores.JobKnown(st, len(all)) {
					jobs = append(jobs, job)
				}
			}
		}
		return nil
	})
	return stores.SortJobs(jobs), err
}

// ownKey refuses a key under the cluster's prefix that this store did not
// write: a job key must be exactly jobKey (a reference key is checked by
// entries). Listing it as a job, or skipping it, would guess.
func ownKey(bucket, k []byte, job stores.JobID) error {
	if err := job.Validate(); err != nil {
		// %v: the name is what the store holds, not the caller's input, so
		// no ErrInvalid (Rejected) in the chain.
		return fmt.Errorf("%s key %q is not a job's: %v: %w", bucket, k, err, stores.ErrCorruptState)
	}
	if prefix := jobKey(job); !bytes.HasPrefix(k, prefix) || (bytes.Equal(bucket, jobsBucket) && len(k) != len(prefix)) {
		return fmt.Errorf("%s key %q is not a job's (want %q): %w", bucket, k, prefix, stores.ErrCorruptState)
	}
	return nil
}
