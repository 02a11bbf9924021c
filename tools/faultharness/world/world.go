package world

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/naive"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	_ "github.com/checkpoint-finalizer/finalizer/stores/blobstate/cloud" // s3://, as the workers open the bucket
)

// Task queues of a run; the run has its Temporal server to itself. A run
// on both stores gives each its own task queue (taskQueue-<store>).
const (
	taskQueue = "faultharness"
	// NaiveTaskQueue is where the naive workflow's tasks go (Options.Naive).
	NaiveTaskQueue = "faultharness-naive"
)

// NaiveWorkflow is the name the world registers naive.Finalize under:
// never the contract's FinalizeCheckpoint, so no caller can reach it by
// mistake.
const NaiveWorkflow = "FaultHarnessNaiveFinalize"

// cluster is every job's cluster in a run on one store; a run on both
// gives each store's jobs a cluster of their own (cluster-<store>), as a
// deployment gives each cluster one store: a reconciler of one store must
// not take the other store's checkpoints for orphans of its own. A run
// has its stores to itself.
const cluster = "harness"

// Options shapes the world of one run.
type Options struct {
	// Store is StoreZooKeeper, StoreKubernetes or StoreBoth (a lane each).
	Store string
	// Workers is the number of worker processes per store.
	Workers int
	// Retain is the workers' retention (references kept per job).
	Retain int
	// Naive registers the naive workflow (NaiveWorkflow on NaiveTaskQueue).
	Naive bool
	// ReconcileGrace and TombstoneTTL are the workers' floors under the
	// reconciler's grace and tombstone TTL.
	ReconcileGrace time.Duration
	TombstoneTTL   time.Duration
	// SessionTimeout is the workers' ZooKeeper session timeout.
	SessionTimeout time.Duration
	// WorkerBinary is the finalizer-worker binary; empty: built from the
	// module with `go build` into Dir.
	WorkerBinary string
	// TemporalCLI is the temporal binary; empty: the cached one.
	TemporalCLI string
	// Dir keeps the world's logs and databases; empty: a temporary
	// directory, removed on Close unless Keep is set.
	Dir  string
	Keep bool
	// Logger receives the world's progress; it must not be nil.
	Logger *slog.Logger
	// Progress, when set, receives the servers' install progress.
	Progress io.Writer
}

// World is everything one run starts: servers, proxies, worker processes,
// and the harness's own clients, which reach the stores and the bucket on
// paths no fault touches.
type World struct {
	cfg      Options
	log      *slog.Logger
	dir      string
	tempDir  bool
	temporal *devserver.Server
	// lanes are the run's HA stores, each with its worker pool: one, or
	// two for a run on both stores.
	lanes   []*Lane
	workers []*workerProc // every lane's
	blob    *blobWorld
	states  *blobstate.Store // the harness's view of the state bucket
	tc      sdkclient.Client
	naive   sdkworker.Worker
}

// Start starts a world: the state bucket, the Temporal dev server, each
// lane's HA store behind its fault proxies, and the worker processes. On
// error whatever started is stopped, its directory kept.
func Start(ctx context.Context, cfg Options) (_ *World, err error) {
	w := &World{cfg: cfg, log: cfg.Logger, dir: cfg.Dir}
	if w.dir == "" {
		if w.dir, err = os.MkdirTemp("", "faultharness-"); err != nil {
			return nil, fmt.Errorf("run directory: %w", err)
		}
		w.tempDir = true
	}
	defer func() {
		if err != nil {
			w.Close(true)
		}
	}()

	bin := cfg.WorkerBinary
	if bin == "" {
		w.log.Info("building the worker binary")
		bin = filepath.Join(w.dir, "finalizer-worker")
		if err = workerproc.BuildTo(ctx, bin, ""); err != nil {
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
		l := &Lane{Name: name, Cluster: cluster, TaskQueue: taskQueue}
		if len(names) > 1 {
			l.TaskQueue = taskQueue + "-" + name
			l.Cluster = cluster + "-" + name
		}
		w.lanes = append(w.lanes, l)
		if l.store, err = startBackend(ctx, cfg, name, w.dir); err != nil {
			return nil, err
		}
		l.Client = client.New(w.tc, client.Options{TaskQueue: l.TaskQueue, Logger: w.log})
		args := []string{
			"-temporal-address=" + w.temporal.HostPort, "-task-queue=" + l.TaskQueue,
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
		w.naive = sdkworker.New(w.tc, NaiveTaskQueue, sdkworker.Options{LocalActivityWorkerOnly: true})
		naive.Register(w.naive, NaiveWorkflow, w.states)
		if err := w.naive.Start(); err != nil {
			return nil, fmt.Errorf("start the naive workflow worker: %w", err)
		}
	}
	return w, nil
}

// Lanes are the world's HA stores with their workers, one per store.
func (w *World) Lanes() []*Lane { return w.lanes }

// WorkerCount is how many worker processes the world runs, every lane's.
func (w *World) WorkerCount() int { return len(w.workers) }

// Temporal is the harness's own client of the Temporal server, for the
// workflows it starts, waits for or ends straight through the SDK.
func (w *World) Temporal() sdkclient.Client { return w.tc }

// States is the state bucket's handles as the harness reads them, on a
// path no fault touches.
func (w *World) States() *blobstate.Store { return w.states }

// Bucket is the state bucket as the harness, job manager side included,
// reads and writes it, on a path no fault touches.
func (w *World) Bucket() *blob.Bucket { return w.blob.bucket }

// startBackend starts one HA store with its fault proxies.
func startBackend(ctx context.Context, cfg Options, name, dir string) (backend, error) {
	if name == StoreKubernetes {
		cfg.Logger.Info("starting etcd and kube-apiserver")
		return startKube(ctx, cfg.Logger, dir)
	}
	cfg.Logger.Info("starting a 3-node ZooKeeper ensemble")
	return startZK(ctx, cfg.Logger, cfg.SessionTimeout, cfg.Workers)
}

// Evidence counts, by what they show, every store's server-side traces of
// the faults and the bucket's.
func (w *World) Evidence() map[string]int {
	out := w.blob.evidence()
	for _, l := range w.lanes {
		for k, v := range l.store.evidence() {
			out[k] += v
		}
	}
	return out
}

// Heal ends every fault: proxies healed, nodes, workers and Temporal up.
func (w *World) Heal(ctx context.Context) error {
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

// Close stops everything; keep leaves the run's directory for a post-mortem.
func (w *World) Close(keep bool) {
	keep = keep || w.cfg.Keep
	if w.naive != nil {
		w.naive.Stop()
	}
	if w.tc != nil {
		w.tc.Close()
	}
	for _, wp := range w.workers {
		// One that cannot be signalled dies with the harness (Pdeathsig).
		_ = wp.kill()
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
