package reconcile_test

import (
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// The findings and the actions reach the SDK's metrics handler, which the
// worker exports (Prometheus).
func TestReconcileEmitsMetrics(t *testing.T) {
	f := newFixture(t)
	two := f.published(2)
	f.remove(activities.HandleOf(two).Key())
	lost := f.checkpoint(1, 5, false)
	f.finals.set(lost, closed(contract.Discarded))
	f.checkpoint(1, 6, true) // a savepoint nobody explains: kept

	f.reconcile(apply(), later())
	m := f.metrics
	assert.Equal(t, int64(1), m.get(reconcile.MetricFindings, "kind", "dangling"))
	assert.Equal(t, int64(2), m.get(reconcile.MetricFindings, "kind", "orphan"))
	assert.Equal(t, int64(1), m.get(reconcile.MetricFindings, "kind", "orphan_kept"))
	assert.Equal(t, int64(1), m.get(reconcile.MetricActions, "action", "quarantined"))
	assert.Equal(t, int64(1), m.get(reconcile.MetricActions, "action", "discarded"))
	assert.Zero(t, m.get(reconcile.MetricFindings, "kind", "error"))
	// Every increment names the run's cluster: the alerts are per cluster.
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, inc := range m.incs {
		if inc.name == reconcile.MetricFindings || inc.name == reconcile.MetricActions {
			assert.Equal(t, job.Cluster, inc.tags["cluster"], "%s %v", inc.name, inc.tags)
		}
	}
}

// capturedMetrics records every counter increment with its tags.
type capturedMetrics struct {
	mu   sync.Mutex
	incs []increment
}

type increment struct {
	name string
	tags map[string]string
	n    int64
}

// get sums the increments of the counter whose tags include tag=value.
func (c *capturedMetrics) get(name, tag, value string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, inc := range c.incs {
		if inc.name == name && inc.tags[tag] == value {
			n += inc.n
		}
	}
	return n
}

type metricsHandler struct {
	captured *capturedMetrics
	tags     map[string]string
}

func (h metricsHandler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, tags)
	return metricsHandler{captured: h.captured, tags: merged}
}

func (h metricsHandler) Counter(name string) client.MetricsCounter {
	return counter{captured: h.captured, name: name, tags: h.tags}
}

func (h metricsHandler) Gauge(string) client.MetricsGauge { return nopMetric{} }
func (h metricsHandler) Timer(string) client.MetricsTimer { return nopMetric{} }

type counter struct {
	captured *capturedMetrics
	name     string
	tags     map[string]string
}

func (c counter) Inc(n int64) {
	c.captured.mu.Lock()
	defer c.captured.mu.Unlock()
	c.captured.incs = append(c.captured.incs, increment{name: c.name, tags: c.tags, n: n})
}

type nopMetric struct{}

func (nopMetric) Update(float64)       {}
func (nopMetric) Record(time.Duration) {}
