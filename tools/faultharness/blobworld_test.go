package faultharness

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The fault layer fails the workers' path only, each mode as it says: a
// 503 and a dropped request change nothing, an applied request whose reply
// is lost does, and the clean path sees what is really there.
func TestBlobFaultLayer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := startBlob(ctx, t.TempDir())
	require.NoError(t, err)
	defer w.close()
	// The workers' view; the SDK's own retries would hide a single fault.
	faulty, err := blob.OpenBucket(ctx, w.workerURL()+"&rate_limiter_capacity=1")
	require.NoError(t, err)
	defer faulty.Close()

	job := stores.JobID{Cluster: cluster, Job: "j"}
	req, err := w.writeCheckpoint(ctx, job, 1, 7, false)
	require.NoError(t, err)
	states, err := scanBucket(ctx, w.bucket)
	require.NoError(t, err)
	id := stores.CheckpointID{JobID: job, Checkpoint: 7}
	require.Contains(t, states, id)
	assert.Len(t, states[id].files, 2, "metadata and data; the shared file is no checkpoint's")

	put := func(mode blobMode, key string) (int, error) {
		_, disarm := w.arm(http.MethodPut, mode)
		err := faulty.WriteAll(ctx, key, []byte("x"), nil)
		return disarm(), err
	}
	for _, mode := range []blobMode{blob5xx, blobDropRequest} {
		hits, err := put(mode, "handles/"+string(mode))
		assert.Error(t, err, mode)
		assert.Positive(t, hits, mode)
		ok, err := w.exists(ctx, "handles/"+string(mode))
		require.NoError(t, err)
		assert.False(t, ok, "%s: nothing written", mode)
	}
	hits, err := put(blobDropReply, "handles/applied")
	assert.Error(t, err)
	assert.Positive(t, hits)
	ok, err := w.exists(ctx, "handles/applied")
	require.NoError(t, err)
	assert.True(t, ok, "applied, though the writer got no answer")

	for _, mode := range []blobMode{blob5xx, blobDropRequest, blobDropReply} {
		_, disarm := w.arm(http.MethodDelete, mode)
		derr := faulty.Delete(ctx, req.MetadataKey)
		hits := disarm()
		assert.Positive(t, hits, mode)
		ok, err := w.exists(ctx, req.MetadataKey)
		require.NoError(t, err)
		if mode == blobDropReply {
			assert.False(t, ok, "applied delete")
			break
		}
		assert.Error(t, derr, mode)
		assert.True(t, ok, "%s: nothing deleted", mode)
	}
	w.heal()
	require.NoError(t, faulty.WriteAll(ctx, "handles/after", []byte("x"), nil), "healed")
	assert.NotEmpty(t, w.evidence())
}
