package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Run starts the servers, measures every configured store, path and mode
// on them, runs the parked scenario, and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	dir, cleanup, err := runDir(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rep := &Report{
		Started: time.Now(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Settings: Settings{
			Rate: cfg.Rate, Duration: cfg.Duration, Warmup: cfg.Warmup, Repeat: cfg.Repeat, Concurrency: cfg.Concurrency,
			Jobs: cfg.Jobs, Parked: cfg.Parked, Footprint: cfg.Footprint, Retain: cfg.Retain, Temporal: cfg.Temporal.describe(),
		},
	}
	srv, err := startServers(ctx, cfg, dir)
	if err != nil {
		return nil, err
	}
	defer srv.stop(cfg.Keep)
	for _, kind := range cfg.Stores {
		if err := runStore(ctx, cfg, srv, dir, kind, rep); err != nil {
			return nil, err
		}
	}
	rep.evaluate(cfg.Stores)
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

// runStore measures one store's paths and modes, and its parked scenario.
func runStore(ctx context.Context, cfg Config, srv *servers, dir string, kind worker.StoreKind, rep *Report) (err error) {
	sr, err := startStore(ctx, cfg, srv, dir, kind)
	if err != nil {
		return err
	}
	defer func() {
		if serr := sr.stop(); serr != nil && err == nil {
			err = fmt.Errorf("%s: stop: %w", kind, serr)
		}
	}()
	for _, path := range cfg.Paths {
		for _, mode := range cfg.Modes {
			load := Load{Mode: mode, Rate: cfg.Rate, Concurrency: cfg.Concurrency, Jobs: cfg.Jobs, Duration: cfg.Duration, Timeout: cfg.Timeout}
			res, err := sr.measureRepeated(ctx, path, load, fmt.Sprintf("%s-%s", path, mode))
			if err != nil {
				return err
			}
			rep.Results = append(rep.Results, res)
		}
	}
	for _, jobs := range cfg.ScaleJobs {
		load := Load{Mode: Rate, Rate: cfg.Rate, Jobs: jobs, Duration: cfg.Duration, Timeout: cfg.Timeout}
		res, err := sr.measureRepeated(ctx, Durable, load, fmt.Sprintf("scale-%d", jobs))
		if err != nil {
			return err
		}
		rep.Scaling = append(rep.Scaling, res)
	}
	for _, path := range anatomyPaths {
		if !slices.Contains(cfg.Paths, path) {
			continue
		}
		a, err := sr.anatomy(ctx, path)
		if err != nil {
			return err
		}
		rep.Anatomy = append(rep.Anatomy, a)
	}
	if kind != worker.StoreEmbedded && cfg.Footprint > 0 {
		f, err := sr.footprint(ctx)
		if err != nil {
			return err
		}
		rep.Footprints = append(rep.Footprints, *f)
	}
	if kind == worker.StoreZooKeeper && len(cfg.WorkerParked) > 0 {
		w, err := sr.workerOnly(ctx)
		if err != nil {
			return err
		}
		rep.WorkerOnly = append(rep.WorkerOnly, *w)
	}
	if kind == worker.StoreZooKeeper && cfg.Parked > 0 {
		p, err := sr.parked(ctx)
		if err != nil {
			return err
		}
		rep.Parked = append(rep.Parked, *p)
	}
	return nil
}

// runDir is cfg.Dir, or a temporary folder removed at the end unless Keep.
func runDir(cfg Config) (string, func(), error) {
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("run folder: %w", err)
		}
		return cfg.Dir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "finalizer-bench-")
	if err != nil {
		return "", nil, fmt.Errorf("run folder: %w", err)
	}
	return dir, func() {
		if cfg.Keep {
			fmt.Fprintf(cfg.Progress, "kept %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}, nil
}
