// Command finalizer-faults runs the fault harness (tools/faultharness)
// and prints its report: K finalizations across several jobs against a real
// Temporal dev server, a real HA store (a 3-node ZooKeeper ensemble, or
// kube-apiserver and etcd, or both with the jobs split between them), an
// S3 state bucket (in-process gofakes3) and real worker processes while a seeded
// schedule injects faults, jobs are retired and their IDs reused, the
// reconciler runs with apply every few seconds, adversarial requests name
// other directories and unclaimed epochs, and every live reference is
// checked continuously; then the invariants I1-I7 checked from the store's
// and the bucket's content and a simulated recovery.
//
//	go run ./cmd/finalizer-faults --seed 1 --finalizations 1000 --faults 200 --jobs 5 --store both --retirements 24 --adversarial 120
//	go run ./cmd/finalizer-faults --seed 1 --finalizations 40 --naive
//	go run ./cmd/finalizer-faults --seed 1 --finalizations 300 --store kubernetes
//
// Flags are pflag's (package flag's -seed 1 still reads the same). Exit
// codes: 0 the expected verdict (no violation in the real mode, at
// least one in the naive mode), 1 the other verdict, 2 bad flags or a run
// that could not be carried out.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer-faults"); err != nil {
			return 1
		}
		return 0
	}
	cfg, asJSON, verbose, err := parse(args, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "finalizer-faults: %v\n", err)
		return 2
	}
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.Progress = stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := faultharness.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "finalizer-faults: %v\n", err)
		return 2
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "finalizer-faults: %v\n", err)
			return 2
		}
	} else {
		rep.WriteText(stdout)
	}
	if cfg.Naive == (len(rep.Violations) > 0) {
		return 0
	}
	return 1
}

func parse(args []string, stderr io.Writer) (faultharness.Config, bool, bool, error) {
	var (
		cfg     faultharness.Config
		kinds   string
		asJSON  bool
		verbose bool
	)
	fs := pflag.NewFlagSet("finalizer-faults", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of every random choice (the fault schedule is reproducible from it)")
	fs.IntVar(&cfg.Finalizations, "finalizations", 60, "K: finalizations of the random phase")
	fs.IntVar(&cfg.Faults, "faults", 0, "F: faults of the random phase (default K/5)")
	fs.IntVar(&cfg.Jobs, "jobs", 3, "jobs sharing the finalizations")
	fs.IntVar(&cfg.InFlight, "in-flight", 2, "finalizations in flight per job")
	fs.IntVar(&cfg.Workers, "workers", 2, "worker processes per store")
	fs.IntVar(&cfg.Retain, "retain", 2, "references retained per job")
	fs.StringVar(&cfg.Store, "store", faultharness.StoreZooKeeper, "HA store: zookeeper (3-node ensemble), kubernetes (kube-apiserver + etcd), or both (jobs alternate between the two; every fault kind)")
	fs.BoolVar(&cfg.CrashAfterPublish, "crash-after-publish", false, "add the targeted scenarios that kill the workers the moment a publish landed: before its retry, and before its background retention (real mode)")
	fs.BoolVar(&cfg.Naive, "naive", false, "switch the protocol's safety off (discard on any publish error, no verify, no fence)")
	fs.StringVar(&kinds, "kinds", "", "comma-separated fault kinds (default: every kind of the store; zookeeper: "+
		joinKinds(faultharness.StoreZooKeeper)+"; kubernetes: "+joinKinds(faultharness.StoreKubernetes)+"; both: every kind)")
	fs.IntVar(&cfg.Retirements, "retirements", 0, "retirements in the random phase, each job ID reused after the reconciler forgot it (default K/40, at least 1; negative: none)")
	fs.IntVar(&cfg.Adversarial, "adversarial", 0, "adversarial requests in the random phase: another job's or a nested directory, an unclaimed epoch, a trigger before the claim (default K/8, at least one of each; negative: none)")
	fs.DurationVar(&cfg.ReconcileEvery, "reconcile-every", 0, "reconciler pass interval, apply and dangling quarantine (default 3s; negative: no reconciler)")
	fs.DurationVar(&cfg.ReconcileGrace, "reconcile-grace", 0, "the reconciler's grace, and the workers' --reconcile-min-grace (default 2s)")
	fs.DurationVar(&cfg.TombstoneTTL, "tombstone-ttl", 0, "the reconciler's tombstone TTL, and the workers' --reconcile-min-tombstone-ttl (default 30s: longer than a fast-path workflow task's retry after a worker kill; at least 1s)")
	fs.DurationVar(&cfg.SampleEvery, "sample-every", 0, "interval between rounds of the continuous I1/I2 check of every live reference (default 250ms; negative: none)")
	fs.StringVar(&cfg.WorkerBinary, "worker-binary", "", "finalizer-worker binary (default: built from this module)")
	fs.StringVar(&cfg.Dir, "dir", "", "directory for the run's logs and databases (default: a temporary one)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the run's directory")
	fs.DurationVar(&cfg.SettleTimeout, "settle-timeout", 0, "bound on waiting for the finalizations once faults heal (default 10m)")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fs.BoolVarP(&verbose, "v", "v", false, "log progress (every fault) to stderr")
	if err := fs.Parse(flagenv.LongDash(args, fs.Lookup)); err != nil {
		return cfg, false, false, err
	}
	if fs.NArg() > 0 {
		return cfg, false, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, k := range strings.Split(kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			cfg.Kinds = append(cfg.Kinds, faultharness.FaultKind(k))
		}
	}
	return cfg, asJSON, verbose, cfg.Validate()
}

func joinKinds(store string) string {
	kinds := faultharness.KindsFor(store)
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}
