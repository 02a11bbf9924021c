package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// A worker process killed with SIGKILL in the middle of a finalization, and
// a new one started: the execution completes and the invariants hold. The
// worker reaches ZooKeeper through a fault proxy that partitions it while
// the finalization runs, so the kill lands while it is Verifying.
func TestWorkerKilledMidFinalization(t *testing.T) {
	e := newEnv(t, 0) // in-process worker on another task queue: the test's own view of the store
	bin := buildWorker(t)
	e.claim(1)
	proxy, err := zkfault.Start(zk.Addr)
	require.NoError(t, err)
	t.Cleanup(proxy.Close)

	queue := e.taskQueue + "-process"
	first := startWorker(t, bin, queue, proxy.Addr, e.root, e.bucket)

	req := e.checkpoint(1, false)
	proxy.Inject(zkfault.Partition)
	run, err := e.client.ExecuteWorkflow(e.ctx(), startOptions(req, queue), contract.FinalizeWorkflow, req)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := e.client.QueryWorkflow(e.ctx(), run.GetID(), "", contract.StatusQuery)
		var st contract.Status
		return err == nil && v.Get(&st) == nil && st.Phase == contract.Verifying
	}, 2*time.Minute, 200*time.Millisecond, "the partitioned publish goes to Verifying")

	require.NoError(t, first.Kill())
	proxy.Heal()
	startWorker(t, bin, queue, proxy.Addr, e.root, e.bucket)

	var res contract.FinalizeResult
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, contract.Published, res.Phase, "the new worker resolves it: Verify fences Absent, attempt 2 lands")

	e.checkInvariants()
	ref, err := e.store.Read(e.ctx(), req.CheckpointID())
	require.NoError(t, err)
	require.True(t, ref.HoldsToken(req.Token()))
	assert.True(t, e.exists(req.ExclusivePrefix+"data-0"))
}

func buildWorker(t *testing.T) string {
	t.Helper()
	bin, err := workerproc.Build(t.TempDir())
	require.NoError(t, err, "build the worker")
	return bin
}

// startWorker runs the real worker process on ZooKeeper at zkAddr.
func startWorker(t *testing.T, bin, queue, zkAddr, root, bucket string) *proc.Process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "worker.log")
	metrics := workerproc.FreeAddr(t)
	p, err := proc.Start(exec.Command(bin,
		"-temporal-address="+temporal.HostPort, "-task-queue="+queue,
		"-store=zookeeper", "-zookeeper-servers="+zkAddr, "-zookeeper-root="+root,
		"-zookeeper-session-timeout=4s", "-state-bucket=file://"+bucket, "-metrics-address="+metrics),
		proc.Options{Log: logPath})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = p.Kill()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("worker log:\n%s", b)
		}
	})
	// Ready once it polls: /healthz answers 200 only then.
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return worker.Healthcheck(ctx, metrics) == nil
	}, time.Minute, 100*time.Millisecond, "worker ready")
	return p
}

func startOptions(req contract.FinalizeRequest, queue string) sdkclient.StartWorkflowOptions {
	return sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: queue}
}
