package bench

import (
	"fmt"
	"time"
)

// Report is a whole run's outcome.
type Report struct {
	Started time.Time     `json:"started"`
	Took    time.Duration `json:"took"`
	// Machine: CPUs as the OS reports them, and Go's view.
	CPUs       int      `json:"cpus"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	Settings   Settings `json:"settings"`
	Results    []Result `json:"results"`
	Parked     []Parked `json:"parked,omitempty"`
	// Scaling are the durable path's rate runs over cfg.ScaleJobs jobs
	// each, at the same total rate.
	Scaling []Result `json:"scaling,omitempty"`
	// Anatomy takes one uneventful finalization of each workflow path
	// apart: the history events and visibility writes it costs.
	Anatomy []Anatomy `json:"anatomy,omitempty"`
	// Footprints are the footprint phase's, one per store it ran on.
	Footprints []Footprint `json:"footprints,omitempty"`
	// WorkerOnly is the worker process's memory with finalizations parked.
	WorkerOnly []WorkerOnly `json:"workerOnly,omitempty"`
	Ratios     []Ratio      `json:"ratios"`
	Targets    []Target     `json:"targets"`
}

// Settings are the run's load settings, for the report.
type Settings struct {
	// Temporal describes the server measured on.
	Temporal    string        `json:"temporal"`
	Rate        float64       `json:"rate"`
	Duration    time.Duration `json:"duration"`
	Warmup      time.Duration `json:"warmup"`
	Repeat      int           `json:"repeat"`
	Concurrency int           `json:"concurrency"`
	Jobs        int           `json:"jobs"`
	Parked      int           `json:"parked"`
	Footprint   int           `json:"footprint,omitempty"`
	Retain      int           `json:"retain"`
}

// find returns the result of a store's path in a mode, if measured.
func (r *Report) find(store string, path Path, mode Mode) (Result, bool) {
	for _, res := range r.Results {
		if string(res.Store) == store && res.Path == path && res.Load.Mode == mode {
			return res, true
		}
	}
	return Result{}, false
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
