package bench

import (
	"slices"
	"time"
)

// Sample is what one load run measured.
type Sample struct {
	// Latencies of the finalizations that ended Published.
	Latencies []time.Duration `json:"latencies"`
	// Triggers are how long the Published ones' triggers took to be
	// accepted, where the path has a trigger.
	Triggers []time.Duration `json:"triggers,omitempty"`
	// Errors counts finalizations that failed or ended otherwise;
	// Discarded those of them that ended Discarded.
	Errors    int `json:"errors"`
	Discarded int `json:"discarded,omitempty"`
	// FirstError says why, for the report.
	FirstError string `json:"firstError,omitempty"`
	// Elapsed is from the first send to the last completion.
	Elapsed time.Duration `json:"elapsed"`
}

// Latency is a summary of a sample's latencies.
type Latency struct {
	P50 time.Duration `json:"p50"`
	P95 time.Duration `json:"p95"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
}

// Summary sorts the latencies and picks the percentiles (nearest rank).
func (s Sample) Summary() Latency { return summarize(s.Latencies) }

func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	d := slices.Clone(ds)
	slices.Sort(d)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(d))+0.999999) - 1
		return d[max(0, min(i, len(d)-1))]
	}
	return Latency{P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: d[len(d)-1]}
}

// Throughput is Published finalizations per second.
func (s Sample) Throughput() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(len(s.Latencies)) / s.Elapsed.Seconds()
}
