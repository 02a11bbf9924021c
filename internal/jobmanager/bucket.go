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
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Bucket is a file:// bucket's directory.
type Bucket struct{ Dir string }

// URL is the bucket's gocloud URL.
func (b Bucket) URL() string { return "file://" + b.Dir }

// WriteCheckpoint writes checkpoint n of job (Files, in its CheckpointDir)
// and returns the request that finalizes it at epoch, claimed by
// Owner(epoch).
func (b Bucket) WriteCheckpoint(job stores.JobID, epoch, n uint64, savepoint bool) (contract.FinalizeRequest, error) {
	dir := CheckpointDir(job, n)
	for _, f := range Files(job, n, dir) {
		if err := b.Write(f.Key, f.Data); err != nil {
			return contract.FinalizeRequest{}, err
		}
	}
	return Request(job, epoch, Owner(epoch), n, dir, savepoint), nil
}

// File is one object a job manager writes for a checkpoint.
type File struct {
	Key  string
	Data []byte
}

// Files are checkpoint n's objects: its metadata and a data file under dir
// (exclusive to it), and the job's shared file, which no checkpoint's
// discard may touch. The metadata is the same for every incarnation of the
// job ID.
func Files(job stores.JobID, n uint64, dir string) []File {
	return []File{
		{dir + "_metadata", metadata(job, n)},
		{dir + "data-0", []byte("operator state")},
		{SharedKey(job), []byte("incremental state shared between checkpoints")},
	}
}

func metadata(job stores.JobID, n uint64) []byte {
	return []byte(fmt.Sprintf("metadata of %s checkpoint %d", job, n))
}

// Request finalizes checkpoint n of job at epoch under owner, its files
// (Files) under dir.
func Request(job stores.JobID, epoch uint64, owner string, n uint64, dir string, savepoint bool) contract.FinalizeRequest {
	sum := sha256.Sum256(metadata(job, n))
	return contract.FinalizeRequest{
		Cluster: job.Cluster, Job: job.Job, Epoch: epoch, Owner: owner, Checkpoint: n,
		MetadataKey: dir + "_metadata", MetadataSHA256: hex.EncodeToString(sum[:]),
		ExclusivePrefix: dir, Savepoint: savepoint,
	}
}

// CheckpointDir is checkpoint n's directory in Flink's layout, the one a
// worker whose clusters keep their checkpoints under their own names
// derives (blobstate.Layout): <cluster>/<job>/chk-<n>/.
func CheckpointDir(job stores.JobID, n uint64) string {
	dir, err := blobstate.Layout{}.CheckpointDir(stores.CheckpointID{JobID: job, Checkpoint: n})
	if err != nil {
		panic(fmt.Sprintf("jobmanager: %v", err)) // every cluster is served by the zero layout
	}
	return dir
}

// Owner is the claimant of epoch the tests' job managers name ("jm-<epoch>").
func Owner(epoch uint64) string { return fmt.Sprintf("jm-%d", epoch) }

// DataKey is a data file exclusive to checkpoint n.
func DataKey(job stores.JobID, n uint64) string { return CheckpointDir(job, n) + "data-0" }

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
