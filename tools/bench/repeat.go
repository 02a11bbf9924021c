package bench

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// measureRepeated measures one cell cfg.Repeat times, each on fresh jobs
// (the first under prefix, the next under prefix-r2, prefix-r3...), and
// returns the median of each figure, the repetitions kept in Runs.
func (sr *storeRun) measureRepeated(ctx context.Context, path Path, load Load, prefix string) (Result, error) {
	runs := make([]Result, 0, sr.cfg.Repeat)
	for i := range sr.cfg.Repeat {
		p := prefix
		if i > 0 {
			p = fmt.Sprintf("%s-r%d", prefix, i+1)
		}
		r, err := sr.measure(ctx, path, load, p)
		if err != nil {
			return Result{}, err
		}
		runs = append(runs, r)
	}
	return medianResult(runs), nil
}

// medianResult is one result from the repetitions of a cell: each figure
// their median (the mean of the middle two for an even count), the failed
// and discarded finalizations added up over all of them, so that a
// failure in any repetition shows (and fails the verdicts that use it).
// A single run is returned as it is.
func medianResult(runs []Result) Result {
	if len(runs) == 1 {
		return runs[0]
	}
	m := Result{Store: runs[0].Store, Path: runs[0].Path, Load: runs[0].Load, Runs: runs}
	for _, r := range runs {
		m.Errors += r.Errors
		m.Discarded += r.Discarded
		if m.FirstError == "" {
			m.FirstError = r.FirstError
		}
	}
	m.Published = median(runs, func(r Result) int { return r.Published })
	m.Throughput = median(runs, func(r Result) float64 { return r.Throughput })
	m.Latency = Latency{
		P50: median(runs, func(r Result) time.Duration { return r.Latency.P50 }),
		P95: median(runs, func(r Result) time.Duration { return r.Latency.P95 }),
		P99: median(runs, func(r Result) time.Duration { return r.Latency.P99 }),
		Max: median(runs, func(r Result) time.Duration { return r.Latency.Max }),
	}
	m.TriggerP50 = median(runs, func(r Result) time.Duration { return r.TriggerP50 })
	m.CPUCores = median(runs, func(r Result) float64 { return r.CPUCores })
	m.CPUPerFinalization = median(runs, func(r Result) time.Duration { return r.CPUPerFinalization })
	m.ServerCores = median(runs, func(r Result) float64 { return r.ServerCores })
	m.DatabaseCores = median(runs, func(r Result) float64 { return r.DatabaseCores })
	m.ServerCPUPerFinalization = median(runs, func(r Result) time.Duration { return r.ServerCPUPerFinalization })
	m.PeakRSS = median(runs, func(r Result) int64 { return r.PeakRSS })
	m.RetentionSettle = medianSettle(runs)
	m.Steps = medianSteps(runs)
	return m
}

type number interface {
	~int | ~int64 | ~float64
}

// median of one figure over the runs.
func median[T number](runs []Result, figure func(Result) T) T {
	v := figures(runs, figure)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// spread is the lowest and the highest of one figure over the runs.
func spread[T number](runs []Result, figure func(Result) T) (lo, hi T) {
	v := figures(runs, figure)
	return v[0], v[len(v)-1]
}

// figures are one figure of every run, sorted.
func figures[T number](runs []Result, figure func(Result) T) []T {
	v := make([]T, len(runs))
	for i, r := range runs {
		v[i] = figure(r)
	}
	slices.SortFunc(v, cmp.Compare[T])
	return v
}

// medianSettle is the median of the runs' retention settle times, not
// settled if any run did not settle; nil when no run measured it.
func medianSettle(runs []Result) *Settle {
	var measured []Result
	settled := true
	for _, r := range runs {
		if r.RetentionSettle != nil {
			measured = append(measured, r)
			settled = settled && r.RetentionSettle.Settled
		}
	}
	if len(measured) == 0 {
		return nil
	}
	took := median(measured, func(r Result) time.Duration { return r.RetentionSettle.Took })
	return &Settle{Took: took, Settled: settled}
}
