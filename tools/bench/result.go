package bench

import (
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Result is one measured load run of one path on one store.
type Result struct {
	Store     worker.StoreKind `json:"store"`
	Path      Path             `json:"path"`
	Load      Load             `json:"load"`
	Published int              `json:"published"`
	// Errors counts the finalizations that failed or ended other than
	// Published; Discarded those of them that ended Discarded (fell
	// behind: a later checkpoint overtook them). Over all repetitions in a
	// median result.
	Errors     int    `json:"errors"`
	Discarded  int    `json:"discarded,omitempty"`
	FirstError string `json:"firstError,omitempty"`
	// Throughput is Published finalizations per second of the run.
	Throughput float64 `json:"throughput"`
	Latency    Latency `json:"latency"`
	// TriggerP50 is the median time the trigger took to be accepted, a
	// part of Latency; 0 for the direct path.
	TriggerP50 time.Duration `json:"triggerP50,omitempty"`
	// CPUCores is the worker process's CPU time over the run's wall time;
	// CPUPerFinalization divides it by the Published count.
	CPUCores           float64       `json:"cpuCores"`
	CPUPerFinalization time.Duration `json:"cpuPerFinalization"`
	// ServerCores is the Temporal server's CPU time over the run's wall
	// time: where much of a workflow path's cost goes. DatabaseCores is
	// its PostgreSQL's (0 on the dev server, whose SQLite is inside
	// ServerCores).
	ServerCores   float64 `json:"serverCores"`
	DatabaseCores float64 `json:"databaseCores,omitempty"`
	// ServerCPUPerFinalization is the Temporal server's and its
	// database's CPU time divided by the Published count.
	ServerCPUPerFinalization time.Duration `json:"serverCpuPerFinalization"`
	// PeakRSS is the worker process's VmHWM over the run.
	PeakRSS int64 `json:"peakRssBytes"`
	// RetentionSettle is I5 after the run's burst (durable, max mode, on
	// ZooKeeper and Kubernetes): how long until every job held no more
	// references than retention keeps and the newest.
	RetentionSettle *Settle `json:"retentionSettle,omitempty"`
	// Steps break the measured run down per finalization (the paths the
	// worker runs, remote included; see Step).
	Steps []Step `json:"steps,omitempty"`
	// Runs are the repetitions of the cell a median result was computed
	// from (see medianResult); empty for a single run.
	Runs []Result `json:"runs,omitempty"`
}

func newResult(store worker.StoreKind, path Path, load Load, s Sample, u Usage) Result {
	r := Result{
		Store: store, Path: path, Load: load,
		Published: len(s.Latencies), Errors: s.Errors, Discarded: s.Discarded, FirstError: s.FirstError,
		Throughput: s.Throughput(), Latency: s.Summary(), PeakRSS: u.PeakRSS,
		TriggerP50: summarize(s.Triggers).P50,
		Steps:      u.Steps.steps(len(s.Latencies)),
	}
	if s.Elapsed > 0 {
		r.CPUCores = u.CPU.Seconds() / s.Elapsed.Seconds()
		r.ServerCores = u.ServerCPU.Seconds() / s.Elapsed.Seconds()
		r.DatabaseCores = u.DatabaseCPU.Seconds() / s.Elapsed.Seconds()
	}
	if r.Published > 0 {
		r.CPUPerFinalization = u.CPU / time.Duration(r.Published)
		r.ServerCPUPerFinalization = (u.ServerCPU + u.DatabaseCPU) / time.Duration(r.Published)
	}
	return r
}
