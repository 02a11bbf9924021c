package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSummaryNearestRank(t *testing.T) {
	var s Sample
	for i := 100; i >= 1; i-- { // unsorted on purpose
		s.Latencies = append(s.Latencies, time.Duration(i)*time.Millisecond)
	}
	s.Elapsed = 10 * time.Second
	l := s.Summary()
	assert.Equal(t, 50*time.Millisecond, l.P50)
	assert.Equal(t, 95*time.Millisecond, l.P95)
	assert.Equal(t, 99*time.Millisecond, l.P99)
	assert.Equal(t, 100*time.Millisecond, l.Max)
	assert.InDelta(t, 10.0, s.Throughput(), 1e-9)
	assert.Equal(t, Latency{}, Sample{}.Summary())
	assert.Zero(t, Sample{}.Throughput())
}

func TestUsageOfThisProcess(t *testing.T) {
	m, err := startMeter(1)
	if err != nil {
		t.Skipf("no /proc here: %v", err) // Linux only; CI runs Linux
	}
	u, err := m.stop()
	assert.NoError(t, err)
	assert.Positive(t, u.PeakRSS)
	rss, err := currentRSS()
	assert.NoError(t, err)
	assert.Positive(t, rss)
}
