package bench

import (
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// The targets, each a ratio to a
// path measured in the same run on the same servers (absolute figures move
// with the machine), or a count taken from the histories.
const (
	minFloorThroughput = 0.8  // durable throughput at max, share of the floor's
	maxFloorP50        = 1.25 // durable p50 at the offered rate, times the floor's
	maxFloorP99        = 2.0  // durable p99 at the offered rate, times the floor's
	maxRemoteP50       = 2.0  // remote p50 at the offered rate, times the floor's
	maxServerCPU       = 1.3  // durable server (+ database) CPU per finalization, times the floor's
	maxEvents          = 9    // history events per uneventful finalization, the coordinator's for it included
	maxActions         = 3    // billable actions per uneventful finalization, the coordinator's for it included
	minNaiveRatio      = 3.0
	minScaleFactor     = 0.8 // throughput over the most jobs, share of over 10
	maxParkedRSS       = 150 << 20
	maxParkedFactor    = 0.8         // throughput with them parked, at least this share of without
	maxRetentionSettle = time.Second // after a burst, until every job holds at most retention's references and the newest
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

// evaluate computes the ratios and the targets from the results (the
// medians of repeated cells). A run with errors never meets a target.
func (r *Report) evaluate(kinds []worker.StoreKind) {
	for _, k := range kinds {
		r.evaluateStore(string(k))
	}
	r.evaluateParked()
	r.evaluateFootprints()
	r.evaluateWorkerOnly()
}

// evaluateStore adds one store's ratios and targets.
func (r *Report) evaluateStore(store string) {
	durMax, okDM := r.find(store, Durable, Max)
	durRate, okDR := r.find(store, Durable, Rate)
	floorMax, okFM := r.find(store, Floor, Max)
	floorRate, okFR := r.find(store, Floor, Rate)
	naiveMax, okNM := r.find(store, Naive, Max)
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
	// throughputAtLeast adds a target "a's throughput ≥ min x b's".
	throughputAtLeast := func(name, ratioName string, a, b Result, ok bool, min float64) {
		ok = ok && b.Throughput > 0
		if ok {
			r.Ratios = append(r.Ratios, Ratio{store, ratioName, a.Throughput / b.Throughput})
		}
		add(name, ok, func() (bool, string) {
			x := a.Throughput / b.Throughput
			return x >= min, fmt.Sprintf("%.2fx (%.1f/s vs %.1f/s)", x, a.Throughput, b.Throughput)
		}, a, b)
	}
	// durationAtMost adds a target "a's figure ≤ max x the floor's".
	durationAtMost := func(name, ratioName string, a, floor Result, figure func(Result) time.Duration, ok bool, max float64, extra func() (bool, string)) {
		ok = ok && figure(floor) > 0
		if ok {
			r.Ratios = append(r.Ratios, Ratio{store, ratioName, ratio(figure(a), figure(floor))})
		}
		add(name, ok, func() (bool, string) {
			x := ratio(figure(a), figure(floor))
			met, measured := x <= max, fmt.Sprintf("%.2fx (%s vs %s)", x, ms(figure(a)), ms(figure(floor)))
			if extra != nil {
				more, what := extra()
				met, measured = met && more, measured+", "+what
			}
			return met, measured
		}, a, floor)
	}
	p50 := func(r Result) time.Duration { return r.Latency.P50 }
	p99 := func(r Result) time.Duration { return r.Latency.P99 }
	serverCPU := func(r Result) time.Duration { return r.ServerCPUPerFinalization }

	throughputAtLeast(fmt.Sprintf("durable throughput ≥ %.1fx floor (max)", minFloorThroughput),
		"durable / floor throughput (max)", durMax, floorMax, okDM && okFM, minFloorThroughput)
	at := fmt.Sprintf("at %g/s offered", r.Settings.Rate)
	durationAtMost(fmt.Sprintf("durable p50 ≤ %gx floor p50 %s", maxFloorP50, at), "durable p50 / floor p50 (rate)",
		durRate, floorRate, p50, okDR && okFR, maxFloorP50, nil)
	durationAtMost(fmt.Sprintf("durable p99 ≤ %gx floor p99 %s", maxFloorP99, at), "durable p99 / floor p99 (rate)",
		durRate, floorRate, p99, okDR && okFR, maxFloorP99, nil)
	durationAtMost(fmt.Sprintf("remote p50 ≤ %gx floor p50 %s, none discarded", maxRemoteP50, at), "remote p50 / floor p50 (rate)",
		remoteRate, floorRate, p50, okRR && okFR, maxRemoteP50, func() (bool, string) {
			return remoteRate.Discarded == 0, fmt.Sprintf("%d discarded", remoteRate.Discarded)
		})
	// Server CPU per finalization at the highest load both paths were
	// measured at: at max the server's idle CPU weighs least.
	cpuDur, cpuFloor, okCPU, cpuMode := durMax, floorMax, okDM && okFM, Max
	if !okCPU {
		cpuDur, cpuFloor, okCPU, cpuMode = durRate, floorRate, okDR && okFR, Rate
	}
	durationAtMost(fmt.Sprintf("durable server CPU per finalization ≤ %gx floor's (%s)", maxServerCPU, cpuMode),
		fmt.Sprintf("durable / floor server CPU per finalization (%s)", cpuMode),
		cpuDur, cpuFloor, serverCPU, okCPU, maxServerCPU, nil)

	durAnatomy, okDA := r.anatomyOf(store, Durable)
	floorAnatomy, okFA := r.anatomyOf(store, Floor)
	floorSays := func(figure func(Anatomy) int) string {
		if !okFA {
			return ""
		}
		return fmt.Sprintf("; floor %d", figure(floorAnatomy))
	}
	add(fmt.Sprintf("durable history events per uneventful finalization ≤ %d (coordinator's included)", maxEvents), okDA, func() (bool, string) {
		return durAnatomy.Total() <= maxEvents, fmt.Sprintf("%d (%d own, %d coordinator's)%s",
			durAnatomy.Total(), sum(durAnatomy.Events), sum(durAnatomy.CoordinatorEvents), floorSays(Anatomy.Total))
	})
	add(fmt.Sprintf("durable billable actions per uneventful finalization ≤ %d (coordinator's included)", maxActions), okDA, func() (bool, string) {
		return durAnatomy.TotalActions() <= maxActions, fmt.Sprintf("%d (%d own, %d coordinator's)%s",
			durAnatomy.TotalActions(), durAnatomy.Actions, durAnatomy.CoordinatorActions, floorSays(Anatomy.TotalActions))
	})

	if store != string(worker.StoreEmbedded) {
		settle := durMax.RetentionSettle
		add(fmt.Sprintf("I5 after a burst: every job at most retain + the newest references within %s (durable, max)", maxRetentionSettle),
			okDM && settle != nil, func() (bool, string) {
				if !settle.Settled {
					return false, fmt.Sprintf("not settled after %s", ms(settle.Took))
				}
				return settle.Took <= maxRetentionSettle, fmt.Sprintf("%s (%d jobs, retain %d)", ms(settle.Took), durMax.Load.Concurrency, r.Settings.Retain)
			}, durMax)
	}

	throughputAtLeast(fmt.Sprintf("durable throughput ≥ %.0fx naive (max)", minNaiveRatio),
		"durable / naive throughput (max)", durMax, naiveMax, okDM && okNM, minNaiveRatio)

	ten, okTen := r.scaled(store, 10)
	most, okMost := r.scaled(store, r.mostJobs(store))
	manyJobs := most.Load.Jobs
	if manyJobs <= 10 {
		manyJobs = 1000 // the figure, when the run measured fewer
	}
	throughputAtLeast(fmt.Sprintf("durable throughput over %d jobs ≥ %.1fx over 10 (same rate)", manyJobs, minScaleFactor),
		fmt.Sprintf("durable throughput over %d jobs / over 10 (rate)", manyJobs), most, ten, okTen && okMost && most.Load.Jobs > 10, minScaleFactor)

	if okDR && okXR && directRate.Latency.P50 > 0 {
		r.Ratios = append(r.Ratios, Ratio{store, "durable p50 / direct p50 (rate)", ratio(durRate.Latency.P50, directRate.Latency.P50)})
	}
	if okDR && okRR && durRate.Latency.P50 > 0 {
		r.Ratios = append(r.Ratios, Ratio{store, "separate-process p50 / in-process eager p50 (rate)", ratio(remoteRate.Latency.P50, durRate.Latency.P50)})
	}
}

// evaluateParked adds the parked scenario's target.
func (r *Report) evaluateParked() {
	for _, p := range r.Parked {
		store := string(p.Store)
		st := func(ok bool) Status {
			if p.Without.Errors+p.With.Errors > 0 || !ok {
				return NotMet
			}
			return Met
		}
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

// evaluateFootprints adds the footprint target of each store measured.
func (r *Report) evaluateFootprints() {
	for _, f := range r.Footprints {
		if len(f.Points) < 2 {
			continue
		}
		first, last := f.Points[0], f.Points[len(f.Points)-1]
		t := Target{
			Store: string(f.Store), Name: fmt.Sprintf("store footprint of one job after %d checkpoints the same as after %d", last.Checkpoints, first.Checkpoints),
			Measured: fmt.Sprintf("%d keys, %d bytes vs %d keys, %d bytes", last.Keys, last.Bytes, first.Keys, first.Bytes),
			Status:   NotMet,
		}
		if u := f.unsettled(); u != nil {
			t.Measured += fmt.Sprintf(" (retention not settled after %d checkpoints)", u.Checkpoints)
		}
		if f.Bounded() {
			t.Status = Met
		}
		r.Targets = append(r.Targets, t)
	}
}

// evaluateWorkerOnly adds the worker process's memory target, on its
// first step (1,000 parked by default), and states the growth.
func (r *Report) evaluateWorkerOnly() {
	for _, w := range r.WorkerOnly {
		if len(w.Steps) == 0 {
			continue
		}
		s := w.Steps[0]
		t := Target{
			Store: string(w.Store), Name: fmt.Sprintf("worker-only RSS ≤ %s with %d parked", mib(maxParkedRSS), s.Parked),
			Measured: fmt.Sprintf("%s (%d confirmed Verifying; peak %s, idle %s)", mib(s.RSS), s.Confirmed, mib(s.PeakRSS), mib(w.IdleRSS)),
			Status:   NotMet,
		}
		if s.RSS <= maxParkedRSS && s.Confirmed >= s.Parked {
			t.Status = Met
		}
		if g, ok := w.GrowthPer1000(); ok {
			t.Measured += fmt.Sprintf("; +%s per 1,000 more parked", mib(g))
		}
		r.Targets = append(r.Targets, t)
	}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// anatomyOf is the store's anatomy of path, if taken.
func (r *Report) anatomyOf(store string, path Path) (Anatomy, bool) {
	for _, a := range r.Anatomy {
		if string(a.Store) == store && a.Path == path {
			return a, true
		}
	}
	return Anatomy{}, false
}

// scaled is the store's scaling run over jobs jobs.
func (r *Report) scaled(store string, jobs int) (Result, bool) {
	for _, res := range r.Scaling {
		if string(res.Store) == store && res.Load.Jobs == jobs {
			return res, true
		}
	}
	return Result{}, false
}

// mostJobs is the largest job count of the store's scaling runs.
func (r *Report) mostJobs(store string) int {
	most := 0
	for _, res := range r.Scaling {
		if string(res.Store) == store {
			most = max(most, res.Load.Jobs)
		}
	}
	return most
}

func errorCount(rs []Result) int {
	n := 0
	for _, r := range rs {
		n += r.Errors
	}
	return n
}
