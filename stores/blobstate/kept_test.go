package blobstate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// A keep mark stands beside its handle until it is released; the first
// reason stays; a mark that cannot be read still stands.
func TestKeepMarkStandsUntilReleased(t *testing.T) {
	dir := t.TempDir()
	s, err := blobstate.Open(t.Context(), "file://"+dir)
	require.NoError(t, err)
	id := stores.CheckpointID{JobID: stores.JobID{Cluster: "c1", Job: "j1"}, Checkpoint: 5}
	key := blobstate.Key(id, 1)
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)

	_, ok, err := s.Mark(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, ok, "no mark yet")
	require.NoError(t, s.Keep(t.Context(), key, "kept for forensics", at))
	require.NoError(t, s.Keep(t.Context(), key, "a later reason", at.Add(time.Hour)))
	m, ok, err := s.Mark(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, blobstate.KeepMark{HandleKey: key, Reason: "kept for forensics", Since: at}, m)

	removed, err := s.Unkeep(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, removed)
	removed, err = s.Unkeep(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, removed, "nothing left to release")

	// A mark that cannot be decoded still keeps the state.
	markFile := filepath.Join(dir, "kept", "c1", "j1", fmt.Sprintf("%020d", 1), fmt.Sprintf("%020d.json", 5))
	require.NoError(t, os.MkdirAll(filepath.Dir(markFile), 0o755))
	require.NoError(t, os.WriteFile(markFile, []byte("not json"), 0o644))
	m, ok, err = s.Mark(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, ok, "an unreadable mark stands")
	assert.Contains(t, m.Reason, "cannot be read")

	_, _, err = s.Mark(t.Context(), "kept/c1/j1/x.json")
	assert.ErrorIs(t, err, stores.ErrInvalid, "only a handle key has a mark")
}
