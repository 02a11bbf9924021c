// Package storebench benchmarks the hot calls of a stores.ReferenceStore,
// the ones every finalization waits on: Publish of a fresh checkpoint,
// Verify of a published one (a linearizable read) and Verify of an absent
// one (a read and a fence write). Each backend's *_bench_test.go runs it
// against its real server:
//
//	go test -run '^$' -bench . ./stores/...
//
// Besides the mean (ns/op) each benchmark reports p50 and p99 in
// milliseconds: a finalization waits on single calls, so the tail matters.
package storebench

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Opener returns a store on data of its own; the caller's cleanup closes it.
type Opener func(b *testing.B) stores.ReferenceStore

// jobs makes every benchmark run's job unique: testing.B calls a
// benchmark function several times with growing b.N, on the same store.
var jobs atomic.Int64

const epoch = 1

// Run runs the Publish, VerifyPresent and VerifyAbsent benchmarks on stores
// made by open.
func Run(b *testing.B, open Opener) {
	b.Run("Publish", func(b *testing.B) {
		s, job := claimed(b, open)
		Measure(b, func(i int) {
			require.NoError(b, s.Publish(context.Background(), publication(job, uint64(i+1))))
		})
	})
	b.Run("VerifyPresent", func(b *testing.B) {
		s, job := claimed(b, open)
		p := publication(job, 1)
		require.NoError(b, s.Publish(context.Background(), p))
		Measure(b, func(int) {
			v, err := s.Verify(context.Background(), p.CheckpointID, p.Reference.Token, 1)
			require.NoError(b, err)
			require.Equal(b, stores.Present, v)
		})
	})
	b.Run("VerifyAbsentFence", func(b *testing.B) {
		s, job := claimed(b, open)
		Measure(b, func(i int) {
			id := stores.CheckpointID{JobID: job, Checkpoint: uint64(i + 1)}
			v, err := s.Verify(context.Background(), id, "lost-token", 1)
			require.NoError(b, err)
			require.Equal(b, stores.Absent, v)
		})
	})
}

// claimed opens a store and claims the epoch of a job of its own.
func claimed(b *testing.B, open Opener) (stores.ReferenceStore, stores.JobID) {
	b.Helper()
	s := open(b)
	job := stores.JobID{Cluster: "bench", Job: fmt.Sprintf("job-%d", jobs.Add(1))}
	require.NoError(b, s.ClaimEpoch(context.Background(), job, epoch, "bench"))
	return s, job
}

func publication(job stores.JobID, n uint64) stores.Publication {
	return stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: n},
		Epoch:        epoch,
		Reference: stores.Reference{
			Handle:  fmt.Sprintf("bench/%s/chk-%d/_handle", job.Job, n),
			Token:   fmt.Sprintf("token-%d", n),
			Attempt: 1,
		},
	}
}

// Measure times op b.N times (op gets the iteration) and reports p50 and
// p99 besides the mean.
func Measure(b *testing.B, op func(i int)) {
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		op(i)
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}
