package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

func result(path Path, mode Mode, throughput float64, p50, p99 time.Duration) Result {
	return Result{
		Store: worker.StoreZooKeeper, Path: path, Load: Load{Mode: mode}, Published: 10,
		Throughput: throughput, Latency: Latency{P50: p50, P99: p99},
	}
}

func TestTargetsEvaluated(t *testing.T) {
	rep := &Report{Settings: Settings{Rate: 20}, Results: []Result{
		result(Durable, Max, 90, 0, 0),
		result(Naive, Max, 30, 0, 0),
		result(Durable, Rate, 20, 25*time.Millisecond, 200*time.Millisecond),
		result(Direct, Rate, 20, 2*time.Millisecond, 5*time.Millisecond),
	}}
	rep.Parked = []Parked{{Store: worker.StoreZooKeeper, Count: 1000,
		Without: Result{Throughput: 100}, With: Result{Throughput: 79, PeakRSS: 100 << 20}}}
	rep.evaluate([]worker.StoreKind{worker.StoreZooKeeper})

	status := map[string]Status{}
	for _, tg := range rep.Targets {
		status[tg.Name] = tg.Status
	}
	assert.Equal(t, map[string]Status{
		"durable throughput ≥ 3x naive":                               Met,
		"durable p50 ≤ 30.0 ms at 20/s offered":                       Met,
		"durable p99 ≤ 150.0 ms at 20/s offered":                      NotMet,
		"durable p50 within 10x direct p50":                           NotMet, // 12.5x
		"worker RSS ≤ 150 MiB with 1000 parked":                       Met,
		"fast-path throughput with them parked within 20% of without": NotMet, // 0.79
	}, status)
	require.NotEmpty(t, rep.Ratios)
	assert.InDelta(t, 3.0, rep.Ratios[0].Value, 1e-9)
}

func TestTargetsNeverMetWithFailures(t *testing.T) {
	failed := result(Durable, Rate, 20, time.Millisecond, time.Millisecond)
	failed.Errors = 1
	rep := &Report{Settings: Settings{Rate: 20}, Results: []Result{failed}}
	rep.evaluate([]worker.StoreKind{worker.StoreZooKeeper})
	for _, tg := range rep.Targets {
		assert.NotEqual(t, Met, tg.Status, tg.Name)
	}
}
