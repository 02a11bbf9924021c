package invariants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The bucket's listing counts a checkpoint's own files: its metadata and
// data, never the job's shared file.
func TestScanBucketCountsCheckpointFiles(t *testing.T) {
	ctx := t.Context()
	b := jobmanager.Bucket{Dir: t.TempDir()}
	job := stores.JobID{Cluster: "harness", Job: "j"}
	_, err := b.WriteCheckpoint(job, 1, 7, false)
	require.NoError(t, err)
	bucket, err := blob.OpenBucket(ctx, b.URL())
	require.NoError(t, err)
	defer bucket.Close()

	states, err := scanBucket(ctx, bucket)
	require.NoError(t, err)
	id := stores.CheckpointID{JobID: job, Checkpoint: 7}
	require.Contains(t, states, id)
	assert.Len(t, states[id].files, 2, "metadata and data; the shared file is no checkpoint's")
}
