package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
	finalizer "github.com/checkpoint-finalizer/finalizer/worker"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is one test's finalizer: a worker on its own task queue over a real
// HA store (a ZooKeeper root or a Kubernetes namespace, wrapped to inject
// ambiguity) and a file bucket.
type env struct {
	t         *testing.T
	client    sdkclient.Client
	taskQueue string
	store     haStore
	refs      *storefault.Store
	states    *blobstate.Store
	// bucketAway makes the finalizations' bucket fail (awayStates).
	bucketAway atomic.Bool
	bucket     string
	root       string
	job        stores.JobID
}

var seq atomic.Int64

// haStore is what every backend serves: the finalizer's store and the
// reconciler's inventory.
type haStore interface {
	stores.ReferenceStore
	stores.Inventory
}

// backend opens one test's HA store; its name is the worker's StoreKind.
type backend struct {
	name string
	open func(t *testing.T, ctx context.Context, root string) haStore
}

var (
	onZooKeeper = backend{"zookeeper", func(t *testing.T, ctx context.Context, root string) haStore {
		s, err := zookeeper.Open(ctx, zookeeper.Config{Servers: []string{zk.Addr}, Root: root, SessionTimeout: 10 * time.Second}, quiet)
		require.NoError(t, err)
		return s
	}}
	// onKubernetes starts the package's API server on first use only, so
	// that the ZooKeeper-only tests do not wait for it.
	onKubernetes = backend{"kubernetes", func(t *testing.T, ctx context.Context, _ string) haStore {
		srv := kubetest.Shared(t)
		s, err := kubernetes.New(kubernetes.Config{Namespace: srv.Namespace(t, "e2e"), REST: srv.AdminConfig()})
		require.NoError(t, err)
		return s
	}}
	backends = []backend{onZooKeeper, onKubernetes}
)

func newEnv(t *testing.T, retain int) *env { return newEnvOn(t, onZooKeeper, retain) }

func newEnvOn(t *testing.T, b backend, retain int) *env {
	t.Helper()
	realserver.Require(t, "Temporal dev server, ZooKeeper and kube-apiserver")
	n := seq.Add(1)
	e := &env{
		t:         t,
		taskQueue: fmt.Sprintf("e2e-%d-%d", os.Getpid(), n),
		bucket:    t.TempDir(),
		root:      fmt.Sprintf("/e2e-%d-%d", os.Getpid(), n),
		job:       stores.JobID{Cluster: "e2e", Job: fmt.Sprintf("job-%d-%d", os.Getpid(), n)},
	}
	c, err := sdkclient.Dial(sdkclient.Options{HostPort: temporal.HostPort, Logger: sdklog.NewStructuredLogger(quiet)})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e.client = c

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e.store = b.open(t, ctx, e.root)
	t.Cleanup(func() { _ = e.store.Close() })
	e.refs = storefault.Wrap(e.store)
	e.states, err = blobstate.Open(ctx, "file://"+e.bucket)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.states.Close() })

	// The production assembly, tenant gate and interceptors included.
	a := finalizer.Assemble(finalizer.Parts{
		Store: e.store, References: e.refs, Bucket: e.states, States: awayStates{e.states, &e.bucketAway},
		StoreKind: b.name, Temporal: c, TaskQueue: e.taskQueue, Retain: retain,
		// The tests' handles and tombstones are seconds old: no grace
		// floor, the contract's shortest TTL.
		Floors: reconcileacts.Floors{TombstoneTTL: contract.MinTombstoneTTL},
	})
	w := sdkworker.New(c, e.taskQueue, a.Options(sdkworker.Options{}))
	// Cleaned up after the worker's stop (cleanups run last first).
	t.Cleanup(finalizer.StartRetention(context.Background(), a.Finalizer, nil, slog.New(slog.DiscardHandler)))
	a.Register(w)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return e
}

func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	e.t.Cleanup(cancel)
	return ctx
}

// claim claims epoch as a job manager does on gaining leadership and
// returns the restore point the claim answers.
func (e *env) claim(epoch uint64) contract.RestorePoint {
	e.t.Helper()
	req := contract.ClaimRequest{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: epoch, Owner: fmt.Sprintf("jm-%d", epoch)}
	run, err := e.client.ExecuteWorkflow(e.ctx(), sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: e.taskQueue}, contract.ClaimWorkflow, req)
	require.NoError(e.t, err)
	var rp contract.RestorePoint
	require.NoError(e.t, run.Get(e.ctx(), &rp))
	return rp
}

// checkpoint writes checkpoint n's files as a job manager would.
func (e *env) checkpoint(n uint64, savepoint bool) contract.FinalizeRequest {
	e.t.Helper()
	req, err := jobmanager.Bucket{Dir: e.bucket}.WriteCheckpoint(e.job, 1, n, savepoint)
	require.NoError(e.t, err)
	return req
}

func (e *env) exists(key string) bool { return jobmanager.Bucket{Dir: e.bucket}.Exists(key) }

func (e *env) start(req contract.FinalizeRequest) sdkclient.WorkflowRun {
	e.t.Helper()
	run, err := e.client.ExecuteWorkflow(e.ctx(), sdkclient.StartWorkflowOptions{
		ID: req.WorkflowID(), TaskQueue: e.taskQueue,
		// As the client and the Flink plugin start it: the path chosen at
		// start (TestEndToEndZooKeeper starts one without it too).
		Memo: map[string]any{contract.MemoPath: contract.PathVersion},
	}, contract.FinalizeWorkflow, req)
	require.NoError(e.t, err)
	return run
}

func (e *env) finalize(req contract.FinalizeRequest) (contract.FinalizeResult, sdkclient.WorkflowRun) {
	e.t.Helper()
	run := e.start(req)
	var res contract.FinalizeResult
	require.NoError(e.t, run.Get(e.ctx(), &res))
	return res, run
}

// checkInvariants checks I1 and I2 over the job: every published reference
// resolves to a handle whose data exists.
func (e *env) checkInvariants() {
	e.t.Helper()
	list, err := e.store.List(e.ctx(), e.job)
	require.NoError(e.t, err)
	for _, ref := range list {
		h, err := e.states.ReadKey(e.ctx(), ref.Reference.Handle)
		require.NoError(e.t, err, "I1: checkpoint %d's handle resolves", ref.Checkpoint)
		require.NoError(e.t, e.states.CheckData(e.ctx(), h), "I1: checkpoint %d's data exists", ref.Checkpoint)
	}
}
