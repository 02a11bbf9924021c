package worker

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
