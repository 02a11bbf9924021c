package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/checks/docblock"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/netfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// retained is execution.checkpointing.num-retained of both worlds and
// the worker's -retain.
const retained = 2

// world is one way of running Flink: its HA configuration, the extra
// jars of its lib/, and what its operator does after a job ended.
type world struct {
	name string
	// cluster names the Flink cluster (high-availability.cluster-id) and
	// the finalizer's cluster, a DNS label.
	cluster string
	config  flinkcluster.Config
	jars    []string
	// ended waits until what the world does by itself once the jobs ended
	// is done (the plugin's retirements); nil when there is nothing.
	ended func(ctx context.Context, jobs []string) error
	// settle is what the world's operator runs after that, before the
	// directories left are counted: the manual step it stands for, ""
	// when there is none.
	settle func(ctx context.Context) (string, error)
	// proof says what is wrong with the world as configured, read once
	// its scenarios ran (a plugin world that never called the finalizer
	// would be a second stock world); nil when there is nothing to prove.
	proof func(ctx context.Context) error
	// away takes the finalizer's side away (outageWorker, outageTemporal)
	// and returns what brings it back; stock, which has neither, runs the
	// same scenario undisturbed: the yardstick.
	away func(what string) (back func() error, err error)
	// outage is how long a scenario stays away: the constant outage in the
	// plugin's world; none in stock's, which has nothing to take away, so
	// its job runs on undisturbed at once.
	outage time.Duration
	// storeFault arms a fault on the next write between the world's
	// checkpoint writer and ZooKeeper (Flink's JobManagers in stock's, the
	// worker in the plugin's) and returns a channel closed once it acted.
	storeFault func(f zkfault.Fault) <-chan struct{}
	// bucket holds the checkpoint and savepoint directories.
	bucket string
	c      *flinkcluster.Cluster
}

// common is the configuration both worlds share: Flink's ZooKeeper HA
// keys (the plugin delegates to ZooKeeper) with a short session, so a
// JobManager's crash is noticed in seconds, not ZooKeeper's 40 s,
// Flink's checkpoint directories in the bucket, and parent-first class
// loading.
func common(bucket, cluster string) flinkcluster.Config {
	return flinkcluster.Config{
		"high-availability.zookeeper.quorum":                    zk.Addr,
		"high-availability.zookeeper.path.root":                 "/flink-" + filepath.Base(bucket),
		"high-availability.cluster-id":                          cluster,
		"high-availability.storageDir":                          "file://" + filepath.Join(bucket, "flink", cluster, "ha"),
		"high-availability.zookeeper.client.session-timeout":    "4000",
		"high-availability.zookeeper.client.connection-timeout": "4000",
		"execution.checkpointing.dir":                           "file://" + filepath.Join(bucket, "flink", cluster, "checkpoints"),
		"execution.checkpointing.savepoint-dir":                 "file://" + filepath.Join(bucket, "flink", cluster, "savepoints"),
		"execution.checkpointing.num-retained":                  fmt.Sprint(retained),
		// A job's classes from lib/ first: a library the plugin's jar
		// carried under its own name would shadow the one a job bundles
		// (runsBundlingJob).
		"classloader.resolve-order": "parent-first",
	}
}

// stockWorld is Flink's own ZooKeeper HA: the yardstick. Flink reaches
// ZooKeeper through a proxy a scenario drops a write of.
func stockWorld(t *testing.T, bucket string) *world {
	t.Helper()
	w := &world{name: "stock", cluster: "stock", bucket: bucket, config: common(bucket, "stock")}
	w.config["high-availability.type"] = "zookeeper"
	w.config["high-availability.zookeeper.quorum"] = zkProxy(t, &w.storeFault)
	w.settle = func(context.Context) (string, error) { return "", nil }
	w.away = func(string) (func() error, error) { return func() error { return nil }, nil }
	return w
}

