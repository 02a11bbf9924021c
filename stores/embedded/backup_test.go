package embedded_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// A backup taken while the store is open and written on restores to the
// store as it was when the copy began.
func TestBackupWhileOpenRestores(t *testing.T) {
	dir := t.TempDir()
	job := stores.JobID{Cluster: "c1", Job: "j1"}
	s, err := embedded.Open(filepath.Join(dir, "references.db"))
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	require.NoError(t, s.ClaimEpoch(ctx, job, 3, "jm"))

	var buf bytes.Buffer
	var announced int64
	n, err := s.Backup(ctx, &buf, func(size int64) { announced = size })
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)
	assert.Equal(t, announced, n, "the size is announced before the copy")
	require.NoError(t, s.ClaimEpoch(ctx, job, 4, "jm"), "the store goes on after the copy")

	copyPath := filepath.Join(dir, "restored.db")
	require.NoError(t, os.WriteFile(copyPath, buf.Bytes(), 0o600))
	require.NoError(t, embedded.VerifyFile(copyPath))
	restored, err := embedded.Open(copyPath)
	require.NoError(t, err)
	defer restored.Close()
	st, err := restored.ReadJob(ctx, job)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), st.Epoch, "the copy is the store when it began")
}

// A stopped store is copied from its file; one a process holds is refused
// with ErrLocked, since bbolt's lock is the holder's alone.
func TestBackupFileNeedsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "references.db")
	s, err := embedded.Open(path)
	require.NoError(t, err)

	_, err = embedded.BackupFile(t.Context(), path, &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, embedded.ErrLocked)
	assert.ErrorContains(t, err, "file lock")
	require.ErrorIs(t, embedded.VerifyFile(path), embedded.ErrLocked)

	require.NoError(t, s.Close())
	var buf bytes.Buffer
	n, err := embedded.BackupFile(t.Context(), path, &buf, nil)
	require.NoError(t, err)
	assert.Positive(t, n)
}

// Only a bbolt file with the store's buckets verifies.
func TestVerifyFileRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	require.NoError(t, os.WriteFile(garbage, bytes.Repeat([]byte("x"), 8192), 0o600))
	require.ErrorIs(t, embedded.VerifyFile(garbage), embedded.ErrNotStore)

	require.ErrorIs(t, embedded.VerifyFile(filepath.Join(dir, "absent.db")), embedded.ErrNotStore)

	empty := filepath.Join(dir, "empty.db")
	db, err := bolt.Open(empty, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	err = embedded.VerifyFile(empty)
	require.ErrorIs(t, err, embedded.ErrNotStore)
	assert.ErrorContains(t, err, `"jobs"`)
}

// A file a process holds is locked; a free store, another file or none is
// not.
func TestEnsureUnlocked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "references.db")
	s, err := embedded.Open(path)
	require.NoError(t, err)
	require.ErrorIs(t, embedded.EnsureUnlocked(path), embedded.ErrLocked)
	require.NoError(t, s.Close())
	require.NoError(t, embedded.EnsureUnlocked(path))
	require.NoError(t, embedded.EnsureUnlocked(filepath.Join(dir, "absent.db")))
}
