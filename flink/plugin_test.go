// Package flink_test proves the Flink plugin on real Flink MiniClusters
// (Maven runs the Java tests under src/test) against the real worker, a
// real ZooKeeper, on which Flink's own leader election runs too, and the
// Temporal dev server. Go is only the harness: it starts the servers and the
// worker, runs Maven with their addresses, and reports what surefire says.
package flink_test

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/pluginjar"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkworld"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

// javaTests narrows the Java tests to run (surefire's -Dtest), for work on
// one scenario; the full run takes them all and checks that each ran.
var javaTests = flag.String("flink.test", "", "run only these Java tests (surefire's -Dtest pattern)")

// flinkRuntime runs the Flink 2.x line's tests on another Flink 2.x release
// than the one the plugin is built against: the plugin's and the tests'
// classes are compiled against the flink2 profile's Flink, then surefire
// runs them on this release's jars (flink-runtime, flink-clients, ...) and
// flink-kubernetes of flinkKubernetesRuntime (Maven Central lacks some
// patch releases of it). This checks that the released flink2 jar runs on
// that Flink as it is; docs/flink.md names the releases checked.
var (
	flinkRuntime           = flag.String("flink.runtime", "", "with TestPluginOnFlink2MiniClusters: run the tests on this Flink release (e.g. 2.2.1)")
	flinkKubernetesRuntime = flag.String("flink.kubernetes.runtime", "", "with -flink.runtime: flink-kubernetes's release (default: -flink.runtime)")
)

var (
	temporal  *devserver.Server
	zk        *zktest.Server
	workerBin string
)

func TestMain(m *testing.M) {
	flinkworld.Main(m, "flink", func(w flinkworld.World) int {
		temporal, zk, workerBin = w.Temporal, w.ZooKeeper, w.WorkerBin
		// The API server Flink's Kubernetes HA services and a worker on the
		// Kubernetes store share, started by the first test that asks.
		return kubetest.Run(m, kubetest.Options{})
	})
}

// TestPluginOnMiniClusters runs every Java test of the plugin (mvn verify:
// its unit tests, the scenarios on MiniClusters, the shaded jar) on Flink
// 1.20 against one worker on ZooKeeper, the worker's state bucket being the
// directory the MiniClusters write their checkpoints to.
func TestPluginOnMiniClusters(t *testing.T) {
	onMiniClusters(t, flink1)
}

// TestPluginOnFlink2MiniClusters runs the same tests and builds the jar on
// Flink 2.x (the flink2 profile: RecoveryClaimMode, the execution plan
// store, the legacy source and sink API).
func TestPluginOnFlink2MiniClusters(t *testing.T) {
	onMiniClusters(t, flink2)
}

// flinkLine is a Flink release line the plugin builds for: its Maven
// profile, build directory and jar.
type flinkLine struct {
	profile, dir, jar string
}

var (
	flink1 = flinkLine{dir: "target", jar: "finalizer-flink-*.jar"}
	flink2 = flinkLine{profile: "flink2", dir: "target-flink2", jar: "finalizer-flink-*-flink2.jar"}
)

