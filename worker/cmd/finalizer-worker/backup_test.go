package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// backup copies a stopped worker's store from the file the store flags
// name, refuses while a process holds it (naming the lock and the way
// round it), and refuses a command line or configuration it cannot serve.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "references.db")
	job := stores.JobID{Cluster: "c1", Job: "j1"}
	s, err := embedded.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 2, "jm-1"))
	env := map[string]string{"FINALIZER_EMBEDDED_PATH": path}
	to := filepath.Join(dir, "references.db.bak")

	o := runWorker(t, env, "backup", "--to", to)
	assert.Equal(t, 1, o.code, "a process holds the store")
	assert.Contains(t, o.stderr, "file lock")
	assert.Contains(t, o.stderr, "--from http://127.0.0.1:")
	assert.NoFileExists(t, to)

	require.NoError(t, s.Close())
	o = runWorker(t, env, "backup", "--to", to)
	require.Equal(t, 0, o.code)
	assert.Contains(t, o.stdout, "verified")
	restored, err := embedded.Open(to)
	require.NoError(t, err)
	defer restored.Close()
	st, err := restored.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), st.Epoch)

	assert.Equal(t, 2, runWorker(t, env, "backup").code, "no --to")
	assert.Equal(t, 2, runWorker(t, env, "backup", "--to", path).code, "the store over itself")
	assert.Equal(t, 2, runWorker(t, map[string]string{"FINALIZER_STORE": "zookeeper"}, "backup", "--to", to).code,
		"no embedded store to copy")

	// Nothing listens on a port just released.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	assert.Equal(t, 1, runWorker(t, env, "backup", "--to", filepath.Join(dir, "other.bak"), "--from", "http://"+addr).code)
}

// Restoring is copying a backup over a stopped worker's store file; over a
// file a worker holds it is refused, and the file stays.
func TestBackupRestoresOnlyAStoppedStore(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "references.db")
	bak := filepath.Join(dir, "references.db.bak")
	for _, p := range []string{live, bak} {
		s, err := embedded.Open(p)
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
	held, err := embedded.Open(live)
	require.NoError(t, err)
	o := runWorker(t, map[string]string{"FINALIZER_EMBEDDED_PATH": bak}, "backup", "--to", live)
	assert.Equal(t, 1, o.code)
	assert.Contains(t, o.stderr, "not written over "+live)
	require.NoError(t, held.Close())
	assert.Equal(t, 0, runWorker(t, map[string]string{"FINALIZER_EMBEDDED_PATH": bak}, "backup", "--to", live).code)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no partial file left")
}
