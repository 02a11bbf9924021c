package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// passLog records the passes a drain runs; block, when set, holds each
// pass until released.
type passLog struct {
	mu      sync.Mutex
	passes  []stores.JobID
	running map[stores.JobID]int
	overlap bool
	block   chan struct{}
	result  func(n int) (activities.RemovalResult, error)
}

func (p *passLog) pass(_ context.Context, job stores.JobID) (activities.RemovalResult, error) {
	p.mu.Lock()
	p.passes = append(p.passes, job)
	n := len(p.passes)
	p.running[job]++
	p.overlap = p.overlap || p.running[job] > 1
	p.mu.Unlock()
	if p.block != nil {
		<-p.block
	}
	p.mu.Lock()
	p.running[job]--
	p.mu.Unlock()
	if p.result != nil {
		return p.result(n)
	}
	return activities.RemovalResult{}, nil
}

func (p *passLog) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.passes)
}

var jobA, jobB = stores.JobID{Cluster: "c1", Job: "a"}, stores.JobID{Cluster: "c1", Job: "b"}

// A job handed while its pass runs passes once more after it, never
// beside it; handed several times meanwhile, still once.
func TestRetentionDrainPassesAJobAgainAfterItsRunningPass(t *testing.T) {
	p := &passLog{running: map[stores.JobID]int{}, block: make(chan struct{})}
	d, stop := startRetentionDrain(t.Context(), p.pass, slog.New(slog.DiscardHandler))
	defer stop()
	d.Enqueue(jobA)
	require.Eventually(t, func() bool { return p.count() == 1 }, 5*time.Second, time.Millisecond)
	d.Enqueue(jobA)
	d.Enqueue(jobA)
	d.Enqueue(jobB)
	require.Eventually(t, func() bool { return p.count() == 2 }, 5*time.Second, time.Millisecond, "b passes beside a")
	close(p.block)
	require.Eventually(t, func() bool { return p.count() == 3 }, 5*time.Second, time.Millisecond, "a passes once more")
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, 3, p.count())
	assert.False(t, p.overlap, "two passes of one job never run at once")
}

// A pass that fails, or leaves a tombstone for later, passes again after
// a backoff; one that finishes clean does not.
func TestRetentionDrainRetriesWhatAPassLeft(t *testing.T) {
	p := &passLog{running: map[stores.JobID]int{}, result: func(n int) (activities.RemovalResult, error) {
		switch n {
		case 1:
			return activities.RemovalResult{}, errors.New("store down")
		case 2:
			return activities.RemovalResult{Uncollected: []activities.Removal{{Checkpoint: 1}}}, nil
		}
		return activities.RemovalResult{}, nil
	}}
	d, stop := startRetentionDrain(t.Context(), p.pass, slog.New(slog.DiscardHandler))
	defer stop()
	d.mu.Lock()
	d.retryFirst = 10 * time.Millisecond
	d.mu.Unlock()
	d.Enqueue(jobA)
	require.Eventually(t, func() bool { return p.count() == 3 }, 10*time.Second, time.Millisecond)
	time.Sleep(20 * d.retryFirst)
	assert.Equal(t, 3, p.count(), "a clean pass ends the retries")
}

// Once stopped, the drain takes nothing more and its passers have ended.
func TestRetentionDrainStops(t *testing.T) {
	p := &passLog{running: map[stores.JobID]int{}}
	d, stop := startRetentionDrain(t.Context(), p.pass, slog.New(slog.DiscardHandler))
	stop()
	d.Enqueue(jobA)
	time.Sleep(20 * time.Millisecond)
	assert.Zero(t, p.count())
}

// The sweep lists the jobs of the served clusters that have state in the
// bucket and hands them to the drain at once: a job whose last publish's
// pass died with its worker passes all the same.
func TestRetentionSweepHandsEveryServedJob(t *testing.T) {
	states, err := blobstate.Open(t.Context(), "file://"+t.TempDir())
	require.NoError(t, err)
	defer func() { _ = states.Close() }()
	other := stores.JobID{Cluster: "c2", Job: "x"}
	for i, job := range []stores.JobID{jobA, jobB, other} {
		n := uint64(i + 1)
		_, err := states.Write(t.Context(), blobstate.Handle{CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: n}, Epoch: 1,
			MetadataKey: fmt.Sprintf("%s/%s/chk-%d/_metadata", job.Cluster, job.Job, n), ExclusivePrefix: fmt.Sprintf("%s/%s/chk-%d/", job.Cluster, job.Job, n),
			MetadataSHA256: strings.Repeat("0", 64)})
		require.NoError(t, err)
	}
	for spec, want := range map[string][]stores.JobID{"c1=c1": {jobA, jobB}, blobstate.AnyCluster: {jobA, jobB, other}} {
		layout, err := blobstate.ParseLayout(spec)
		require.NoError(t, err)
		p := &passLog{running: map[stores.JobID]int{}}
		d, stop := startRetentionDrain(t.Context(), p.pass, slog.New(slog.DiscardHandler))
		d.done.Add(1)
		go d.sweep(d.ctx, HandleJobs(states, layout))
		require.Eventually(t, func() bool { return p.count() == len(want) }, 5*time.Second, time.Millisecond, spec)
		stop()
		assert.ElementsMatch(t, want, p.passes, spec)
	}
}
