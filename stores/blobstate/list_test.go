package blobstate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// runListing holds every backend's listing of handle blobs to the same
// answers: identities parsed from the keys, modification times when the
// driver gives them, foreign keys reported apart, other clusters and jobs
// never mixed in.
func runListing(t *testing.T, open func(t *testing.T) *Store) {
	ctx := context.Background()

	t.Run("ListHandles", func(t *testing.T) {
		s := open(t)
		before := time.Now().Add(-time.Minute)
		var written []Handle
		for _, h := range []Handle{
			seedCheckpoint(t, s, "orders", 2, 7, 0),
			seedCheckpoint(t, s, "orders", 1, 12, 0),
			seedCheckpoint(t, s, "orders", 1, 3, 0),
			seedCheckpoint(t, s, "billing", 1, 1, 0),
		} {
			_, err := s.Write(ctx, h)
			require.NoError(t, err)
			written = append(written, h)
		}
		other := written[0]
		other.Cluster = "prod-us"
		_, err := s.Write(ctx, other)
		require.NoError(t, err)
		put(t, s, "handles/prod-eu/orders/notes.txt", []byte("not a handle"))
		put(t, s, "handles/prod-eu/orders/00000000000000000001/7.json", []byte("{}"))
		after := time.Now().Add(time.Minute)

		l, err := s.ListJobHandles(ctx, jobID("orders"))
		require.NoError(t, err)
		var got []string
		for _, hi := range l.Handles {
			got = append(got, hi.Key)
			id, epoch, err := ParseKey(hi.Key)
			require.NoError(t, err)
			assert.Equal(t, id, hi.CheckpointID)
			assert.Equal(t, epoch, hi.Epoch)
			if !hi.ModTime.IsZero() {
				assert.WithinRange(t, hi.ModTime, before, after)
			}
		}
		assert.Equal(t, []string{
			Key(ckpt("orders", 3), 1), Key(ckpt("orders", 12), 1), Key(ckpt("orders", 7), 2),
		}, got, "key order: epoch, then checkpoint, numerically")
		assert.Equal(t, []string{
			"handles/prod-eu/orders/00000000000000000001/7.json", "handles/prod-eu/orders/notes.txt",
		}, l.Foreign)

		all, err := s.ListHandles(ctx, "prod-eu")
		require.NoError(t, err)
		assert.Len(t, all.Handles, 4, "both jobs of the cluster, not the other cluster's")
		assert.Len(t, all.Foreign, 2)

		jobs, err := s.HandleJobs(ctx, "prod-eu")
		require.NoError(t, err)
		assert.Equal(t, []stores.JobID{jobID("billing"), jobID("orders")}, jobs)
		clusters, err := s.HandleClusters(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"prod-eu", "prod-us"}, clusters)

		none, err := s.ListJobHandles(ctx, jobID("absent"))
		require.NoError(t, err)
		assert.Empty(t, none.Handles)
		jobs, err = s.HandleJobs(ctx, "nowhere")
		require.NoError(t, err)
		assert.Empty(t, jobs)
	})

	t.Run("ListHandlesRefusesInvalidNames", func(t *testing.T) {
		s := open(t)
		_, err := s.ListHandles(ctx, "../x")
		requireInvalid(t, err)
		_, err = s.ListJobHandles(ctx, stores.JobID{Cluster: "prod-eu", Job: "a/b"})
		requireInvalid(t, err)
		_, err = s.HandleJobs(ctx, "")
		requireInvalid(t, err)
	})
}

// A local bucket reports modification times: the reconciler's grace
// period depends on them.
func TestLocalListingHasModTimes(t *testing.T) {
	s := openFile(t)
	h := seedCheckpoint(t, s, "orders", 1, 1, 0)
	_, err := s.Write(context.Background(), h)
	require.NoError(t, err)
	l, err := s.ListJobHandles(context.Background(), h.JobID)
	require.NoError(t, err)
	require.Len(t, l.Handles, 1)
	assert.WithinDuration(t, time.Now(), l.Handles[0].ModTime, time.Minute)
}
