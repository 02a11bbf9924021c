package bench

import (
	"fmt"
	"io"
	"time"
)

// WriteMarkdown writes the report as markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) {
	s := r.Settings
	fmt.Fprintf(w, "## finalizer-bench, %s (%d CPUs, GOMAXPROCS %d), took %s\n\nTemporal: %s.\n\n",
		r.Started.UTC().Format(time.RFC3339), r.CPUs, r.GOMAXPROCS, r.Took.Round(time.Second), s.Temporal)
	fmt.Fprintf(w, "rate mode: %g/s offered open loop over %d jobs, latency from the scheduled send; "+
		"max mode: %d closed-loop triggerers, latency from the send; %s measured after %s warm-up; retain %d. "+
		"CPU and peak RSS are the process running the worker (and, except for the separate-process path, the triggers).\n\n",
		s.Rate, s.Jobs, s.Concurrency, s.Duration, s.Warmup, s.Retain)

	fmt.Fprintln(w, "| store | path | mode | published | failed | throughput/s | p50 | p95 | p99 | max | trigger p50 | CPU cores | CPU/finalization | peak RSS | Temporal CPU cores | DB CPU cores | server CPU/finalization |")
	fmt.Fprintln(w, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, res := range r.Results {
		writeResult(w, res, "")
	}
	for _, res := range r.Scaling {
		writeResult(w, res, fmt.Sprintf("rate, %d jobs", res.Load.Jobs))
	}
	for _, p := range r.Parked {
		writeResult(w, p.Without, "parked: without")
		writeResult(w, p.With, fmt.Sprintf("parked: with %d", p.Count))
	}
	for _, res := range append(append(r.Results, r.Scaling...), parkedResults(r.Parked)...) {
		if res.FirstError != "" {
			fmt.Fprintf(w, "\nfirst failure of %s %s %s: %s\n", res.Store, res.Path, res.Load.Mode, shorten(res.FirstError, 400))
		}
	}
	for _, p := range r.Parked {
		fmt.Fprintf(w, "\n%s: %d finalizations parked (unreadable entries written into ZooKeeper first), %d found Verifying after %s, "+
			"measured %s later with %.1f verify calls/s going on (their retries), %d still Verifying after it; worker RSS %s once parked.\n",
			p.Store, p.Count, p.Confirmed, p.ParkTime.Round(time.Millisecond), p.Settle, p.VerifyRate, p.StillParked, mib(p.RSSParked))
	}

	fmt.Fprintln(w, "\n| store | ratio | value |\n|---|---|--:|")
	for _, x := range r.Ratios {
		fmt.Fprintf(w, "| %s | %s | %.2f |\n", x.Store, x.Name, x.Value)
	}
	fmt.Fprintln(w, "\n| store | target | measured | status |\n|---|---|---|---|")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.Store, t.Name, t.Measured, t.Status)
	}
}

func writeResult(w io.Writer, r Result, mode string) {
	if mode == "" {
		mode = string(r.Load.Mode)
	}
	trigger := "-"
	if r.TriggerP50 > 0 {
		trigger = ms(r.TriggerP50)
	}
	db := "-" // the dev server's SQLite runs inside its process
	if r.DatabaseCores > 0 {
		db = fmt.Sprintf("%.2f", r.DatabaseCores)
	}
	fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %.1f | %s | %s | %s | %s | %s | %.2f | %s | %s | %.2f | %s | %s |\n",
		r.Store, r.Path, mode, r.Published, r.Errors, r.Throughput,
		ms(r.Latency.P50), ms(r.Latency.P95), ms(r.Latency.P99), ms(r.Latency.Max), trigger,
		r.CPUCores, ms(r.CPUPerFinalization), mib(r.PeakRSS), r.ServerCores, db, ms(r.ServerCPUPerFinalization))
}

// shorten cuts an SDK error chain, which repeats itself, to n bytes.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " ..."
}

func parkedResults(ps []Parked) []Result {
	var rs []Result
	for _, p := range ps {
		rs = append(rs, p.Without, p.With)
	}
	return rs
}