// pluginWorld is the plugin installed as docs/flink.md says: its jar in
// lib/, its factory as the HA type, its keys, and a worker on the
// ZooKeeper store serving the cluster with Flink's layout.
func pluginWorld(t *testing.T, bucket, pluginJar string) *world {
	t.Helper()
	const cluster = "plugin"
	taskQueue := "flink-cluster-" + filepath.Base(bucket)
	// The plugin reaches Temporal through a proxy a scenario black-holes.
	temporalProxy, err := netfault.Start(temporal.HostPort)
	require.NoError(t, err)
	t.Cleanup(temporalProxy.Close)
	// The worker reaches its store through a proxy a scenario drops a
	// write of; Flink's delegate reaches ZooKeeper directly.
	var storeFault func(zkfault.Fault) <-chan struct{}
	worker, _ := workerproc.StartProcess(t, workerBin,
		"-temporal-address="+temporal.HostPort, "-temporal-namespace="+temporal.Namespace, "-task-queue="+taskQueue,
		"-state-bucket=file://"+bucket, "-store=zookeeper", "-zookeeper-servers="+zkProxy(t, &storeFault),
		"-zookeeper-root=/finalizer-"+filepath.Base(bucket),
		"-clusters="+cluster+"=flink/"+cluster+"/checkpoints:flink/"+cluster+"/savepoints",
		fmt.Sprintf("-retain=%d", retained),
		// The reconciler a test runs must not wait out the production floor.
		"-reconcile-min-grace=0s")
	w := &world{name: "plugin", cluster: cluster, bucket: bucket, config: common(bucket, cluster), jars: []string{pluginJar},
		storeFault: storeFault, outage: outage}
	for k, v := range installed(t, common(bucket, cluster), map[string]string{
		"high-availability.type":               "io.github.checkpointfinalizer.flink.FinalizerHaServicesFactory",
		"finalizer.high-availability.delegate": "zookeeper",
		"finalizer.state-bucket":               "file://" + bucket,
		"finalizer.temporal.address":           temporalProxy.Addr,
		"finalizer.temporal.namespace":         temporal.Namespace,
		"finalizer.task-queue":                 taskQueue,
	}) {
		w.config[k] = v
	}
	// Shorter than an outage: every try the plugin makes runs out while we
	// are away, as in an outage of hours.
	w.config["finalizer.call-timeout"] = "10s"
	w.away = func(what string) (func() error, error) {
		switch what {
		case outageWorker:
			return func() error { return worker.Signal(syscall.SIGCONT) }, worker.Signal(syscall.SIGSTOP)
		case outageTemporal:
			temporalProxy.Partition()
			return func() error { temporalProxy.Heal(); return nil }, nil
		}
		return nil, fmt.Errorf("no outage %q", what)
	}
	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: temporal.HostPort, Namespace: temporal.Namespace,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	t.Cleanup(tc.Close)
	fc := client.New(tc, client.Options{TaskQueue: taskQueue})
	// The worker finishes a job's retirement by itself; the reconciler an
	// operator schedules (docs/flink.md) runs once after it, no grace, and
	// is a manual step where it still had anything to delete.
	w.ended = func(ctx context.Context, jobs []string) error { return retired(ctx, tc, cluster, jobs) }
	w.settle = func(ctx context.Context) (string, error) {
		req := contract.NewReconcileRequest(cluster)
		req.Apply, req.Grace = true, 0
		if _, err := fc.Reconcile(ctx, req); err != nil {
			return "", fmt.Errorf("reconcile: %w", err)
		}
		return "finalizer reconcile --apply", nil
	}
	w.proof = func(ctx context.Context) error {
		resp, err := tc.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Namespace: temporal.Namespace, Query: "WorkflowType = '" + contract.FinalizeWorkflow + "'",
		})
		if err != nil {
			return fmt.Errorf("count finalizations: %w", err)
		}
		if resp.GetCount() == 0 {
			return fmt.Errorf("no %s ran: the cluster did not finalize through the finalizer", contract.FinalizeWorkflow)
		}
		return nil
	}
	return w
}

// zkProxy starts a ZooKeeper fault proxy for the test's lifetime, sets
// inject to arm it, and returns its address.
func zkProxy(t *testing.T, inject *func(zkfault.Fault) <-chan struct{}) string {
	t.Helper()
	p, err := zkfault.Start(zk.Addr)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	*inject = p.Inject
	return p.Addr
}

