package faultharness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// Task queues of a run; the run has its Temporal server to itself.
const (
	taskQueue      = "faultharness"
	naiveTaskQueue = "faultharness-naive"
)

// world is everything one run starts: servers, proxies, worker processes,
// and the harness's own clients.
type world struct {
	cfg      Config
	log      *slog.Logger
	dir      string
	tempDir  bool
	temporal *temporaltest.Server
	store    backend
	workers  []*workerProc
	bucket   jobmanager.Bucket
	states   *blobstate.Store
	tc       sdkclient.Client
	fc       *client.Client
	naive    sdkworker.Worker
}

func startWorld(ctx context.Context, cfg Config) (_ *world, err error) {
	w := &world{cfg: cfg, log: cfg.Logger, dir: cfg.Dir}
	if w.dir == "" {
		if w.dir, err = os.MkdirTemp("", "faultharness-"); err != nil {
			return nil, fmt.Errorf("run directory: %w", err)
		}
		w.tempDir = true
	}
	defer func() {
		if err != nil {
			w.close(true)
		}
	}()
	w.bucket = jobmanager.Bucket{Dir: filepath.Join(w.dir, "bucket")}
	if err := os.MkdirAll(w.bucket.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("bucket directory: %w", err)
	}

	bin := cfg.WorkerBinary
	if bin == "" {
		w.log.Info("building the worker binary")
		if bin, err = buildWorker(ctx, w.dir); err != nil {
			return nil, err
		}
	}
	w.log.Info("starting the Temporal dev server")
	w.temporal, err = temporaltest.StartServer(ctx, temporaltest.Options{
		DBFile:           filepath.Join(w.dir, "temporal", "temporal.db"),
		LogDir:           filepath.Join(w.dir, "temporal"),
		SearchAttributes: workflows.SearchAttributes(),
		CLIPath:          cfg.TemporalCLI,
		Progress:         cfg.Progress,
	})
	if err != nil {
		return nil, err
	}
	if w.store, err = startBackend(ctx, cfg, w.dir); err != nil {
		return nil, err
	}
	if w.states, err = blobstate.Open(ctx, w.bucket.URL()); err != nil {
		return nil, fmt.Errorf("open the state bucket: %w", err)
	}
	sdkLog := sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	if w.tc, err = sdkclient.DialContext(ctx, sdkclient.Options{HostPort: w.temporal.HostPort, Logger: sdkLog}); err != nil {
		return nil, fmt.Errorf("dial temporal: %w", err)
	}
	w.fc = client.New(w.tc, client.Options{TaskQueue: taskQueue, Logger: w.log})

	args := []string{
		"-temporal-address=" + w.temporal.HostPort, "-task-queue=" + taskQueue,
		"-state-bucket=" + w.bucket.URL(), "-retain=" + strconv.Itoa(cfg.Retain),
		"-log-level=info", "-log-format=text",
	}
	args = append(args, w.store.workerArgs()...)
	for i := range cfg.Workers {
		wp := &workerProc{index: i + 1, bin: bin, args: args, logPath: filepath.Join(w.dir, fmt.Sprintf("worker-%d.log", i+1))}
		w.workers = append(w.workers, wp)
	}
	w.log.Info("starting worker processes", "count", cfg.Workers)
	for _, wp := range w.workers {
		if err := wp.start(ctx); err != nil {
			return nil, err
		}
	}
	if cfg.Naive {
		// Workflow tasks only: the naive workflow's activities are the real
		// ones, run by the worker processes on the real task queue.
		w.naive = sdkworker.New(w.tc, naiveTaskQueue, sdkworker.Options{LocalActivityWorkerOnly: true})
		w.naive.RegisterWorkflowWithOptions(NaiveFinalize, workflow.RegisterOptions{Name: NaiveWorkflow})
		if err := w.naive.Start(); err != nil {
			return nil, fmt.Errorf("start the naive workflow worker: %w", err)
		}
	}
	return w, nil
}

// startBackend starts the configured HA store with its fault proxies.
func startBackend(ctx context.Context, cfg Config, dir string) (backend, error) {
	if cfg.Store == StoreKubernetes {
		cfg.Logger.Info("starting etcd and kube-apiserver")
		return startKube(ctx, cfg.Logger, dir)
	}
	cfg.Logger.Info("starting a 3-node ZooKeeper ensemble")
	return startZK(ctx, cfg.Logger, cfg.SessionTimeout, cfg.Workers)
}

// heal ends every fault: proxies healed, nodes, workers and Temporal up.
func (w *world) heal(ctx context.Context) error {
	var errs []error
	if err := w.store.heal(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, wp := range w.workers {
		if !wp.running() {
			if err := wp.start(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if w.temporal.PID() == 0 {
		if err := w.temporal.Restart(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// close stops everything; keep leaves the run's directory for a post-mortem.
func (w *world) close(keep bool) {
	keep = keep || w.cfg.Keep
	if w.naive != nil {
		w.naive.Stop()
	}
	if w.tc != nil {
		w.tc.Close()
	}
	for _, wp := range w.workers {
		wp.kill()
	}
	if w.states != nil {
		_ = w.states.Close()
	}
	if w.store != nil {
		w.store.close(keep)
	}
	if w.temporal != nil {
		_ = w.temporal.Cleanup(keep)
	}
	switch {
	case keep:
		fmt.Fprintf(os.Stderr, "faultharness: kept the run's logs, bucket and databases in %s\n", w.dir)
	case w.tempDir:
		_ = os.RemoveAll(w.dir)
	}
}

// retry calls fn until it succeeds, ctx ends or stop says the error is
// final: the harness's own calls ride out the faults it injects.
func retry(ctx context.Context, what string, fn func(context.Context) error, stop func(error) bool) error {
	backoff := 100 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := fn(cctx)
		cancel()
		if err == nil || (stop != nil && stop(err)) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), err)
		}
		sleep(ctx, backoff)
		backoff = min(2*backoff, 2*time.Second)
	}
}
