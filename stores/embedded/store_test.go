package embedded_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

// harness shares one Store between clients: the file is locked to one
// process, and within it one *Store is the concurrency-safe client.
type harness struct{ store *embedded.Store }

func (h *harness) Open(*testing.T) stores.ReferenceStore { return h.store }

func TestConformance(t *testing.T) {
	storetest.RunConformanceTests(t, func(t *testing.T) storetest.Harness {
		s, err := embedded.Open(filepath.Join(t.TempDir(), "references.db"))
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return &harness{store: s}
	})
}

func TestLockedToOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "references.db")
	s, err := embedded.Open(path)
	require.NoError(t, err)

	_, err = embedded.Open(path)
	require.ErrorIs(t, err, embedded.ErrLocked)

	require.NoError(t, s.Close())
	again, err := embedded.Open(path)
	require.NoError(t, err)
	require.NoError(t, again.Close())
}

func TestSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "references.db")
	job := stores.JobID{Cluster: "c1", Job: "j1"}
	s, err := embedded.Open(path)
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, s.ClaimEpoch(ctx, job, 1, "jm"))
	require.NoError(t, s.Publish(ctx, stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: 1}, Epoch: 1,
		Reference: stores.Reference{Handle: "h", Token: "t", Attempt: 1},
	}))
	require.NoError(t, s.Close())

	s, err = embedded.Open(path)
	require.NoError(t, err)
	defer s.Close()
	list, err := s.List(ctx, job)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "t", list[0].Reference.Token)
}
