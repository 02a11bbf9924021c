package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
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
	if s.Repeat > 1 {
		fmt.Fprintf(w, "Every cell measured %d times on fresh jobs: each figure is the median, throughput, p50, p99 and "+
			"the CPU per finalization followed by their spread (min-max); failed (and discarded) count every run; "+
			"the ratios and targets use the medians.\n\n", s.Repeat)
	}

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
	writeSteps(w, r.Results)
	for _, p := range r.Parked {
		fmt.Fprintf(w, "\n%s: %d finalizations parked (unreadable entries written into ZooKeeper first), %d found Verifying after %s, "+
			"measured %s later with %.1f verify calls/s going on (their retries), %d still Verifying after it; worker RSS %s once parked.\n",
			p.Store, p.Count, p.Confirmed, p.ParkTime.Round(time.Millisecond), p.Settle, p.VerifyRate, p.StillParked, mib(p.RSSParked))
	}

	if len(r.Anatomy) > 0 {
		fmt.Fprintln(w, "\nOne uneventful finalization per path, on a job whose previous checkpoint it subsumes "+
			"(billable actions counted from the histories by Temporal Cloud's published rules; heartbeats leave no event and are not in them):")
		fmt.Fprintln(w, "\n| store | path | history events | coordinator events | total | visibility writes | actions | coordinator actions | total actions |\n|---|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, a := range r.Anatomy {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", a.Store, a.Path, sum(a.Events), sum(a.CoordinatorEvents), a.Total(), a.VisibilityWrites,
				a.Actions, a.CoordinatorActions, a.TotalActions())
		}
		for _, a := range r.Anatomy {
			fmt.Fprintf(w, "\n%s %s: %s", a.Store, a.Path, eventList(a.Events))
			if len(a.CoordinatorEvents) > 0 {
				fmt.Fprintf(w, "; coordinator: %s", eventList(a.CoordinatorEvents))
			}
			fmt.Fprintln(w)
		}
	}

	for _, f := range r.Footprints {
		fmt.Fprintf(w, "\n%s: footprint of one job finalized through the durable path, one checkpoint after the other", f.Store)
		for _, p := range f.Points {
			fmt.Fprintf(w, "; after %d checkpoints: %d keys, %d bytes", p.Checkpoints, p.Keys, p.Bytes)
			if !p.Settled {
				fmt.Fprint(w, " (retention not settled)")
			}
		}
		fmt.Fprintln(w, ".")
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

// writeSteps breaks down, per finalization, the cells the worker ran.
func writeSteps(w io.Writer, results []Result) {
	var rows []string
	for _, r := range results {
		if len(r.Steps) == 0 {
			continue
		}
		steps := make([]string, len(r.Steps))
		for i, s := range r.Steps {
			steps[i] = fmt.Sprintf("%s %.2f", s.Name, s.PerFinalization)
			if s.Mean > 0 {
				steps[i] += " × " + ms(s.Mean)
			}
			if s.P99 > 0 {
				steps[i] += " (p99 ≤ " + ms(s.P99)
				if s.Max > 0 {
					steps[i] += ", max ≤ " + ms(s.Max)
				}
				steps[i] += ")"
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", r.Store, r.Path, r.Load.Mode, strings.Join(steps, "; ")))
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWhere the measured runs went, per finalization: the worker's local activities (calls × mean execution), "+
		"the workflow tasks it polled for (their schedule-to-start: an eagerly started task has none), "+
		"its process's calls to the Temporal frontend (rpc, by operation; long polls apart) "+
		"and, on Kubernetes, the API server's ConfigMap requests by verb (requests × mean handling, background retention's "+
		"included) and the updates it refused with 409 Conflict; a p99 or max is the upper bound of the histogram bucket it falls in.")
	fmt.Fprintln(w, "\n| store | path | mode | per finalization |\n|---|---|---|---|")
	for _, row := range rows {
		fmt.Fprintln(w, row)
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
	failed := strconv.Itoa(r.Errors)
	if r.Discarded > 0 {
		failed += fmt.Sprintf(" (%d discarded)", r.Discarded)
	}
	perSecond := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %.2f | %s | %s |\n",
		r.Store, r.Path, mode, r.Published, failed,
		withSpread(r, perSecond, func(r Result) float64 { return r.Throughput }),
		withSpread(r, ms, func(r Result) time.Duration { return r.Latency.P50 }), ms(r.Latency.P95),
		withSpread(r, ms, func(r Result) time.Duration { return r.Latency.P99 }), ms(r.Latency.Max), trigger,
		r.CPUCores, withSpread(r, ms, func(r Result) time.Duration { return r.CPUPerFinalization }), mib(r.PeakRSS), r.ServerCores, db,
		withSpread(r, ms, func(r Result) time.Duration { return r.ServerCPUPerFinalization }))
}

// withSpread formats a median result's figure followed by its spread over
// the repetitions, "20.1 (19.8-20.3)"; a single run's figure alone.
func withSpread[T number](r Result, format func(T) string, figure func(Result) T) string {
	v := format(figure(r))
	if len(r.Runs) < 2 {
		return v
	}
	lo, hi := spread(r.Runs, figure)
	low, high := format(lo), format(hi)
	if l, unit, ok := strings.Cut(low, " "); ok && strings.HasSuffix(high, " "+unit) {
		low = l // "10.0-14.0 ms"
	}
	return fmt.Sprintf("%s (%s-%s)", v, low, high)
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
