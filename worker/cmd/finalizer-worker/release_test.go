package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// release lets go a retained checkpoint's record, named by the handle key
// the reconciler reports, in the store the worker's flags name; it refuses
// a key holding nothing kept, a handle key that cannot be and a cluster
// the worker does not serve.
func TestRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "references.db")
	job := stores.JobID{Cluster: "c1", Job: "j1"}
	kept := stores.CheckpointID{JobID: job, Checkpoint: 3}
	s, err := embedded.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 1, "jm-1"))
	require.NoError(t, s.Publish(t.Context(), stores.Publication{CheckpointID: kept, Epoch: 1, Reference: stores.Reference{
		Handle: blobstate.Key(kept, 1), Token: contract.Token(kept, 1), Attempt: 1,
	}}))
	require.NoError(t, s.Retire(t.Context(), job, 1, true))
	require.NoError(t, s.Close())

	env := map[string]string{"FINALIZER_EMBEDDED_PATH": path, "FINALIZER_CLUSTERS": "c1=c1"}
	o := runWorker(t, env, "release", blobstate.Key(kept, 1))
	require.Equal(t, 0, o.code)
	assert.Contains(t, o.stdout, "released "+blobstate.Key(kept, 1))
	assert.Equal(t, 0, runWorker(t, env, "release", blobstate.Key(kept, 1)).code, "a repeated release finds its own write")

	o = runWorker(t, env, "release", blobstate.Key(stores.CheckpointID{JobID: job, Checkpoint: 4}, 1))
	assert.Equal(t, 4, o.code)
	assert.Contains(t, o.stderr, "no record")
	assert.Equal(t, 2, runWorker(t, env, "release", "c1/j1/chk-3/_metadata").code, "not a handle key")
	assert.Equal(t, 2, runWorker(t, env, "release", blobstate.Key(stores.CheckpointID{JobID: stores.JobID{Cluster: "c2", Job: "j1"}, Checkpoint: 3}, 1)).code, "a cluster not served")
	assert.Equal(t, 2, runWorker(t, env, "release").code, "no handle key")

	s, err = embedded.Open(path)
	require.NoError(t, err)
	defer s.Close()
	e, err := s.Read(t.Context(), kept)
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone)
	assert.Equal(t, stores.ReasonRetired, e.Tombstone.Reason, "the retained record now lets the state go")
}

// An abandoned finalization's state is kept by a mark beside its handle,
// with no record in the store: release removes the mark.
func TestReleaseRemovesAnAbandonedFinalizationsMark(t *testing.T) {
	bucket := t.TempDir()
	states, err := blobstate.Open(t.Context(), "file://"+bucket)
	require.NoError(t, err)
	key := blobstate.Key(stores.CheckpointID{JobID: stores.JobID{Cluster: "c1", Job: "j1"}, Checkpoint: 5}, 1)
	require.NoError(t, states.Keep(t.Context(), key, "kept for forensics", time.Now()))
	require.NoError(t, states.Close())

	env := map[string]string{"FINALIZER_EMBEDDED_PATH": filepath.Join(t.TempDir(), "references.db"), "FINALIZER_CLUSTERS": "c1=c1",
		"FINALIZER_STATE_BUCKET": "file://" + bucket}
	o := runWorker(t, env, "release", key)
	require.Equal(t, 0, o.code, o.stderr)
	states, err = blobstate.Open(t.Context(), "file://"+bucket)
	require.NoError(t, err)
	defer states.Close()
	_, ok, err := states.Mark(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, ok, "the mark is gone")
	assert.Equal(t, 4, runWorker(t, env, "release", key).code, "nothing kept any more")
}
