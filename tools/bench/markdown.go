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

	if len(r.Anatomy) > 0 {
		fmt.Fprintln(w, "\nOne uneventful finalization per path, on a job whose previous checkpoint it subsumes:")
		fmt.Fprintln(w, "\n| store | path | history events | coordinator events | total | visibility writes |\n|---|---|--:|--:|--:|--:|")
		for _, a := range r.Anatomy {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d |\n", a.Store, a.Path, sum(a.Events), sum(a.CoordinatorEvents), a.Total(), a.VisibilityWrites)
		}
		for _, a := range r.Anatomy {
			fmt.Fprintf(w, "\n%s %s: %s", a.Store, a.Path, eventList(a.Events))
			if len(a.CoordinatorEvents) > 0 {
				fmt.Fprintf(w, "; coordinator: %s", eventList(a.CoordinatorEvents))
			}
			fmt.Fprintln(w)
		}
	}

	for _, wo := range r.WorkerOnly {
		fmt.Fprintf(w, "\n%s: finalizer-worker as a process of its own, idle: RSS %s", wo.Store, mib(wo.IdleRSS))
		for _, s := range wo.Steps {
			fmt.Fprintf(w, "; %d parked (%d confirmed Verifying): RSS %s, peak %s", s.Parked, s.Confirmed, mib(s.RSS), mib(s.PeakRSS))
		}
		if g, ok := wo.GrowthPer1000(); ok {
			fmt.Fprintf(w, "; +%s per 1,000 parked", mib(g))
		}
		fmt.Fprintln(w, ".")
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