func onMiniClusters(t *testing.T, line flinkLine) {
	realserver.Require(t, "Temporal dev server, ZooKeeper and Flink MiniClusters")
	suffix := randomHex(t)
	bucket := t.TempDir()
	taskQueue := "flink-" + suffix
	const cluster = "c1"
	startWorker(t, taskQueue, bucket, cluster, zk.Addr, "/finalizer-"+suffix)
	faults := startFaultWorld(t, suffix, bucket, cluster, "/finalizer-"+suffix)
	kube := startKubernetesWorld(t, suffix, bucket)
	creds := startCredentialWorld(t, suffix, bucket)

	mvn := maven(t)
	out := filepath.Join(t.TempDir(), "mvn.log")
	log, err := os.Create(out)
	require.NoError(t, err)
	defer log.Close()
	goals := [][]string{{"clean", "verify"}}
	otherRuntime := *flinkRuntime != "" && line.profile != ""
	if otherRuntime {
		goals = [][]string{{"clean", "test-compile"},
			{"surefire:test", "-Dflink.version=" + *flinkRuntime, "-Dflink.kubernetes.version=" + k8sRuntime()}}
	}
	env := append(os.Environ(),
		"FINALIZER_IT_TEMPORAL_ADDRESS="+temporal.HostPort,
		"FINALIZER_IT_TEMPORAL_NAMESPACE="+temporal.Namespace,
		"FINALIZER_IT_TASK_QUEUE="+taskQueue,
		"FINALIZER_IT_ZOOKEEPER="+zk.Addr,
		"FINALIZER_IT_BUCKET="+bucket,
		"FINALIZER_IT_CLUSTER="+cluster,
	)
	env = append(env, faults.env()...)
	env = append(env, kube...)
	env = append(env, creds.env()...)
	start := time.Now()
	for _, g := range goals {
		args := append(append([]string{}, mvn[1:]...), g...)
		if line.profile != "" {
			args = append(args, "-P", line.profile)
		}
		if *javaTests != "" {
			args = append(args, "-Dtest="+*javaTests, "-Dsurefire.failIfNoSpecifiedTests=false")
		}
		cmd := exec.Command(mvn[0], args...)
		cmd.Dir = "."
		cmd.Stdout, cmd.Stderr = log, log
		cmd.Env = env
		if err = cmd.Run(); err != nil {
			break
		}
	}
	summary := surefire(t, out)
	t.Logf("mvn verify: %s\n%s", time.Since(start).Round(time.Second), summary)
	if err != nil {
		reports, _ := filepath.Glob(filepath.Join(line.dir, "surefire-reports", "*-output.txt"))
		for _, r := range reports {
			b, _ := os.ReadFile(r)
			t.Logf("%s (last 8 KiB):\n%s", r, tail(b, 8<<10))
		}
		b, _ := os.ReadFile(out)
		t.Fatalf("mvn verify failed: %v\n%s", err, tail(b, 16<<10))
	}
	for file, title := range map[string]string{
		"side-by-side.md":       "scenario 4, ambiguous writes side by side",
		"completion-latency.md": "a checkpoint's completion, sink snapshot to notification",
		"incremental.md":        "scenario 6, incremental RocksDB shared files after a recovery",
		"outage.md":             "our outage: the worker or Temporal away",
		"rotation.md":           "the job manager's client certificate rotated",
	} {
		if table, err := os.ReadFile(filepath.Join(line.dir, file)); err == nil {
			t.Logf("%s:\n%s", title, table)
		}
	}
	require.NotRegexp(t, regexp.MustCompile(`Skipped: [1-9]`), summary, "a Java test was skipped")
	if otherRuntime {
		// The classes ran on that release's Flink (its jars on surefire's
		// class path), and surefire ran tests.
		require.Regexp(t, regexp.MustCompile(`Tests run: [1-9]`), summary, "surefire ran tests on Flink %s", *flinkRuntime)
		reports, err := filepath.Glob(filepath.Join(line.dir, "surefire-reports", "TEST-*.xml"))
		require.NoError(t, err)
		require.NotEmpty(t, reports)
		for _, r := range reports {
			b, err := os.ReadFile(r)
			require.NoError(t, err)
			for _, jar := range []string{"flink-runtime-" + *flinkRuntime + ".jar", "flink-kubernetes-" + k8sRuntime() + ".jar"} {
				require.Contains(t, string(b), jar, "%s: the class path the tests ran on", r)
			}
		}
	}
	// The jar for Flink's lib/ keeps to its package (not built with -flink.runtime).
	var jars []string
	if !otherRuntime {
		var err error
		jars, err = filepath.Glob(filepath.Join(line.dir, line.jar))
		require.NoError(t, err)
		require.Len(t, jars, 1, "the shaded jar for Flink's lib/")
		require.NoError(t, pluginjar.Check(jars[0], pluginjar.Scope), "the jar for Flink's lib/ keeps to its package")
	}
	if *javaTests != "" {
		return
	}
	for _, class := range []string{"ContentHashTest", "FinalizerPluginITCase", "KubernetesDelegateITCase", "KubernetesOperatorITCase", "SideBySideITCase",
		"IncrementalRocksDbITCase", "OutageITCase", "CredentialRotationITCase"} {
		require.Regexp(t, regexp.MustCompile(`Tests run: [1-9].* in io\.github\.checkpointfinalizer\.flink\.(wire\.)?`+class), summary,
			"surefire ran %s", class)
	}
	if otherRuntime {
		return // no jar: the flink2 profile's build is checked without -flink.runtime
	}
	list, err := exec.Command("jar", "tf", jars[0]).Output()
	require.NoError(t, err)
	for _, class := range []string{
		"io/github/checkpointfinalizer/flink/FinalizerHaServicesFactory.class",
		"io/github/checkpointfinalizer/flink/FinalizerCheckpointRecovery.class",
		"io/github/checkpointfinalizer/flink/shaded/io/grpc/ManagedChannel.class",
		operatorEntryPoint,
	} {
		require.Contains(t, string(list), class)
	}
}

