package worker

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// get GETs one of the worker's health endpoints.
func probeGet(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// waitReady waits until /readyz answers code with a body containing want.
func waitReady(t *testing.T, addr string, code int, want string) {
	t.Helper()
	var last string
	require.Eventually(t, func() bool {
		got, body := probeGet(t, addr, "/readyz")
		last = body
		return got == code && strings.Contains(body, want)
	}, time.Minute, 100*time.Millisecond, "want %d with %q; last answer:\n%s", code, want, last)
}

// Readiness follows Temporal: the frontend stopped, the worker is not
// ready and says why; back, it is ready again. Liveness never moves: a
// restart would not bring Temporal back.
func TestReadinessFollowsTemporal(t *testing.T) {
	d := newDevWorker(t)
	r, _ := d.start()
	waitReady(t, r.MetricsAddress, http.StatusOK, "pollers: ok\ntemporal: ok\nstore: ok\n")

	require.NoError(t, d.srv.Stop())
	waitReady(t, r.MetricsAddress, http.StatusServiceUnavailable, "temporal: ")
	code, body := probeGet(t, r.MetricsAddress, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.NotContains(t, body, "temporal: ok")
	assert.Contains(t, body, "store: ok")
	code, _ = probeGet(t, r.MetricsAddress, "/livez")
	assert.Equal(t, http.StatusOK, code)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, d.srv.Restart(ctx))
	waitReady(t, r.MetricsAddress, http.StatusOK, "temporal: ok\nstore: ok\n")
}

// Readiness follows the ZooKeeper session: the server stopped, the store
// check names the session's state; restarted, ready again.
func TestReadinessFollowsZooKeeper(t *testing.T) {
	d, zk := newZooKeeperWorker(t)
	r, _ := d.start()
	waitReady(t, r.MetricsAddress, http.StatusOK, "store: ok\n")

	zk.Stop()
	waitReady(t, r.MetricsAddress, http.StatusServiceUnavailable, "store: zookeeper session ")
	code, _ := probeGet(t, r.MetricsAddress, "/livez")
	assert.Equal(t, http.StatusOK, code)
	code, body := probeGet(t, r.MetricsAddress, "/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code, "/healthz is /readyz: %s", body)

	require.NoError(t, zk.Restart())
	waitReady(t, r.MetricsAddress, http.StatusOK, "temporal: ok\nstore: ok\n")
}

// Readiness follows the Kubernetes API: the API server hung (its process
// stopped, so connections open but nothing answers), the store check names
// the API and the namespace; resumed, ready again.
func TestReadinessFollowsKubernetes(t *testing.T) {
	realserver.Require(t, "kube-apiserver and etcd") // its own server: it is frozen
	srv, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			srv.KeepLogs()
		}
		srv.Stop()
	})
	ns := srv.Namespace(t, "readiness")
	d := newDevWorker(t)
	d.cfg.Store.Kind = StoreKubernetes
	d.cfg.Store.Kubernetes.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(d.cfg.Store.Kubernetes.Kubeconfig, srv.AdminToken, ns))
	r, _ := d.start()
	waitReady(t, r.MetricsAddress, http.StatusOK, "pollers: ok\ntemporal: ok\nstore: ok\n")

	require.NoError(t, srv.Freeze())
	waitReady(t, r.MetricsAddress, http.StatusServiceUnavailable, "store: kubernetes API, namespace "+ns)
	code, body := probeGet(t, r.MetricsAddress, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "temporal: ok", "only the store is gone: %s", body)
	code, _ = probeGet(t, r.MetricsAddress, "/livez")
	assert.Equal(t, http.StatusOK, code)

	require.NoError(t, srv.Thaw())
	waitReady(t, r.MetricsAddress, http.StatusOK, "temporal: ok\nstore: ok\n")
}
