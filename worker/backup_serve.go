package worker

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// BackupPath is where the metrics listener serves a copy of the embedded
// store (`finalizer-worker backup --from`).
const BackupPath = "/backup"

// backupSource copies the store to w, announcing its size first
// (embedded.Store.Backup).
type backupSource func(ctx context.Context, w io.Writer, size func(int64)) (int64, error)

// serveBackups makes /backup copy s from now on; any other store has
// nothing to copy (ZooKeeper and Kubernetes back up with their own tools).
func (m *metrics) serveBackups(s referenceStore) {
	if e, ok := s.(*embedded.Store); ok {
		src := backupSource(e.Backup)
		m.backup.Store(&src)
	}
}

// stopBackups refuses backups from now on: the store is about to close.
func (m *metrics) stopBackups() { m.backup.Store(nil) }

// serveBackup streams a consistent copy of the embedded store, the whole
// of it: every job's epoch, watermark and references. The metrics port is
// open to whatever scrapes it (the chart's NetworkPolicy admits any
// client on it), so a copy is served only on a connection that is
// loopback at both ends: a process in the worker's own network namespace,
// which in Kubernetes means `kubectl exec` or `kubectl port-forward`,
// each already guarded by RBAC. A proxy that terminates outside callers
// and reconnects over loopback (a service mesh's sidecar) defeats that:
// docs/operations.md says so.
func (m *metrics) serveBackup(w http.ResponseWriter, r *http.Request) {
	if !loopbackBothEnds(r) {
		http.Error(w, "a backup is served to loopback clients only (kubectl exec or port-forward)", http.StatusForbidden)
		return
	}
	src := m.backup.Load()
	if src == nil {
		http.Error(w, "this worker has no embedded store open to back up", http.StatusNotFound)
		return
	}
	start := time.Now()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="references.db"`)
	n, err := (*src)(r.Context(), w, func(size int64) {
		// The length lets the client tell a complete copy from one cut short.
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	})
	if err != nil {
		// Once bytes are out the status is sent: the connection ends short
		// of the announced length, which the client reports.
		m.log.Warn("backup failed", "remote", r.RemoteAddr, "bytes", n, "error", err)
		if n == 0 {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	m.log.Info("backup served", "remote", r.RemoteAddr, "bytes", n, "took", time.Since(start).Round(time.Millisecond))
}

// loopbackBothEnds: the request came from loopback to a loopback address.
// The remote end alone would admit a proxy that forwards outside callers
// to the pod's address from a loopback source (Istio's 127.0.0.6).
func loopbackBothEnds(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !isLoopback(host) {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err = net.SplitHostPort(local.String())
	return err == nil && isLoopback(host)
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
