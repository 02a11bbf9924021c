package worker

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
)

func TestMetricsEndpoint(t *testing.T) {
	m, err := startMetrics("127.0.0.1:0", "default", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.close(context.Background())) })

	// Emitted the way the activities and workflows do: through the handler.
	m.handler.WithTags(map[string]string{"op": "publish", "outcome": "Published"}).Counter(activities.MetricStoreCalls).Inc(2)
	m.handler.Timer("finalizer_test_latency").Record(30 * time.Millisecond)

	body := get(t, "http://"+m.addr+"/metrics", http.StatusOK)
	assert.Contains(t, body, `finalizer_store_calls_total{op="publish",outcome="Published"} 2`)
	assert.Contains(t, body, `finalizer_test_latency_seconds_bucket{le="0.05"} 1`, "seconds buckets, not milliseconds")
	assert.Contains(t, body, "go_goroutines ", "Go runtime metrics")
	assert.Contains(t, body, "process_resident_memory_bytes ", "process metrics")
	assert.NotContains(t, body, "otel_scope_name")
	assert.Regexp(t, `finalizer_build_info\{go="`+regexp.QuoteMeta(runtime.Version())+`",revision="[^"]+",temporal_namespace="default",version="[^"]+"\} 1`, body)

	get(t, "http://"+m.addr+"/healthz", http.StatusServiceUnavailable)
	m.ready.Store(true)
	get(t, "http://"+m.addr+"/healthz", http.StatusOK)
	require.NoError(t, Healthcheck(context.Background(), m.addr))
}

func TestMetricsDisabled(t *testing.T) {
	m, err := startMetrics("", "default", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	m.handler.Counter("anything").Inc(1) // a no-op, never a panic
	assert.Empty(t, m.addr)
	assert.NoError(t, m.close(context.Background()))
	assert.ErrorContains(t, Healthcheck(context.Background(), ""), "needs the metrics address")
}

func TestHealthcheckReachesWildcardOnLoopback(t *testing.T) {
	m, err := startMetrics("0.0.0.0:0", "default", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.close(context.Background())) })
	m.ready.Store(true)
	require.NoError(t, Healthcheck(context.Background(), m.addr))
}

func get(t *testing.T, url string, status int) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "%s: %s", url, b)
	return string(b)
}

// The SDK tags its series and the handlers it hands to workflows and
// activities with "namespace"; the worker exports it as
// temporal_namespace, leaving namespace to Prometheus (the pod's
// Kubernetes namespace).
func TestMetricsExportTheTemporalNamespace(t *testing.T) {
	m, err := startMetrics("127.0.0.1:0", "default", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.close(context.Background())) })

	sdk := m.handler.WithTags(map[string]string{"namespace": "prod", "task_queue": "q"})
	sdk.WithTags(map[string]string{"op": "verify"}).Counter(activities.MetricStoreCalls).Inc(1)
	sdk.Timer("temporal_activity_schedule_to_start_latency").Record(time.Second)

	body := get(t, "http://"+m.addr+"/metrics", http.StatusOK)
	assert.Contains(t, body, `finalizer_store_calls_total{op="verify",task_queue="q",temporal_namespace="prod"} 1`)
	assert.Contains(t, body, `temporal_activity_schedule_to_start_latency_seconds_count{task_queue="q",temporal_namespace="prod"} 1`)
	assert.NotRegexp(t, `(?m)^[a-z_]+\{([^}]*,)?namespace=`, body, "no series carries namespace")
}
