package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

func result(path Path, mode Mode, throughput float64, p50, p99 time.Duration) Result {
	return Result{
		Store: worker.StoreZooKeeper, Path: path, Load: Load{Mode: mode}, Published: 10,
		Throughput: throughput, Latency: Latency{P50: p50, P99: p99},
	}
}

func TestTargetsEvaluated(t *testing.T) {
	scaled := func(jobs int, throughput float64) Result {
		r := result(Durable, Rate, throughput, 0, 0)
		r.Load.Jobs = jobs
		return r
	}
	rep := &Report{Settings: Settings{Rate: 20}, Results: []Result{
		result(Floor, Max, 100, 0, 0),
		result(Durable, Max, 90, 0, 0),
		result(Naive, Max, 30, 0, 0),
		result(Floor, Rate, 20, 20*time.Millisecond, 50*time.Millisecond),
		result(Durable, Rate, 20, 25*time.Millisecond, 200*time.Millisecond),
		result(Direct, Rate, 20, 2*time.Millisecond, 5*time.Millisecond),
	}, Scaling: []Result{scaled(1, 20), scaled(10, 20), scaled(1000, 15.9)}}
	rep.Parked = []Parked{{Store: worker.StoreZooKeeper, Count: 1000,
		Without: Result{Throughput: 100}, With: Result{Throughput: 79, PeakRSS: 100 << 20}}}
	rep.WorkerOnly = []WorkerOnly{{Store: worker.StoreZooKeeper, IdleRSS: 40 << 20, Steps: []WorkerOnlyRSS{
		{Parked: 1000, Confirmed: 1000, RSS: 151 << 20}, {Parked: 10000, Confirmed: 10000, RSS: 601 << 20}}}}
	rep.evaluate([]worker.StoreKind{worker.StoreZooKeeper})

	status := map[string]Status{}
	for _, tg := range rep.Targets {
		status[tg.Name] = tg.Status
	}
	assert.Equal(t, map[string]Status{
		"durable throughput ≥ 0.8x floor (max)":                        Met,    // 0.9x
		"durable p50 ≤ 1.5x floor p50 at 20/s offered":                 Met,    // 1.25x
		"durable p99 ≤ 3x floor p99 at 20/s offered":                   NotMet, // 4x
		"durable throughput ≥ 3x naive (max)":                          Met,
		"durable throughput over 1000 jobs ≥ 0.8x over 10 (same rate)": NotMet, // 0.795x
		"worker-only RSS ≤ 150 MiB with 1000 parked":                   NotMet, // 151 MiB
		"fast-path throughput with them parked within 20% of without":  NotMet, // 0.79
	}, status)
	ratios := map[string]float64{}
	for _, x := range rep.Ratios {
		ratios[x.Name] = x.Value
	}
	assert.InDelta(t, 0.9, ratios["durable / floor throughput (max)"], 1e-9)
	assert.InDelta(t, 3.0, ratios["durable / naive throughput (max)"], 1e-9)
	assert.InDelta(t, 12.5, ratios["durable p50 / direct p50 (rate)"], 1e-9)
	for _, tg := range rep.Targets {
		if tg.Name == "worker-only RSS ≤ 150 MiB with 1000 parked" {
			assert.Contains(t, tg.Measured, "+50 MiB per 1,000 more parked")
		}
	}
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
