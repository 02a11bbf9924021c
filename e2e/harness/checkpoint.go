package harness

import (
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Checkpoint writes checkpoint n's files into the bucket the way a job
// manager does (metadata and data under chk-<n>/, plus a shared file no
// discard may touch) and returns the request that finalizes it at epoch.
func (e *Env) Checkpoint(epoch, n uint64) contract.FinalizeRequest {
	e.t.Helper()
	req, err := e.bucket().WriteCheckpoint(e.JobID(), epoch, n, false)
	require.NoError(e.t, err)
	return req
}

// Write puts a file into the bucket.
func (e *Env) Write(key string, data []byte) {
	e.t.Helper()
	require.NoError(e.t, e.bucket().Write(key, data))
}

// Exists reports whether the bucket holds key.
func (e *Env) Exists(key string) bool { return e.bucket().Exists(key) }

func (e *Env) bucket() jobmanager.Bucket { return jobmanager.Bucket{Dir: e.Bucket} }

// JobID is the test's job.
func (e *Env) JobID() stores.JobID { return stores.JobID{Cluster: e.Cluster, Job: e.Job} }

// Entry reads checkpoint n's key from the real store.
func (e *Env) Entry(n uint64) stores.Entry {
	e.t.Helper()
	entry, err := e.Store.Read(e.t.Context(), stores.CheckpointID{JobID: e.JobID(), Checkpoint: n})
	require.NoError(e.t, err)
	return entry
}
