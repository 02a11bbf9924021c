package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// zkRoot is the run's ZooKeeper root, for the worker and the direct path.
const zkRoot = "/checkpoint-finalizer-bench"

// storeRun is one store's in-process worker and what its phases share:
// the trigger client, the naive workflow's worker and the direct path's
// own store instances.
type storeRun struct {
	cfg     Config
	kind    worker.StoreKind
	dir     string // the store's folder in the run's
	srv     *servers
	wcfg    worker.Config
	cluster string
	epoch   uint64
	bucket  jobmanager.Bucket

	ready      worker.Ready
	client     *client.Client // eager start, on the worker's Temporal client
	workerDone chan error
	stopWorker context.CancelFunc
	// The naive and floor workflows' queue and in-process worker.
	baselineQueue string
	baseline      sdkworker.Worker
	states        *blobstate.Store
	refs          stores.ReferenceStore
}

// startStore starts the store's worker in this process and opens the
// direct path's stores: a bbolt file of its own (the worker's is locked),
// or a ZooKeeper session of its own on the same root, or a Kubernetes
// client of its own on the same namespace.
func startStore(ctx context.Context, cfg Config, srv *servers, dir string, kind worker.StoreKind) (*storeRun, error) {
	sdir := filepath.Join(dir, string(kind))
	bucket := jobmanager.Bucket{Dir: filepath.Join(sdir, "bucket")}
	if err := os.MkdirAll(bucket.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("bucket: %w", err)
	}
	sr := &storeRun{
		cfg: cfg, kind: kind, dir: sdir, srv: srv, cluster: "bench-" + string(kind),
		// Epochs grow across runs, should a -dir be reused.
		epoch: uint64(time.Now().Unix()), bucket: bucket,
		baselineQueue: "bench-baseline-" + string(kind),
	}
	sr.wcfg = workerConfig(cfg, srv, sdir, kind, bucket)
	if err := sr.startWorker(ctx); err != nil {
		return nil, err
	}
	if err := sr.openDirect(ctx, sdir); err != nil {
		sr.stop()
		return nil, err
	}
	baseline, err := startBaselineWorker(sr.ready.Client, sr.baselineQueue, sr.refs, sr.states)
	if err != nil {
		sr.stop()
		return nil, err
	}
	sr.baseline = baseline
	return sr, nil
}

func workerConfig(cfg Config, srv *servers, dir string, kind worker.StoreKind, bucket jobmanager.Bucket) worker.Config {
	w := worker.DefaultConfig()
	w.Temporal.Address = srv.temporal.Address()
	w.Temporal.TaskQueue = "bench-" + string(kind)
	w.Store.Kind = kind
	w.Store.Embedded.Path = filepath.Join(dir, "references.db")
	if srv.zk != nil {
		w.Store.ZooKeeper.Servers = []string{srv.zk.Addr}
		w.Store.ZooKeeper.Root = zkRoot
	}
	if srv.kube != nil {
		w.Store.Kubernetes.Kubeconfig = srv.kube.kubeconfig
		w.Store.Kubernetes.Namespace = kubeNamespace
		w.Store.Kubernetes.QPS, w.Store.Kubernetes.Burst = float32(cfg.KubernetesQPS), cfg.KubernetesBurst
	}
	w.StateBucket = bucket.URL() + "?create_dir=true"
	w.Retain = cfg.Retain
	w.MetricsAddress = "127.0.0.1:0"
	w.ShutdownGrace = 5 * time.Second
	return w
}

// startWorker runs worker.Run on a goroutine until stop, and returns once
// it polls.
func (sr *storeRun) startWorker(ctx context.Context) error {
	ready := make(chan worker.Ready, 1)
	sr.workerDone = make(chan error, 1)
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sr.stopWorker = cancel
	go func() {
		sr.workerDone <- worker.Run(wctx, sr.wcfg, sr.cfg.Logger, worker.WithReady(func(r worker.Ready) { ready <- r }))
	}()
	select {
	case sr.ready = <-ready:
	case err := <-sr.workerDone:
		cancel()
		return fmt.Errorf("%s worker: %w", sr.kind, err)
	}
	sr.client = client.New(sr.ready.Client, client.Options{
		TaskQueue: sr.wcfg.Temporal.TaskQueue, EagerStart: true, Logger: sr.cfg.Logger,
	})
	fmt.Fprintf(sr.cfg.Progress, "%s: worker polling %s\n", sr.kind, sr.wcfg.Temporal.TaskQueue)
	return nil
}

func (sr *storeRun) openDirect(ctx context.Context, dir string) error {
	states, err := blobstate.Open(ctx, sr.wcfg.StateBucket)
	if err != nil {
		return fmt.Errorf("direct path: open bucket: %w", err)
	}
	sr.states = states
	switch sr.kind {
	case worker.StoreEmbedded:
		sr.refs, err = embedded.Open(filepath.Join(dir, "direct-references.db"))
	case worker.StoreZooKeeper:
		sr.refs, err = zookeeper.Open(ctx, sr.wcfg.Store.ZooKeeper, sr.cfg.Logger)
	case worker.StoreKubernetes:
		sr.refs, err = kubernetes.New(kubernetes.Config{Namespace: kubeNamespace, REST: sr.srv.kube.AdminConfig(), Logger: sr.cfg.Logger,
			QPS: sr.wcfg.Store.Kubernetes.QPS, Burst: sr.wcfg.Store.Kubernetes.Burst})
	default:
		err = fmt.Errorf("no direct path for store %s", sr.kind)
	}
	if err != nil {
		return fmt.Errorf("direct path: open %s store: %w", sr.kind, err)
	}
	return nil
}

// stop stops the baseline worker and the worker and closes the direct
// stores.
func (sr *storeRun) stop() error {
	if sr.baseline != nil {
		sr.baseline.Stop()
	}
	sr.stopWorker()
	errs := []error{<-sr.workerDone}
	if sr.refs != nil {
		errs = append(errs, sr.refs.Close())
	}
	if sr.states != nil {
		errs = append(errs, sr.states.Close())
	}
	return errors.Join(errs...)
}

// claim claims the run's epoch for jobs: through the finalizer for the
// workflow paths, on the direct path's own store for the direct one; the
// floor only reads.
func (sr *storeRun) claim(ctx context.Context, path Path, jobs []string) error {
	if path == Floor {
		return nil
	}
	return parallel(len(jobs), func(i int) error {
		job := jobs[i]
		var err error
		if path == Direct {
			err = sr.refs.ClaimEpoch(ctx, stores.JobID{Cluster: sr.cluster, Job: job}, sr.epoch, jobmanager.Owner(sr.epoch))
		} else {
			_, err = sr.client.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: sr.cluster, Job: job, Epoch: sr.epoch, Owner: jobmanager.Owner(sr.epoch)})
		}
		if err != nil {
			return fmt.Errorf("claim %s: %w", job, err)
		}
		return nil
	})
}

// finalizer is the in-process finalize function of path.
func (sr *storeRun) finalizer(path Path) finalizeFunc {
	switch path {
	case Floor:
		return floor(sr.ready.Client, sr.baselineQueue)
	case Naive:
		return naiveFinalize(sr.ready.Client, sr.baselineQueue, sr.wcfg.Temporal.TaskQueue)
	case Direct:
		return direct(sr.states, sr.refs)
	default:
		return durable(sr.client)
	}
}
