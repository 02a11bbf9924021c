package examples_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// Stores a test's worker runs on.
const (
	// onZooKeeper: through a fault proxy (a partition is how a finalization
	// parks in Verifying, as it does when the store stops answering).
	onZooKeeper = "zookeeper"
	// onEmbedded: the worker's default, as docs/contract.md has a reader start it.
	onEmbedded = "embedded"
)

// env is one test's finalizer: a real finalizer-worker process on its own
// task queue and store, and a file bucket the job manager writes and the
// worker reads.
type env struct {
	t         *testing.T
	taskQueue string
	cluster   string
	bucket    string
	// proxy stands between the worker and ZooKeeper (nil on embedded).
	proxy *zkfault.Proxy
	// temporal is the harness's own client, for checking what the drivers
	// sent; the drivers never use it.
	temporal sdkclient.Client
}

func newEnv(t *testing.T, store string) *env {
	t.Helper()
	realserver.Require(t, "Temporal dev server and ZooKeeper")
	suffix := randomHex(t, 4)
	e := &env{t: t, taskQueue: "examples-" + suffix, cluster: "c-" + suffix, bucket: t.TempDir()}
	var err error
	e.temporal, err = sdkclient.Dial(sdkclient.Options{HostPort: temporal.HostPort, Namespace: temporal.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	require.NoError(t, err)
	t.Cleanup(e.temporal.Close)
	storeFlags := []string{"-embedded-path=" + filepath.Join(t.TempDir(), "references.db")}
	if store == onZooKeeper {
		e.proxy, err = zkfault.Start(zk.Addr)
		require.NoError(t, err)
		t.Cleanup(e.proxy.Close)
		storeFlags = []string{"-store=zookeeper", "-zookeeper-servers=" + e.proxy.Addr, "-zookeeper-root=/examples-" + suffix,
			// A short session: a partitioned call is Unknown within seconds.
			"-zookeeper-session-timeout=4s"}
	}
	e.startWorker(storeFlags)
	return e
}

// startWorker runs the real worker process: docs/contract.md's flags, the
// test's task queue, store and bucket.
func (e *env) startWorker(storeFlags []string) {
	e.t.Helper()
	workerproc.Start(e.t, workerBin, append([]string{
		"-temporal-address=" + temporal.HostPort, "-temporal-namespace=" + temporal.Namespace, "-task-queue=" + e.taskQueue,
		"-state-bucket=file://" + e.bucket,
	}, storeFlags...)...)
}

// driver runs one job manager program: argv before the command's own
// arguments, the job it plays and the owner (JM_OWNER) it plays it as.
type driver struct {
	name string
	argv []string
	env  *env
	job  string
	// owner is the job manager's identity: what `run` claims with and
	// every `finalize` names. Empty: JM_OWNER unset.
	owner string
}

// result is one driver command: what it printed and its exit code.
type result struct {
	args   []string
	stdout []byte
	stderr string
	code   int
}

func (d driver) forJob(job string) driver {
	d.job = job
	return d
}

// as is the driver playing owner, the claimant of the epochs it finalizes.
func (d driver) as(owner string) driver {
	d.owner = owner
	return d
}

// run runs a command of the driver and returns its result, whatever its
// exit code.
func (d driver) run(args ...string) result {
	d.env.t.Helper()
	return d.runInput(nil, args...)
}

// runInput runs a command with stdin as its standard input.
func (d driver) runInput(stdin []byte, args ...string) result {
	t := d.env.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := append(append([]string(nil), d.argv...), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		"TEMPORAL_CLI="+cliPath,
		"TEMPORAL_ADDRESS="+temporal.HostPort,
		"TEMPORAL_NAMESPACE="+temporal.Namespace,
		"FINALIZER_TASK_QUEUE="+d.env.taskQueue,
		"JM_STATE_DIR="+d.env.bucket,
		"JM_CLUSTER="+d.env.cluster,
		"JM_JOB="+d.job,
		"JM_OWNER="+d.owner, // the last of duplicate keys counts
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.Bytes(), stderr: stderr.String()}
	defer func() {
		t.Logf("%s %s: exit %d (%s)", d.name, strings.Join(args, " "), r.code, time.Since(start).Round(time.Millisecond))
	}()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v\n%s", d.name, args, err, r.stderr)
	}
	return r
}

// ok runs a command that must succeed and decodes its one JSON line into v.
func (d driver) ok(v any, args ...string) {
	t := d.env.t
	t.Helper()
	r := d.run(args...)
	require.Equalf(t, 0, r.code, "%s %v: stdout %s stderr %s", d.name, args, r.stdout, r.stderr)
	if v != nil {
		require.NoErrorf(t, decodeLine(r.stdout, v), "%s %v printed %q", d.name, args, r.stdout)
	}
}

// okAs is ok for a command that prints a contract payload: the line must
// be valid against schema (a file under schemas/) as well.
func (d driver) okAs(schema string, v any, args ...string) {
	t := d.env.t
	t.Helper()
	r := d.run(args...)
	require.Equalf(t, 0, r.code, "%s %v: stdout %s stderr %s", d.name, args, r.stdout, r.stderr)
	contracttest.Validate(t, schema, bytes.TrimSpace(r.stdout))
	require.NoErrorf(t, decodeLine(r.stdout, v), "%s %v printed %q", d.name, args, r.stdout)
}

// decodeLine decodes one JSON line.
func decodeLine(b []byte, v any) error {
	lines := lines(b)
	if len(lines) != 1 {
		return fmt.Errorf("want one line, got %d", len(lines))
	}
	return json.Unmarshal(lines[0], v)
}

func lines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// ensureJQ installs Debian's jq when missing: the CLI driver reads the
// temporal CLI's JSON with it.
func ensureJQ() error { return debian.Ensure(debian.Command("jq"), "jq") }

// tsDriver installs the TypeScript example's dependencies (npm ci, into a
// cache outside the repository keyed by the lockfile's hash), compiles it
// with its own tsc next to them and returns the node command that runs it.
func tsDriver(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node (Node.js 20) must be installed")
	src, err := filepath.Abs("jobmanager-ts")
	require.NoError(t, err)
	modules := npmCI(t, src)
	// The build lives next to the cached node_modules, so that both tsc and
	// node resolve @temporalio/client from there; the repository gets
	// neither node_modules nor dist.
	build, err := os.MkdirTemp(filepath.Dir(modules), "build-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(build) })
	require.NoError(t, os.CopyFS(filepath.Join(build, "src"), os.DirFS(filepath.Join(src, "src"))))
	copyFile(t, filepath.Join(src, "tsconfig.json"), filepath.Join(build, "tsconfig.json"))
	tsc := exec.Command(node, filepath.Join(modules, "typescript", "bin", "tsc"), "-p", build)
	out, err := tsc.CombinedOutput()
	require.NoErrorf(t, err, "tsc:\n%s", out)
	return []string{node, filepath.Join(build, "dist", "main.js")}
}

// npmCI returns the node_modules directory for src's package-lock.json,
// running `npm ci` into the cache when it is not there yet.
func npmCI(t *testing.T, src string) string {
	t.Helper()
	lockfile, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(lockfile)
	dir := filepath.Join(cachedir.Root(), "npm", hex.EncodeToString(sum[:8]))
	modules := filepath.Join(dir, "node_modules")
	installed := func() bool {
		_, err := os.Stat(filepath.Join(modules, ".package-lock.json"))
		return err == nil
	}
	if installed() {
		return modules
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	if installed() {
		return modules
	}
	// Installed into a staging folder and renamed into place: an
	// interrupted install never leaves a half-filled cache behind.
	staging, err := os.MkdirTemp(filepath.Dir(dir), ".staging-")
	require.NoError(t, err)
	defer os.RemoveAll(staging)
	copyFile(t, filepath.Join(src, "package.json"), filepath.Join(staging, "package.json"))
	copyFile(t, filepath.Join(src, "package-lock.json"), filepath.Join(staging, "package-lock.json"))
	start := time.Now()
	// --ignore-scripts: nothing here needs an install script (protobufjs's
	// only checks versions), and a run must not depend on one.
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = staging
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "npm ci:\n%s", out)
	t.Logf("npm ci into %s: %s", dir, time.Since(start).Round(time.Second))
	// A previous, incomplete install goes; MkdirTemp's 0700 becomes the
	// cache's usual 0755.
	_ = os.RemoveAll(dir)
	require.NoError(t, os.Chmod(staging, 0o755))
	require.NoError(t, os.Rename(staging, dir))
	require.True(t, installed(), "npm ci left no %s", filepath.Join(modules, ".package-lock.json"))
	return modules
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return strings.ToLower(hex.EncodeToString(b))
}
