package worker

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// The restore drill docs/operations.md describes: a backup taken from a
// running worker, restored under a fresh worker, carries the job over. Its
// claim stands (the next checkpoint of the same epoch publishes without a
// new claim) and its restore point is the checkpoint backed up.
func TestBackupRestoresIntoAFreshWorker(t *testing.T) {
	d := newDevWorker(t)
	r, stop := d.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	claim := d.claim(ctx)
	finalize := func(n uint64) {
		t.Helper()
		req := writeCheckpoint(t, d.bucket, claim, n)
		var res contract.FinalizeResult
		require.NoError(t, d.execute(ctx, req.WorkflowID(), contract.FinalizeWorkflow, req).Get(ctx, &res))
		require.Equal(t, contract.Published, res.Phase, "checkpoint %d: %s", n, res.Reason)
	}
	finalize(7)

	live := d.cfg.Store.Embedded.Path
	_, err := Backup(ctx, BackupRequest{To: filepath.Join(t.TempDir(), "x.db"), StorePath: live})
	require.ErrorIs(t, err, embedded.ErrLocked, "the running worker holds the file: only it can copy it")

	backup := filepath.Join(t.TempDir(), "references.db.bak")
	n, err := Backup(ctx, BackupRequest{To: backup, From: "http://" + r.MetricsAddress})
	require.NoError(t, err)
	assert.Positive(t, n)
	info, err := os.Stat(backup)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "no wider than the store")
	require.NoError(t, stop())

	// Restore: the stopped worker's file replaced by the backup, a fresh
	// worker started on it.
	data, err := os.ReadFile(backup)
	require.NoError(t, err)
	restored := filepath.Join(t.TempDir(), "restored", "references.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(restored), 0o700))
	require.NoError(t, os.WriteFile(restored, data, 0o600))
	d.cfg.Store.Embedded.Path = restored
	d.start()

	point := d.latest(ctx, claim)
	assert.Equal(t, claim.Epoch, point.Epoch, "the claim carried over")
	require.Equal(t, contract.RestoreResolved, point.State)
	assert.Equal(t, uint64(7), point.Latest.Checkpoint)

	finalize(8)
	assert.Equal(t, uint64(8), d.latest(ctx, claim).Latest.Checkpoint, "the restored store finalizes on")
}

// latest asks the job's restore point, as a job manager does before it
// recovers.
func (d *devWorker) latest(ctx context.Context, claim contract.ClaimRequest) contract.RestorePoint {
	d.t.Helper()
	req := contract.LatestRequest{Cluster: claim.Cluster, Job: claim.Job}
	var point contract.RestorePoint
	require.NoError(d.t, d.execute(ctx, req.WorkflowID(time.Now().Format(time.RFC3339Nano)), contract.LatestWorkflow, req).Get(ctx, &point))
	return point
}

// /backup serves only a connection that is loopback at both ends, and only
// while an embedded store is open.
func TestServeBackupGuards(t *testing.T) {
	m := &metrics{log: slog.New(slog.DiscardHandler)}
	ask := func(remote, local string) int {
		req := httptest.NewRequest(http.MethodGet, BackupPath, nil)
		req.RemoteAddr = remote
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
			&net.TCPAddr{IP: net.ParseIP(local), Port: 9464}))
		rec := httptest.NewRecorder()
		m.serveBackup(rec, req)
		return rec.Code
	}
	assert.Equal(t, http.StatusForbidden, ask("10.1.2.3:40000", "10.1.2.4"), "a scraper's address")
	assert.Equal(t, http.StatusForbidden, ask("127.0.0.6:40000", "10.1.2.4"), "a sidecar forwarding to the pod's address")
	assert.Equal(t, http.StatusNotFound, ask("127.0.0.1:40000", "127.0.0.1"), "no embedded store open")
	assert.Equal(t, http.StatusNotFound, ask("[::1]:40000", "::1"))

	s, err := embedded.Open(filepath.Join(t.TempDir(), "references.db"))
	require.NoError(t, err)
	defer s.Close()
	m.serveBackups(s)
	assert.Equal(t, http.StatusOK, ask("127.0.0.1:40000", "127.0.0.1"))
	m.stopBackups()
	assert.Equal(t, http.StatusNotFound, ask("127.0.0.1:40000", "127.0.0.1"), "the store is closing")
}

// A backup that fails leaves nothing behind, and never replaces a good one.
func TestBackupFailedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	to := filepath.Join(dir, "references.db.bak")
	require.NoError(t, os.WriteFile(to, []byte("the previous backup"), 0o600))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("not a bbolt file, however long it is"))
	}))
	defer srv.Close()
	_, err := Backup(t.Context(), BackupRequest{To: to, From: srv.URL})
	require.ErrorIs(t, err, embedded.ErrNotStore)

	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer refused.Close()
	_, err = Backup(t.Context(), BackupRequest{To: to, From: refused.URL})
	require.ErrorIs(t, err, ErrBackupRefused)

	_, err = Backup(t.Context(), BackupRequest{To: to, From: "localhost:9464"})
	require.ErrorIs(t, err, stores.ErrInvalid, "a URL without its scheme")
	_, err = Backup(t.Context(), BackupRequest{To: to})
	require.ErrorIs(t, err, stores.ErrInvalid, "neither a worker nor a file")
	_, err = Backup(t.Context(), BackupRequest{To: to, StorePath: to})
	require.ErrorIs(t, err, stores.ErrInvalid, "the store over itself")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no partial file left")
	data, err := os.ReadFile(to)
	require.NoError(t, err)
	assert.Equal(t, "the previous backup", string(data))
}