// k8sRuntime is the flink-kubernetes release of -flink.runtime.
func k8sRuntime() string {
	if *flinkKubernetesRuntime != "" {
		return *flinkKubernetesRuntime
	}
	return *flinkRuntime
}

// operatorEntryPoint is the class of the plugin's entry point for the Flink
// Kubernetes Operator (docs/flink.md), in both jars.
const operatorEntryPoint = "org/apache/flink/kubernetes/highavailability/KubernetesHAServicesFactory.class"

// kubeCluster is the cluster a worker on the Kubernetes store serves, for
// the Java tests that run Flink's Kubernetes HA services as the delegate.
const kubeCluster = "ck"

// startKubernetesWorld starts (or joins) the test binary's kube-apiserver,
// writes a kubeconfig that Flink and a worker on the Kubernetes store both
// use, starts that worker, and returns what the Java tests read.
func startKubernetesWorld(t *testing.T, suffix, bucket string) []string {
	t.Helper()
	srv := kubetest.Shared(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kubeconfig, srv.AdminToken, "default"))
	taskQueue := "flink-kube-" + suffix
	workerproc.Start(t, workerBin,
		"-temporal-address="+temporal.HostPort, "-temporal-namespace="+temporal.Namespace, "-task-queue="+taskQueue,
		"-state-bucket=file://"+bucket, "-store=kubernetes", "-kubernetes-kubeconfig="+kubeconfig,
		"-kubernetes-namespace=default",
		"-clusters="+kubeCluster+"=flink/"+kubeCluster+"/checkpoints:flink/"+kubeCluster+"/savepoints", "-retain=2")
	return []string{
		"FINALIZER_IT_KUBECONFIG=" + kubeconfig,
		"FINALIZER_IT_KUBE_TASK_QUEUE=" + taskQueue,
		"FINALIZER_IT_KUBE_CLUSTER=" + kubeCluster,
	}
}

// startWorker runs a worker on ZooKeeper serving cluster with Flink's
// layout (state.checkpoints.dir and state.savepoints.dir of the cluster
// under flink/<cluster>/) and the Java tests' retention.
func startWorker(t *testing.T, taskQueue, bucket, cluster, zookeeper, root string, extra ...string) *proc.Process {
	t.Helper()
	p, _ := workerproc.StartProcess(t, workerBin, append([]string{
		"-temporal-address=" + temporal.HostPort, "-temporal-namespace=" + temporal.Namespace, "-task-queue=" + taskQueue,
		"-state-bucket=file://" + bucket, "-store=zookeeper", "-zookeeper-servers=" + zookeeper, "-zookeeper-root=" + root,
		"-clusters=" + cluster + "=flink/" + cluster + "/checkpoints:flink/" + cluster + "/savepoints",
		// execution.checkpointing.num-retained of the Java tests.
		"-retain=2",
	}, extra...)...)
	return p
}

// maven is the mvn command line the harnesses share (flinkcluster.Maven).
func maven(t *testing.T) []string {
	t.Helper()
	mvn, err := flinkcluster.Maven()
	require.NoError(t, err)
	return mvn
}

// surefire is what Maven printed about the tests: each class's line and
// the totals.
func surefire(t *testing.T, log string) string {
	t.Helper()
	f, err := os.Open(log)
	require.NoError(t, err)
	defer f.Close()
	var b strings.Builder
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		if line := s.Text(); strings.Contains(line, "Tests run:") || strings.Contains(line, "FAIL") || strings.Contains(line, "BUILD") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}
