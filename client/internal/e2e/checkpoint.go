package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// Checkpoint writes checkpoint n's files into the bucket the way a job
// manager does (metadata and data under chk-<n>/, plus a shared file no
// discard may touch) and returns the request that finalizes it at epoch.
func (e *Env) Checkpoint(epoch, n uint64) workflows.FinalizeRequest {
	e.t.Helper()
	prefix := fmt.Sprintf("%s/%s/chk-%d/", e.Cluster, e.Job, n)
	meta := []byte(fmt.Sprintf("metadata of checkpoint %d", n))
	e.Write(prefix+"_metadata", meta)
	e.Write(prefix+"data-0", []byte("state"))
	e.Write(fmt.Sprintf("%s/%s/shared/sst-1", e.Cluster, e.Job), []byte("shared state"))
	sum := sha256.Sum256(meta)
	return workflows.FinalizeRequest{
		Cluster: e.Cluster, Job: e.Job, Epoch: epoch, Checkpoint: n,
		MetadataKey: prefix + "_metadata", MetadataSHA256: hex.EncodeToString(sum[:]),
		ExclusivePrefix: prefix,
	}
}

// Write puts a file into the bucket.
func (e *Env) Write(key string, data []byte) {
	e.t.Helper()
	path := filepath.Join(e.Bucket, key)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(e.t, os.WriteFile(path, data, 0o644))
}

// Exists reports whether the bucket holds key.
func (e *Env) Exists(key string) bool {
	_, err := os.Stat(filepath.Join(e.Bucket, key))
	return err == nil
}

// JobID is the test's job.
func (e *Env) JobID() stores.JobID { return stores.JobID{Cluster: e.Cluster, Job: e.Job} }

// Entry reads checkpoint n's key from the real store.
func (e *Env) Entry(n uint64) stores.Entry {
	e.t.Helper()
	entry, err := e.Store.Read(e.t.Context(), stores.CheckpointID{JobID: e.JobID(), Checkpoint: n})
	require.NoError(e.t, err)
	return entry
}
