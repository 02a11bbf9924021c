package faultharness

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// Config shapes one Run. The zero value of every field but Finalizations
// has a working default.
type Config struct {
	// Seed drives every random choice: the fault schedule, the jobs'
	// savepoints, the replayed attempts.
	Seed int64
	// Finalizations is K, the finalizations of the random phase.
	Finalizations int
	// Faults is F, the faults the random phase injects. Default: one per
	// five finalizations.
	Faults int
	// Jobs share the K finalizations. Default 3.
	Jobs int
	// InFlight bounds a job's finalizations running at once, as Flink's
	// concurrent checkpoints do. Default 2.
	InFlight int
	// Workers is the number of worker processes per store. Default 2.
	Workers int
	// Retain is the workers' retention (references kept per job). Default 2.
	Retain int
	// Naive runs the naive workflow instead of the real one.
	Naive bool
	// Store is the HA store: StoreZooKeeper (default), StoreKubernetes, or
	// StoreBoth (jobs alternate between the two stores).
	Store string
	// CrashAfterPublish adds the targeted crash scenarios (real mode
	// only): workers killed the moment a publish landed, inside the
	// workflow task of a fast-path finalization; once while newer
	// checkpoints follow (crash-after-publish), once with none after it
	// and the job at its retention (crash-before-retention).
	CrashAfterPublish bool
	// Kinds restricts the random faults; empty: every kind.
	Kinds []FaultKind
	// Retirements is how often the random phase retires a job and reuses
	// its ID (real mode only). 0: one per 40 finalizations, at least one;
	// negative: none.
	Retirements int
	// Adversarial is how many adversarial requests the random phase sends
	// (real mode only). 0: one per 8 finalizations, at least one of each
	// kind; negative: none.
	Adversarial int
	// ReconcileEvery spaces the reconciler's passes (real mode only: apply,
	// dangling references quarantined). 0: 3s; negative: no reconciler.
	ReconcileEvery time.Duration
	// ReconcileGrace and TombstoneTTL are the reconciler's grace and
	// tombstone TTL, and the workers' floors under them
	// (-reconcile-min-grace, -reconcile-min-tombstone-ttl): short, so that retired jobs are forgotten within the
	// run, yet the TTL longer than anything of the run that may still act
	// on a key's tombstone (a fast-path workflow task retried after its
	// worker was killed asks the store whether its lost run published: a
	// tombstone collected by then leaves it no way to tell, and it ends
	// Failed). 0: 2s and 30s.
	ReconcileGrace time.Duration
	TombstoneTTL   time.Duration
	// SampleEvery spaces the rounds of the continuous I1/I2 check. 0: 250ms;
	// negative: no continuous check.
	SampleEvery time.Duration
	// SavepointEvery makes about one checkpoint in this many a savepoint;
	// 0: 10, negative: none.
	SavepointEvery int
	// WorkerBinary is the finalizer-worker binary; empty: built from the
	// module with `go build` into the run's directory.
	WorkerBinary string
	// TemporalCLI is the temporal binary; empty: the cached one (installed
	// when missing, ~12 min cold).
	TemporalCLI string
	// Dir is where the run keeps its logs and databases (the S3 bucket
	// lives in the harness's memory); empty: a
	// temporary directory, removed at the end unless Keep is set.
	Dir  string
	Keep bool
	// SessionTimeout is the workers' ZooKeeper session timeout. Default 4s.
	SessionTimeout time.Duration
	// SettleTimeout bounds waiting for the finalizations to end after the
	// faults heal. Default 10 minutes.
	SettleTimeout time.Duration
	// Logger receives the run's progress; nil discards it.
	Logger *slog.Logger
	// Progress, when set, receives the servers' install progress.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Faults == 0 {
		c.Faults = c.Finalizations / 5
	}
	if c.Jobs == 0 {
		c.Jobs = 3
	}
	if c.InFlight == 0 {
		c.InFlight = 2
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.Retain == 0 {
		c.Retain = 2
	}
	if c.SavepointEvery == 0 {
		c.SavepointEvery = 10
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 4 * time.Second
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Store == "" {
		c.Store = StoreZooKeeper
	}
	if len(c.Kinds) == 0 {
		c.Kinds = KindsFor(c.Store)
	}
	return c.lifecycleDefaults()
}

// world is what the run's world is made of.
func (c Config) world() world.Options {
	return world.Options{
		Store: c.Store, Workers: c.Workers, Retain: c.Retain, Naive: c.Naive,
		ReconcileGrace: c.ReconcileGrace, TombstoneTTL: c.TombstoneTTL, SessionTimeout: c.SessionTimeout,
		WorkerBinary: c.WorkerBinary, TemporalCLI: c.TemporalCLI, Dir: c.Dir, Keep: c.Keep,
		Logger: c.Logger, Progress: c.Progress,
	}
}

// lifecycleDefaults fills the lifecycle's knobs; naive mode has no
// lifecycle (its workflow knows nothing of it) and no reconciler (it would
// quarantine the dangling references the naive mode must show).
func (c Config) lifecycleDefaults() Config {
	if c.Naive {
		c.Retirements, c.Adversarial, c.ReconcileEvery = -1, -1, -1
	}
	if c.ReconcileEvery < 0 && c.Retirements == 0 {
		c.Retirements = -1 // only the reconciler forgets a retired job
	}
	if c.Retirements == 0 {
		c.Retirements = max(1, c.Finalizations/40)
	}
	if c.Adversarial == 0 {
		c.Adversarial = max(len(AdversarialKinds), c.Finalizations/8)
	}
	if c.ReconcileEvery == 0 {
		c.ReconcileEvery = 3 * time.Second
	}
	if c.ReconcileGrace == 0 {
		c.ReconcileGrace = 2 * time.Second
	}
	if c.TombstoneTTL == 0 {
		c.TombstoneTTL = 30 * time.Second
	}
	if c.SampleEvery == 0 {
		c.SampleEvery = 250 * time.Millisecond
	}
	return c
}

// Validate checks the configuration before anything starts.
func (c Config) Validate() error {
	var errs []error
	if c.Finalizations < 1 {
		errs = append(errs, fmt.Errorf("finalizations: must be at least 1, got %d", c.Finalizations))
	}
	if c.Faults < 0 || c.Jobs < 0 || c.InFlight < 0 || c.Workers < 0 || c.Retain < 0 {
		errs = append(errs, errors.New("faults, jobs, in-flight, workers and retain must not be negative"))
	}
	if c.ReconcileGrace < 0 || c.TombstoneTTL < 0 {
		errs = append(errs, errors.New("reconcile grace and tombstone TTL must not be negative"))
	}
	// 0 is the default; any other TTL becomes the workers' floor, which
	// they refuse below the contract's minimum.
	if c.TombstoneTTL > 0 && c.TombstoneTTL < contract.MinTombstoneTTL {
		errs = append(errs, fmt.Errorf("tombstone TTL: must be at least %s, got %s", contract.MinTombstoneTTL, c.TombstoneTTL))
	}
	if c.Retirements > 0 && c.ReconcileEvery < 0 {
		errs = append(errs, errors.New("retirements need the reconciler: a retired job is forgotten only by it"))
	}
	if c.Jobs > 50 {
		errs = append(errs, fmt.Errorf("jobs: at most 50, got %d", c.Jobs))
	}
	if c.SessionTimeout != 0 && c.SessionTimeout < time.Second {
		errs = append(errs, fmt.Errorf("session timeout: at least 1s, got %s", c.SessionTimeout))
	}
	if c.Store != "" && c.Store != StoreZooKeeper && c.Store != StoreKubernetes && c.Store != StoreBoth {
		errs = append(errs, fmt.Errorf("store %q: must be %s, %s or %s", c.Store, StoreZooKeeper, StoreKubernetes, StoreBoth))
	}
	known := KindsFor(c.Store)
	for _, k := range c.Kinds {
		if !slices.Contains(known, k) {
			errs = append(errs, fmt.Errorf("fault kind %q: not one of the %s store's %v", k, c.Store, known))
		}
	}
	return errors.Join(errs...)
}
