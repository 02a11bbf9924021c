package bench

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedianResult(t *testing.T) {
	run := func(throughput float64, p50 time.Duration, errs int, first string) Result {
		return Result{Path: Durable, Load: Load{Mode: Rate}, Published: int(throughput * 10), Throughput: throughput,
			Latency: Latency{P50: p50}, Errors: errs, FirstError: first}
	}
	single := run(20, time.Millisecond, 0, "")
	assert.Equal(t, single, medianResult([]Result{single}), "a single run as it is")

	m := medianResult([]Result{run(18, 30*time.Millisecond, 0, ""), run(20, 10*time.Millisecond, 1, "late"), run(19, 20*time.Millisecond, 2, "later")})
	assert.InDelta(t, 19.0, m.Throughput, 1e-9)
	assert.Equal(t, 20*time.Millisecond, m.Latency.P50)
	assert.Equal(t, 190, m.Published)
	assert.Equal(t, 3, m.Errors, "failures add up over the runs")
	assert.Equal(t, "late", m.FirstError)
	require.Len(t, m.Runs, 3)
	lo, hi := spread(m.Runs, func(r Result) float64 { return r.Throughput })
	assert.Equal(t, [2]float64{18, 20}, [2]float64{lo, hi})

	even := medianResult([]Result{run(18, 10*time.Millisecond, 0, ""), run(20, 20*time.Millisecond, 0, "")})
	assert.InDelta(t, 19.0, even.Throughput, 1e-9, "the mean of the middle two")
	assert.Equal(t, 15*time.Millisecond, even.Latency.P50)
}

func TestMarkdownGivesMedianAndSpread(t *testing.T) {
	runs := []Result{
		{Store: "kubernetes", Path: Floor, Load: Load{Mode: Max}, Published: 10, Throughput: 30, Latency: Latency{P50: 10 * time.Millisecond}},
		{Store: "kubernetes", Path: Floor, Load: Load{Mode: Max}, Published: 12, Throughput: 36, Latency: Latency{P50: 14 * time.Millisecond}},
		{Store: "kubernetes", Path: Floor, Load: Load{Mode: Max}, Published: 11, Throughput: 33, Latency: Latency{P50: 12 * time.Millisecond}},
	}
	rep := &Report{Settings: Settings{Repeat: 3}, Results: []Result{medianResult(runs)}}
	var out bytes.Buffer
	rep.WriteMarkdown(&out)
	assert.Contains(t, out.String(), "| kubernetes | floor | max | 11 | 0 | 33.0 (30.0-36.0) | 12.0 ms (10.0-14.0 ms) |")
	assert.Contains(t, out.String(), "measured 3 times")
}
