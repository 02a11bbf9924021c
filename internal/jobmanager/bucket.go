// Package jobmanager plays the job manager's side of a checkpoint on a
// local bucket: it writes the checkpoint's files in Flink's layout, as the
// job manager does before it triggers a finalization, and builds the
// request that points at them. The dev mode's demo and the tests use it.
package jobmanager

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Bucket is a file:// bucket's directory.
type Bucket struct{ Dir string }

// URL is the bucket's gocloud URL.
func (b Bucket) URL() string { return "file://" + b.Dir }

// WriteCheckpoint writes checkpoint n of job: its metadata and a data file
// under <cluster>/<job>/chk-<n>/ (exclusive to it) and a file under
// <cluster>/<job>/shared/ that no checkpoint's discard may touch. It returns
// the request that finalizes the checkpoint at epoch, claimed by Owner(epoch).
func (b Bucket) WriteCheckpoint(job stores.JobID, epoch, n uint64, savepoint bool) (contract.FinalizeRequest, error) {
	prefix := fmt.Sprintf("%s/%s/chk-%d/", job.Cluster, job.Job, n)
	meta := []byte(fmt.Sprintf("metadata of %s checkpoint %d", job, n))
	files := []struct {
		key  string
		data []byte
	}{
		{prefix + "_metadata", meta},
		{prefix + "data-0", []byte("operator state")},
		{SharedKey(job), []byte("incremental state shared between checkpoints")},
	}
	for _, f := range files {
		if err := b.Write(f.key, f.data); err != nil {
			return contract.FinalizeRequest{}, err
		}
	}
	sum := sha256.Sum256(meta)
	return contract.FinalizeRequest{
		Cluster: job.Cluster, Job: job.Job, Epoch: epoch, Owner: Owner(epoch), Checkpoint: n,
		MetadataKey: prefix + "_metadata", MetadataSHA256: hex.EncodeToString(sum[:]),
		ExclusivePrefix: prefix, Savepoint: savepoint,
	}, nil
}

// Owner is the claimant of epoch the tests' job managers name ("jm-<epoch>").
func Owner(epoch uint64) string { return fmt.Sprintf("jm-%d", epoch) }

// DataKey is a data file exclusive to checkpoint n.
func DataKey(job stores.JobID, n uint64) string {
	return fmt.Sprintf("%s/%s/chk-%d/data-0", job.Cluster, job.Job, n)
}

// SharedKey is the job's shared file.
func SharedKey(job stores.JobID) string {
	return fmt.Sprintf("%s/%s/shared/sst-1", job.Cluster, job.Job)
}

// Write puts a file into the bucket.
func (b Bucket) Write(key string, data []byte) error {
	path := filepath.Join(b.Dir, key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

// Exists reports whether the bucket holds key.
func (b Bucket) Exists(key string) bool {
	_, err := os.Stat(filepath.Join(b.Dir, key))
	return err == nil
}
