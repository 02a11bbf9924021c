package world

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
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

	// A checkpoint as its job manager writes it, on the clean path.
	job := stores.JobID{Cluster: cluster, Job: "j"}
	dir := jobmanager.CheckpointDir(job, 7)
	for _, f := range jobmanager.Files(job, 7, dir) {
		require.NoError(t, w.bucket.WriteAll(ctx, f.Key, f.Data, nil))
	}
	req := jobmanager.Request(job, 1, jobmanager.Owner(1), 7, dir, false)

	put := func(mode blobMode, key string) (int, error) {
		_, disarm := w.arm(http.MethodPut, mode)
		err := faulty.WriteAll(ctx, key, []byte("x"), nil)
		return disarm(), err
	}
	for _, mode := range []blobMode{blob5xx, blobDropRequest} {
		hits, err := put(mode, "handles/"+string(mode))
		assert.Error(t, err, mode)
		assert.Positive(t, hits, mode)
		ok, err := w.bucket.Exists(ctx, "handles/"+string(mode))
		require.NoError(t, err)
		assert.False(t, ok, "%s: nothing written", mode)
	}
	hits, err := put(blobDropReply, "handles/applied")
	assert.Error(t, err)
	assert.Positive(t, hits)
	ok, err := w.bucket.Exists(ctx, "handles/applied")
	require.NoError(t, err)
	assert.True(t, ok, "applied, though the writer got no answer")

	for _, mode := range []blobMode{blob5xx, blobDropRequest, blobDropReply} {
		_, disarm := w.arm(http.MethodDelete, mode)
		derr := faulty.Delete(ctx, req.MetadataKey)
		hits := disarm()
		assert.Positive(t, hits, mode)
		ok, err := w.bucket.Exists(ctx, req.MetadataKey)
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
