package bench

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Path is one way of finalizing a checkpoint.
type Path string

// The paths a run compares.
const (
	// Floor: the cheapest workflow Temporal runs for it, two local
	// activities reading the store in the first workflow task, started
	// eagerly in-process: the yardstick of the workflow paths' cost.
	Floor Path = "floor"
	// Durable: the finalizer's workflow, triggered in the worker's process
	// through the worker's own Temporal client with eager start.
	Durable Path = "durable"
	// Remote: the same workflow triggered from a separate client process,
	// without eager start, as a job manager in another language does.
	Remote Path = "remote"
	// Naive: a workflow with one plain activity per step (persist, publish,
	// report), calling the finalizer's activities.
	Naive Path = "naive"
	// Direct: persist and publish called in-process, no Temporal: the
	// non-durable path Flink's job manager takes.
	Direct Path = "direct"
)

// Paths lists every path in the order a run measures them.
var Paths = []Path{Floor, Durable, Remote, Naive, Direct}

// Modes lists the load modes in the order a run measures them.
var Modes = []Mode{Rate, Max}

// TemporalServer is the Temporal server a run measures on.
type TemporalServer string

// The Temporal servers a run can start.
const (
	// DevServer is the temporal CLI's dev server on a SQLite file.
	DevServer TemporalServer = "dev"
	// Postgres is Temporal server topology.ServerVersion on a private
	// PostgreSQL 15 cluster with SQL advanced visibility: the production
	// topology's server (tools/topology), on its production defaults.
	Postgres TemporalServer = "postgres"
)

// describe names the server for the report.
func (t TemporalServer) describe() string {
	if t == Postgres {
		return "Temporal server " + topology.ServerVersion + " on PostgreSQL 15 with SQL visibility (the production topology's server, production defaults)"
	}
	return "the temporal CLI's dev server on a SQLite file (eager workflow start on)"
}

// TemporalServers lists the servers a run can start.
var TemporalServers = []TemporalServer{DevServer, Postgres}

// Stores lists the HA stores a run can measure.
var Stores = []worker.StoreKind{worker.StoreEmbedded, worker.StoreZooKeeper, worker.StoreKubernetes}

// Config is one benchmark run.
type Config struct {
	Stores []worker.StoreKind
	Paths  []Path
	Modes  []Mode
	// Rate is the offered rate of the Rate mode, finalizations per second.
	Rate float64
	// Duration of every measured load run; Warmup runs before each, unmeasured.
	Duration time.Duration
	Warmup   time.Duration
	// Repeat is how many times every cell (a store's path in a mode, and
	// each scaling run) is measured, on fresh jobs each time; the report
	// gives each figure's median and spread, and the verdicts are
	// computed on the medians.
	Repeat int
	// Concurrency is the Max mode's number of closed-loop triggerers, each
	// on a job of its own.
	Concurrency int
	// Jobs the Rate mode spreads its checkpoints over (round robin), so
	// that one job's finalizations rarely overlap.
	Jobs int
	// ScaleJobs are the job counts the durable path's rate mode runs over
	// again, at the same total rate: per-job contention (the coordinator,
	// the job node's version) shows as the count changes. Empty skips it.
	ScaleJobs []int
	// Parked finalizations for the parked scenario, which runs on
	// ZooKeeper only (it parks them by writing into ZooKeeper); 0 skips it.
	Parked int
	// WorkerParked are the counts of finalizations parked in Verifying
	// on a finalizer-worker process of its own (ZooKeeper only), its
	// memory read at each; empty skips the worker-only scenario.
	WorkerParked []int
	// ParkedSettle is how long the parked finalizations sit before the
	// measured run: their verify retries back off from 1 s towards 5 min,
	// so right after parking they load the worker most.
	ParkedSettle time.Duration
	// Footprint is how many checkpoints of one job the footprint phase
	// finalizes through the durable path (ZooKeeper and Kubernetes), the
	// job's footprint read after footprintSettled and after the last; 0
	// skips it.
	Footprint int
	// Retain is the worker's retention (references kept per job).
	Retain int
	// KubernetesQPS and KubernetesBurst set the Kubernetes store client's
	// rate limiter (the worker's and the direct path's); 0: the worker's
	// defaults.
	KubernetesQPS   float64
	KubernetesBurst int
	// Temporal is the server the run starts and measures on.
	Temporal TemporalServer
	// TemporalConfig are dynamic config values (key=value) for the
	// Temporal dev server, on top of the ones the run sets itself.
	TemporalConfig []string
	// Timeout bounds one finalization.
	Timeout time.Duration
	// ProfileDir, when set, receives a CPU profile of this process (the
	// worker) for every in-process measured run and, on -temporal
	// postgres, of the Temporal server over the same window.
	ProfileDir string
	// Dir holds the run's databases, bucket and logs; empty: a temporary
	// folder, removed at the end unless Keep.
	Dir  string
	Keep bool
	// TriggerCommand starts a separate trigger process (this package's
	// RunTrigger); empty: this executable again. Tests set it to their
	// own binary.
	TriggerCommand []string
	// Progress receives one line per step; Logger the worker's logs.
	Progress io.Writer
	Logger   *slog.Logger
}

