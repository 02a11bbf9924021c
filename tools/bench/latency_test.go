package bench

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	m, err := startMeter(serverProcesses{temporal: os.Getpid()}, nil)
	require.NoError(t, err)
	u, err := m.stop()
	assert.NoError(t, err)
	assert.Positive(t, u.PeakRSS)
	assert.Zero(t, u.DatabaseCPU, "no database process")
	rss, err := currentRSS()
	assert.NoError(t, err)
	assert.Positive(t, rss)
}

// A database's CPU is its children's, live and exited, as PostgreSQL's
// postmaster spends almost none itself: a parent that only sleeps, with
// one child that burned CPU and exited and one that burns it still.
func TestTreeCPUCountsChildren(t *testing.T) {
	p, err := proc.Start(exec.Command("bash", "-c", `(i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done); (while :; do :; done) & sleep 60`),
		proc.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Kill() }) // the busy child dies with the group
	require.Eventually(t, func() bool {
		own, err := processCPU(p.Pid())
		require.NoError(t, err)
		tree, err := processTreeCPU(p.Pid())
		require.NoError(t, err)
		return tree >= own+200*time.Millisecond
	}, 30*time.Second, 50*time.Millisecond)
	m, err := startMeter(serverProcesses{temporal: os.Getpid(), database: p.Pid()}, nil)
	require.NoError(t, err)
	time.Sleep(300 * time.Millisecond)
	u, err := m.stop()
	require.NoError(t, err)
	assert.Positive(t, u.DatabaseCPU, "the live child kept burning")
}
