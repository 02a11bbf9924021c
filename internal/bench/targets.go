package bench

import (
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// The targets (2-core machine, server and worker co-located).
const (
	minNaiveRatio   = 3.0
	maxRateP50      = 30 * time.Millisecond
	maxRateP99      = 150 * time.Millisecond
	maxDirectRatio  = 10.0
	maxParkedRSS    = 150 << 20
	maxParkedFactor = 0.8 // throughput with them parked, at least this share of without
)

// Ratio is one comparison the issue asks for.
type Ratio struct {
	Store string  `json:"store"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Status says whether a target is met.
type Status string

const (
	Met         Status = "met"
	NotMet      Status = "NOT MET"
	NotMeasured Status = "not measured"
)

// Target is one of the targets, evaluated on one store's figures.
type Target struct {
	Store    string `json:"store"`
	Name     string `json:"name"`
	Measured string `json:"measured"`
	Status   Status `json:"status"`
}

// evaluate computes the ratios and the targets from the results. A run
// with errors never meets a target.
func (r *Report) evaluate(kinds []worker.StoreKind) {
	for _, k := range kinds {
		store := string(k)
		durMax, okDM := r.find(store, Durable, Max)
		naiveMax, okNM := r.find(store, Naive, Max)
		durRate, okDR := r.find(store, Durable, Rate)
		directRate, okXR := r.find(store, Direct, Rate)
		remoteRate, okRR := r.find(store, Remote, Rate)

		add := func(name string, ok bool, cond func() (bool, string), results ...Result) {
			t := Target{Store: store, Name: name, Status: NotMeasured, Measured: "-"}
			if ok {
				met, measured := cond()
				t.Measured, t.Status = measured, NotMet
				if errs := errorCount(results); errs > 0 {
					t.Measured += fmt.Sprintf(" (%d failed finalizations)", errs)
				} else if met {
					t.Status = Met
				}
			}
			r.Targets = append(r.Targets, t)
		}

		if okDM && okNM && naiveMax.Throughput > 0 {
			r.Ratios = append(r.Ratios, Ratio{store, "durable / naive throughput (max)", durMax.Throughput / naiveMax.Throughput})
		}
		add(fmt.Sprintf("durable throughput ≥ %.0fx naive", minNaiveRatio), okDM && okNM && naiveMax.Throughput > 0, func() (bool, string) {
			x := durMax.Throughput / naiveMax.Throughput
			return x >= minNaiveRatio, fmt.Sprintf("%.1fx (%.1f/s vs %.1f/s)", x, durMax.Throughput, naiveMax.Throughput)
		}, durMax, naiveMax)

		at := fmt.Sprintf("at %g/s offered", r.Settings.Rate)
		add(fmt.Sprintf("durable p50 ≤ %s %s", ms(maxRateP50), at), okDR, func() (bool, string) {
			return durRate.Latency.P50 <= maxRateP50, ms(durRate.Latency.P50)
		}, durRate)
		add(fmt.Sprintf("durable p99 ≤ %s %s", ms(maxRateP99), at), okDR, func() (bool, string) {
			return durRate.Latency.P99 <= maxRateP99, ms(durRate.Latency.P99)
		}, durRate)

		if okDR && okXR && directRate.Latency.P50 > 0 {
			r.Ratios = append(r.Ratios, Ratio{store, "durable p50 / direct p50 (rate)", ratio(durRate.Latency.P50, directRate.Latency.P50)})
		}
		add(fmt.Sprintf("durable p50 within %.0fx direct p50", maxDirectRatio), okDR && okXR && directRate.Latency.P50 > 0, func() (bool, string) {
			x := ratio(durRate.Latency.P50, directRate.Latency.P50)
			return x <= maxDirectRatio, fmt.Sprintf("%.1fx (%s vs %s)", x, ms(durRate.Latency.P50), ms(directRate.Latency.P50))
		}, durRate, directRate)

		if okDR && okRR && durRate.Latency.P50 > 0 {
			r.Ratios = append(r.Ratios, Ratio{store, "separate-process p50 / in-process eager p50 (rate)", ratio(remoteRate.Latency.P50, durRate.Latency.P50)})
		}
	}
	for _, p := range r.Parked {
		store := string(p.Store)
		st := func(ok bool) Status {
			if p.Without.Errors+p.With.Errors > 0 || !ok {
				return NotMet
			}
			return Met
		}
		r.Targets = append(r.Targets, Target{
			Store: store, Name: fmt.Sprintf("worker RSS ≤ %s with %d parked", mib(maxParkedRSS), p.Count),
			Measured: fmt.Sprintf("peak %s under load, %s idle", mib(p.With.PeakRSS), mib(p.RSSParked)),
			Status:   st(p.With.PeakRSS <= maxParkedRSS),
		})
		if p.Without.Throughput > 0 {
			x := p.With.Throughput / p.Without.Throughput
			r.Ratios = append(r.Ratios, Ratio{store, fmt.Sprintf("throughput with %d parked / without", p.Count), x})
			r.Targets = append(r.Targets, Target{
				Store: store, Name: "fast-path throughput with them parked within 20% of without",
				Measured: fmt.Sprintf("%.2fx (%.1f/s vs %.1f/s)", x, p.With.Throughput, p.Without.Throughput),
				Status:   st(x >= maxParkedFactor),
			})
		}
	}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func errorCount(rs []Result) int {
	n := 0
	for _, r := range rs {
		n += r.Errors
	}
	return n
}