// DefaultConfig is the run the targets are stated for.
func DefaultConfig() Config {
	return Config{
		Stores: slices.Clone(Stores), Paths: slices.Clone(Paths), Modes: slices.Clone(Modes),
		Rate: 20, Duration: 15 * time.Second, Warmup: 3 * time.Second, Repeat: 3,
		Concurrency: 8, Jobs: 20, ScaleJobs: []int{1, 10, 100, 1000}, Parked: 1000, WorkerParked: []int{1000}, Footprint: 1000, Retain: 1, Timeout: time.Minute, Temporal: DevServer,
	}
}

// FlagError is a configuration value that breaks a rule; Flag is the
// command's flag name.
type FlagError struct {
	Flag  string
	Value any
	Rule  string
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("--%s %v: %s", e.Flag, e.Value, e.Rule)
}

// Validate checks every setting before anything starts.
func (c Config) Validate() error {
	checks := []struct {
		ok   bool
		flag string
		val  any
		rule string
	}{
		{len(c.Stores) > 0 && allKnown(c.Stores, Stores), "store", c.Stores, fmt.Sprintf("must be a comma-separated list of %v, each once", Stores)},
		{len(c.Paths) > 0 && allKnown(c.Paths, Paths), "phases", c.Paths, fmt.Sprintf("must be a comma-separated list of %v, each once", Paths)},
		{len(c.Modes) > 0 && allKnown(c.Modes, Modes), "modes", c.Modes, fmt.Sprintf("must be a comma-separated list of %v, each once", Modes)},
		{c.Rate > 0 && c.Rate <= 10000, "rate", c.Rate, "must be above 0 and at most 10000 finalizations/s"},
		{c.Duration >= 100*time.Millisecond && c.Duration <= 24*time.Hour, "duration", c.Duration, "must be between 100ms and 24h"},
		{c.Warmup >= 0 && c.Warmup <= time.Hour, "warmup", c.Warmup, "must be between 0 and 1h"},
		{c.Repeat >= 1 && c.Repeat <= 20, "repeat", c.Repeat, "must be between 1 and 20"},
		{c.Concurrency >= 1 && c.Concurrency <= 1000, "concurrency", c.Concurrency, "must be between 1 and 1000"},
		{c.Jobs >= 1 && c.Jobs <= 10000, "jobs", c.Jobs, "must be between 1 and 10000"},
		{validScale(c.ScaleJobs), "scale-jobs", c.ScaleJobs, "must be a comma-separated list of job counts between 1 and 10000"},
		{ascending(c.WorkerParked), "worker-parked", c.WorkerParked, "must be a comma-separated list of ascending counts between 1 and 100000"},
		{c.Parked >= 0 && c.Parked <= 100000, "parked", c.Parked, "must be between 0 (skip the parked scenario) and 100000"},
		{c.ParkedSettle >= 0 && c.ParkedSettle <= time.Hour, "parked-settle", c.ParkedSettle, "must be between 0 and 1h"},
		{c.Footprint == 0 || (c.Footprint > footprintSettled && c.Footprint <= 100000), "footprint", c.Footprint, fmt.Sprintf("must be 0 (skip the footprint phase) or between %d and 100000 checkpoints", footprintSettled+1)},
		{c.Retain >= 0, "retain", c.Retain, "must be at least 0 (0 keeps every reference)"},
		{slices.Contains(TemporalServers, c.Temporal), "temporal", c.Temporal, fmt.Sprintf("must be one of %v", TemporalServers)},
		{validDynamicConfig(c.TemporalConfig), "temporal-config", c.TemporalConfig, "must be comma-separated key=value pairs"},
		{c.Temporal != Postgres || len(c.TemporalConfig) == 0, "temporal-config", c.TemporalConfig, "applies to --temporal dev only (the PostgreSQL server runs on its production defaults)"},
		{c.Timeout >= time.Second, "timeout", c.Timeout, "must be at least 1s"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return &FlagError{Flag: ch.flag, Value: ch.val, Rule: ch.rule}
		}
	}
	return nil
}

func validScale(jobs []int) bool {
	for _, n := range jobs {
		if n < 1 || n > 10000 {
			return false
		}
	}
	return true
}

func ascending(counts []int) bool {
	prev := 0
	for _, n := range counts {
		if n <= prev || n > 100000 {
			return false
		}
		prev = n
	}
	return true
}

func validDynamicConfig(kvs []string) bool {
	for _, kv := range kvs {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return false
		}
	}
	return true
}

// allKnown: every item is one of known, none twice.
func allKnown[T comparable](items, known []T) bool {
	seen := map[T]bool{}
	for _, it := range items {
		if !slices.Contains(known, it) || seen[it] {
			return false
		}
		seen[it] = true
	}
	return true
}
