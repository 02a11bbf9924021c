package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/tools/bench"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// envName: every flag falls back to FINALIZER_BENCH_<FLAG>, named as the
// worker names its variables.
func envName(flagName string) string { return flagenv.EnvName("bench-" + flagName) }

// parse reads the flags (the command line over the environment, where an
// empty variable is unset) and validates the configuration before anything
// starts; every value that does not parse is reported at once.
func parse(args []string, stderr io.Writer) (bench.Config, bool, error) {
	cfg := bench.DefaultConfig()
	var (
		storeList, phaseList, modeList string
		temporalConfig, temporalServer string
		scaleJobs, workerParked        string
		asJSON, verbose                bool
	)
	fs := pflag.NewFlagSet("finalizer-bench", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&storeList, "store", join(cfg.Stores), "HA stores to measure, comma-separated: embedded, zookeeper, kubernetes (a kube-apiserver on etcd the run starts)")
	fs.StringVar(&phaseList, "phases", join(cfg.Paths), "paths to measure: floor (two local activities reading the store, eager start: the cheapest workflow), durable (in-process, eager start), remote (separate client process), naive (one activity per step), direct (persist + publish in-process, no Temporal)")
	fs.StringVar(&modeList, "modes", join(cfg.Modes), "load modes: rate (open loop at --rate), max (closed loop, --concurrency triggerers)")
	fs.Float64Var(&cfg.Rate, "rate", cfg.Rate, "offered rate of the rate mode, finalizations/s")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "measured time of every path and mode")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured warm-up before each measured run (0: none)")
	fs.IntVar(&cfg.Repeat, "repeat", cfg.Repeat, "times every cell (path, mode; each scaling run) is measured, on fresh jobs: the report gives the median and the spread (min-max), the verdicts use the medians")
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "closed-loop triggerers of the max mode, one job each")
	fs.IntVar(&cfg.Jobs, "jobs", cfg.Jobs, "jobs the rate mode spreads its checkpoints over")
	fs.StringVar(&scaleJobs, "scale-jobs", joinInts(cfg.ScaleJobs), "job counts the durable path's rate mode runs over again at the same --rate, comma-separated (empty: skip)")
	fs.StringVar(&workerParked, "worker-parked", joinInts(cfg.WorkerParked), "counts of finalizations parked in Verifying on a finalizer-worker process of its own (ZooKeeper), ascending, its memory read at each (empty: skip)")
	fs.IntVar(&cfg.Parked, "parked", cfg.Parked, "finalizations parked in Verifying for the parked scenario on ZooKeeper (0: skip it)")
	fs.DurationVar(&cfg.ParkedSettle, "parked-settle", cfg.ParkedSettle, "how long the parked finalizations sit before the measured run (their verify retries back off from 1s towards 5m)")
	fs.IntVar(&cfg.Footprint, "footprint", cfg.Footprint, "checkpoints of one job finalized one after another through the durable path on ZooKeeper and Kubernetes, the job's keys and bytes in the store read after 100 and after the last (0: skip)")
	fs.IntVar(&cfg.Retain, "retain", cfg.Retain, "references the worker retains per job")
	fs.Float64Var(&cfg.KubernetesQPS, "kubernetes-qps", 0, "the Kubernetes store client's sustained requests per second, as the worker's --kubernetes-qps (0: its default)")
	fs.IntVar(&cfg.KubernetesBurst, "kubernetes-burst", 0, "the Kubernetes store client's burst, as the worker's --kubernetes-burst (0: its default)")
	fs.StringVar(&temporalServer, "temporal", string(cfg.Temporal), "Temporal server to measure on: dev (the CLI's dev server on SQLite) or postgres (Temporal server on PostgreSQL 15, the production topology's; see docs/operations.md, \"Running in production\")")
	fs.StringVar(&temporalConfig, "temporal-config", "", "extra dynamic config of the Temporal dev server, comma-separated key=value (e.g. matching.numTaskqueueReadPartitions=1)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "bound on one finalization; a slower one counts as failed")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "folder for CPU profiles of every in-process measured run: the worker's process, and the Temporal server's on --temporal postgres (go tool pprof -top FILE)")
	fs.StringVar(&cfg.Dir, "dir", "", "folder for the run's databases, bucket and logs (default: a temporary one, removed)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the run's folder and the servers' logs")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON instead of markdown")
	// -v, as package flag spelled it, is pflag's shorthand of --v.
	fs.BoolVarP(&verbose, "v", "v", false, "log the worker's warnings and errors to stderr")
	fs.VisitAll(func(f *pflag.Flag) { flagenv.BindEnvAs(fs, f.Name, envName(f.Name)) })
	flagenv.Defer(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: finalizer-bench [flags]; every flag falls back to %s\n", envName("<flag>"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(flagenv.LongDash(args, fs.Lookup)); err != nil {
		return cfg, false, err
	}
	if fs.NArg() > 0 {
		return cfg, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if problems := flagenv.Resolve(fs, os.Getenv); len(problems) > 0 {
		return cfg, false, errors.Join(problems...)
	}
	cfg.Stores = split[worker.StoreKind](storeList)
	cfg.Paths = split[bench.Path](phaseList)
	cfg.Modes = split[bench.Mode](modeList)
	cfg.Temporal = bench.TemporalServer(temporalServer)
	var err error
	if cfg.ScaleJobs, err = splitInts(scaleJobs); err != nil {
		return cfg, false, &bench.FlagError{Flag: "scale-jobs", Value: scaleJobs, Rule: "must be a comma-separated list of job counts"}
	}
	if cfg.WorkerParked, err = splitInts(workerParked); err != nil {
		return cfg, false, &bench.FlagError{Flag: "worker-parked", Value: workerParked, Rule: "must be a comma-separated list of counts"}
	}
	cfg.TemporalConfig = split[string](temporalConfig)
	cfg.Logger = logger(verbose, stderr)
	return cfg, asJSON, cfg.Validate()
}

func split[T ~string](list string) []T {
	var out []T
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, T(s))
		}
	}
	return out
}

func splitInts(list string) ([]int, error) {
	var out []int
	for _, s := range split[string](list) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func joinInts(items []int) string {
	s := make([]string, len(items))
	for i, n := range items {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func join[T ~string](items []T) string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = string(it)
	}
	return strings.Join(s, ",")
}
