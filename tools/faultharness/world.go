package faultharness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/naive"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Task queues of a run; the run has its Temporal server to itself. A run
// on both stores gives each its own task queue (taskQueue-<store>).
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
	temporal *devserver.Server
	// lanes are the run's HA stores, each with its worker pool: one, or
	// two for a run on both stores.
	lanes   []*lane
	workers []*workerProc // every lane's
	blob    *blobWorld
	states  *blobstate.Store // the harness's view of the state bucket
	tc      sdkclient.Client
	naive   sdkworker.Worker
}

// lane is one HA store with the worker processes that use it, polling a
// task queue of their own, and the client that starts workflows there.
type lane struct {
	name      string // StoreZooKeeper or StoreKubernetes
	cluster   string // of every job on the lane
	store     backend
	taskQueue string
	fc        *client.Client
	workers   []*workerProc
}

// has reports whether the lane's store injects kind itself.
func (l *lane) has(kind FaultKind) bool { return slices.Contains(storeKinds[l.name], kind) }

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

	bin := cfg.WorkerBinary
	if bin == "" {
		w.log.Info("building the worker binary")
		if bin, err = buildWorker(ctx, w.dir); err != nil {
			return nil, err
		}
	}
	w.log.Info("starting the S3 endpoint of the state bucket")
	if w.blob, err = startBlob(ctx, w.dir); err != nil {
		return nil, err
	}
	if w.states, err = blobstate.Open(ctx, w.blob.cleanURL()); err != nil {
		return nil, fmt.Errorf("open the state bucket: %w", err)
	}
	w.log.Info("starting the Temporal dev server")
	w.temporal, err = devserver.StartServer(ctx, devserver.Options{
		DBFile:           filepath.Join(w.dir, "temporal", "temporal.db"),
		LogDir:           filepath.Join(w.dir, "temporal"),
		SearchAttributes: contract.SearchAttributes(),
		CLIPath:          cfg.TemporalCLI,
		Progress:         cfg.Progress,
	})
	if err != nil {
		return nil, err
	}
	sdkLog := sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	if w.tc, err = sdkclient.DialContext(ctx, sdkclient.Options{HostPort: w.temporal.HostPort, Logger: sdkLog}); err != nil {
		return nil, fmt.Errorf("dial temporal: %w", err)
	}

	names := []string{cfg.Store}
	if cfg.Store == StoreBoth {
		names = []string{StoreZooKeeper, StoreKubernetes}
	}
	for _, name := range names {
		l := &lane{name: name, cluster: cluster, taskQueue: taskQueue}
		if len(names) > 1 {
			l.taskQueue = taskQueue + "-" + name
			l.cluster = cluster + "-" + name
		}
		w.lanes = append(w.lanes, l)
		if l.store, err = startBackend(ctx, cfg, name, w.dir); err != nil {
			return nil, err
		}
		l.fc = client.New(w.tc, client.Options{TaskQueue: l.taskQueue, Logger: w.log})
		args := []string{
			"-temporal-address=" + w.temporal.HostPort, "-task-queue=" + l.taskQueue,
			"-state-bucket=" + w.blob.workerURL(), "-retain=" + strconv.Itoa(cfg.Retain),
			"-log-level=info", "-log-format=text",
			// The reconciler's runs ask for the harness's short grace and
			// TTL; the workers' floors must let them.
			"-reconcile-min-grace=" + cfg.ReconcileGrace.String(),
			"-reconcile-min-tombstone-ttl=" + cfg.TombstoneTTL.String(),
		}
		args = append(args, l.store.workerArgs()...)
		for range cfg.Workers {
			i := len(w.workers) + 1
			wp := &workerProc{index: i, bin: bin, args: args, env: awsEnv(w.dir),
				logPath: filepath.Join(w.dir, fmt.Sprintf("worker-%d-%s.log", i, name))}
			l.workers = append(l.workers, wp)
			w.workers = append(w.workers, wp)
		}
	}
	w.log.Info("starting worker processes", "count", len(w.workers))
	for _, wp := range w.workers {
		if err := wp.start(ctx); err != nil {
			return nil, err
		}
	}
	if cfg.Naive {
		// Workflow tasks and the naive discard only: the naive workflow's
		// other activities are the real ones, run by the worker processes
		// on the real task queue.
		w.naive = sdkworker.New(w.tc, naiveTaskQueue, sdkworker.Options{LocalActivityWorkerOnly: true})
		naive.Register(w.naive, NaiveWorkflow, w.states)
		if err := w.naive.Start(); err != nil {
			return nil, fmt.Errorf("start the naive workflow worker: %w", err)
		}
	}
	return w, nil
}

// startBackend starts one HA store with its fault proxies.
func startBackend(ctx context.Context, cfg Config, name, dir string) (backend, error) {
	if name == StoreKubernetes {
		cfg.Logger.Info("starting etcd and kube-apiserver")
		return startKube(ctx, cfg.Logger, dir)
	}
	cfg.Logger.Info("starting a 3-node ZooKeeper ensemble")
	return startZK(ctx, cfg.Logger, cfg.SessionTimeout, cfg.Workers)
}

// evidence merges every store's server-side traces and the bucket's.
func (w *world) evidence() map[string]int {
	out := w.blob.evidence()
	for _, l := range w.lanes {
		for k, v := range l.store.evidence() {
			out[k] += v
		}
	}
	return out
}

// heal ends every fault: proxies healed, nodes, workers and Temporal up.
func (w *world) heal(ctx context.Context) error {
	var errs []error
	w.blob.heal()
	for _, l := range w.lanes {
		if err := l.store.heal(ctx); err != nil {
			errs = append(errs, err)
		}
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
	for _, l := range w.lanes {
		if l.store != nil {
			l.store.close(keep)
		}
	}
	if w.blob != nil {
		w.blob.close()
	}
	if w.temporal != nil {
		_ = w.temporal.Cleanup(keep)
	}
	switch {
	case keep:
		fmt.Fprintf(os.Stderr, "faultharness: kept the run's logs and databases in %s (the S3 bucket lived in memory)\n", w.dir)
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