// retired waits until each job has a retirement and none is still
// running: what a job that ended leaves to the finalizer is done.
func retired(ctx context.Context, tc sdkclient.Client, cluster string, jobs []string) error {
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	for {
		pending, err := retiring(ctx, tc, cluster, jobs)
		if err == nil && len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the retirements of %v did not close within %s (pending %v, %v): %w", jobs, waitLimit, pending, err, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// retiring names the jobs without a retirement yet and the retirements
// still running, as Temporal's visibility shows them.
func retiring(ctx context.Context, tc sdkclient.Client, cluster string, jobs []string) ([]string, error) {
	seen := map[string]bool{}
	var pending []string
	var token []byte
	for {
		resp, err := tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: temporal.Namespace, NextPageToken: token,
			Query: "WorkflowType = '" + contract.RetireWorkflow + "'",
		})
		if err != nil {
			return nil, err
		}
		for _, e := range resp.GetExecutions() {
			id := e.GetExecution().GetWorkflowId()
			for _, job := range jobs {
				if strings.HasPrefix(id, "retire/"+cluster+"/"+job+"/") {
					seen[job] = true
					if e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
						pending = append(pending, id)
					}
				}
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	for _, job := range jobs {
		if !seen[job] {
			pending = append(pending, "no retirement of "+job)
		}
	}
	return pending, nil
}

// start starts the world's cluster for the test's lifetime; a failed
// test shows the end of each process's log.
func (w *world) start(t *testing.T, lib string, javaOpts []string) {
	t.Helper()
	dir := t.TempDir()
	var err error
	w.c, err = flinkcluster.Start(t.Context(), flinkcluster.Options{
		Dir: dir, Lib: lib, Jars: w.jars, JavaOpts: javaOpts, Config: w.config,
	})
	require.NoError(t, err, "start the %s world's cluster (logs in %s)", w.name, dir)
	t.Cleanup(func() {
		if err := w.c.Stop(); err != nil {
			t.Logf("%s world: stop: %v", w.name, err)
		}
		if t.Failed() {
			for _, log := range w.c.Logs() {
				b, _ := os.ReadFile(log)
				t.Logf("%s (last 8 KiB):\n%s", log, tail(b, 8<<10))
			}
		}
	})
}

// checkpointDirs counts the chk-N directories of jobs in the world's
// checkpoint directory now.
func (w *world) checkpointDirs(jobs ...string) int {
	n := 0
	for _, job := range jobs {
		dirs, _ := filepath.Glob(filepath.Join(w.bucket, "flink", w.cluster, "checkpoints", job, "chk-*"))
		n += len(dirs)
	}
	return n
}

// newestCheckpoint is the newest chk-N directory of a job with its
// _metadata, the one a user restores with -s, or "" when none is left.
func (w *world) newestCheckpoint(job string) string {
	metas, _ := filepath.Glob(filepath.Join(w.bucket, "flink", w.cluster, "checkpoints", job, "chk-*", "_metadata"))
	newest, best := "", int64(-1)
	for _, m := range metas {
		var id int64
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(m)), "chk-%d", &id); err == nil && id > best {
			newest, best = filepath.Dir(m), id
		}
	}
	return newest
}

func (w *world) savepoints() string {
	return filepath.Join(w.bucket, "flink", w.cluster, "savepoints")
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// installed is the configuration docs/flink.md's "Installing on a Flink
// cluster" tells a user to set, with this test's values: the block must
// name exactly the keys the plugin world sets (Flink's from common, the
// plugin's from plugin), so the documentation cannot drift from what runs.
func installed(t *testing.T, common flinkcluster.Config, plugin map[string]string) map[string]string {
	t.Helper()
	block, err := docblock.Block("docs/flink.md", "flink-cluster-config")
	require.NoError(t, err)
	ours := map[string]string{}
	var documented []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		key, _, ok := strings.Cut(line, ":")
		require.True(t, ok, "docs/flink.md's cluster configuration: %q is no key: value line", line)
		documented = append(documented, key)
		if v, ok := plugin[key]; ok {
			ours[key] = v
		} else if v, ok := common[key]; ok {
			ours[key] = v
		}
	}
	require.Len(t, ours, len(documented), "every key docs/flink.md's cluster configuration names is one the test sets: %v", documented)
	for k := range plugin {
		require.Contains(t, documented, k, "docs/flink.md's cluster configuration names every key of the plugin")
	}
	return ours
}
