// Package topology runs the production topology on one machine, natively
// and on loopback: PostgreSQL 15 (a private cluster), the Temporal server
// (built from the module proxy by scripts/temporal-server.sh, the version
// docker-compose.yml pins) on it with SQL advanced visibility, the
// Temporal Web UI server in front of its frontend, a 3-node ZooKeeper
// ensemble, several finalizer-worker processes on one task queue and the
// finalizer CLI. cmd/finalizer-topology (scripts/topology.sh)
// is its command; tools/topologytest its end-to-end test.
//
// Every process is detached (a session of its own) and recorded in the
// state directory (topology.json, pid files, logs), so `up` returns while
// everything runs, and `status` and `down` work from another process.
package topology

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StateFile is the topology's description in its directory.
const StateFile = "topology.json"

// Options say what Up starts.
type Options struct {
	// Dir holds all state; created when missing. It must not hold a
	// topology already.
	Dir string
	// Workers is the number of finalizer-worker processes (default 2).
	Workers int
	// ZooKeeperNodes is the ensemble's size (default 3).
	ZooKeeperNodes int
	// Retain is the workers' -retain (default 2).
	Retain int
	// WorkerBinary is the finalizer-worker the workers start from (a
	// previous release, before an Upgrade); empty: this module's build.
	WorkerBinary string
	// TemporalOnly starts PostgreSQL, the Temporal server (namespace and
	// search attributes registered) and its Web UI, and nothing else: the
	// benchmark and the Web UI test run their own store and worker against
	// the production-shaped server.
	TemporalOnly bool
	// Progress receives what is being done (may be nil).
	Progress io.Writer
}

// Topology is a running (or stopped) topology, as topology.json records it.
type Topology struct {
	Dir           string   `json:"dir"`
	Postgres      Postgres `json:"postgres"`
	Temporal      Temporal `json:"temporal"`
	UI            UI       `json:"ui"`
	ZooKeeper     []ZKNode `json:"zookeeper"`
	ZooKeeperRoot string   `json:"zookeeperRoot"`
	Workers       []Worker `json:"workers"`
	TaskQueue     string   `json:"taskQueue"`
	Retain        int      `json:"retain"`
	// Bucket is the state bucket's directory (a file:// bucket the
	// workers and the job managers on this machine share).
	Bucket string `json:"bucket"`
	// CLI is the finalizer CLI binary.
	CLI string `json:"cli"`

	registered bool
}

// BucketURL is the state bucket as the workers open it.
func (tp *Topology) BucketURL() string { return "file://" + tp.Bucket }

// CLIEnv is the environment the finalizer CLI needs on this topology.
func (tp *Topology) CLIEnv() []string {
	return []string{
		"FINALIZER_TEMPORAL_ADDRESS=" + tp.Temporal.Frontend,
		"FINALIZER_TEMPORAL_NAMESPACE=" + tp.Temporal.Namespace,
		"FINALIZER_TASK_QUEUE=" + tp.TaskQueue,
	}
}

// Up creates and starts a topology in opts.Dir and returns once every
// part serves: the namespace and search attributes registered, the
// workers polling. On failure what was started is stopped again.
func Up(ctx context.Context, opts Options) (tp *Topology, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	if opts.ZooKeeperNodes == 0 {
		opts.ZooKeeperNodes = 3
	}
	if opts.Retain == 0 {
		opts.Retain = DefaultRetain
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		return nil, fmt.Errorf("%s already holds a topology: `down` it first (or choose another directory)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The postgres user reaches its cluster through this folder.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	tp = &Topology{
		Dir: dir, TaskQueue: TaskQueue, ZooKeeperRoot: ZooKeeperRoot,
		Retain: opts.Retain, Bucket: filepath.Join(dir, "state"), CLI: filepath.Join(dir, "bin", "finalizer"),
	}
	defer func() {
		if err != nil {
			_ = tp.Down()
			err = fmt.Errorf("topology up (state in %s): %w", dir, err)
		}
	}()
	step := func(what string) { fmt.Fprintf(progress, "topology: %s\n", what) }

	step("PostgreSQL 15: initdb and start a private cluster")
	if err := EnsurePostgres(); err != nil {
		return tp, err
	}
	if tp.Postgres, err = newPostgres(filepath.Join(dir, "postgres")); err != nil {
		return tp, err
	}
	if err := tp.Postgres.initCluster(); err != nil {
		return tp, err
	}
	if err := tp.save(); err != nil {
		return tp, err
	}
	if err := tp.Postgres.start(); err != nil {
		return tp, err
	}

	step("Temporal server " + ServerVersion + ": build or find it, create both databases")
	if err := tp.setupTemporal(ctx, progress); err != nil {
		return tp, err
	}
	if err := tp.save(); err != nil {
		return tp, err
	}
	step("Temporal server: start")
	if err := tp.StartTemporal(ctx); err != nil {
		return tp, err
	}
	step("namespace and search attributes, with the temporal CLI")
	if err := tp.registerNamespace(ctx, progress); err != nil {
		return tp, err
	}
	step("Web UI server " + UIVersion + ": build or find it, start it in front of the frontend")
	if err := tp.setupUI(ctx, progress); err != nil {
		return tp, err
	}
	if err := tp.save(); err != nil {
		return tp, err
	}
	if err := tp.startUI(ctx); err != nil {
		return tp, err
	}
	if opts.TemporalOnly {
		return tp, nil
	}

	step(fmt.Sprintf("ZooKeeper: %d-node ensemble", opts.ZooKeeperNodes))
	if err := tp.setupZooKeeper(opts.ZooKeeperNodes); err != nil {
		return tp, err
	}
	if err := tp.save(); err != nil {
		return tp, err
	}
	if err := tp.StartZooKeeper(); err != nil {
		return tp, err
	}

	step("build finalizer-worker and finalizer")
	if err := BuildBinaries(ctx, filepath.Join(dir, "bin")); err != nil {
		return tp, err
	}
	if opts.WorkerBinary != "" {
		step("workers start from " + opts.WorkerBinary)
		if err := tp.installWorker(ctx, opts.WorkerBinary); err != nil {
			return tp, err
		}
	}
	if err := os.MkdirAll(tp.Bucket, 0o755); err != nil {
		return tp, err
	}
	if err := tp.setupWorkers(opts.Workers); err != nil {
		return tp, err
	}
	if err := tp.save(); err != nil {
		return tp, err
	}
	step(fmt.Sprintf("start %d workers on task queue %s", opts.Workers, tp.TaskQueue))
	for i := range tp.Workers {
		if err := tp.StartWorker(ctx, i); err != nil {
			return tp, err
		}
	}
	return tp, nil
}

// Load reads the topology recorded in dir.
func Load(dir string) (*Topology, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, err
	}
	tp := &Topology{}
	if err := json.Unmarshal(b, tp); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, StateFile), err)
	}
	tp.registered = true
	return tp, nil
}

func (tp *Topology) save() error {
	b, err := json.MarshalIndent(tp, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(tp.Dir, StateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(tp.Dir, StateFile))
}

// Down stops everything the topology started: workers first, then the
// Web UI server, the Temporal server, ZooKeeper and PostgreSQL. The directory stays (its logs
// and data); topology.json is removed, so the directory can be removed or
// reused.
func (tp *Topology) Down() error {
	var errs []error
	for i := range tp.Workers {
		errs = append(errs, tp.Workers[i].Process.shutdown(workerStopGrace))
	}
	errs = append(errs, tp.UI.Process.shutdown(10*time.Second))
	errs = append(errs, tp.Temporal.Process.shutdown(20*time.Second))
	for i := range tp.ZooKeeper {
		errs = append(errs, tp.ZooKeeper[i].Process.shutdown(10*time.Second))
	}
	if tp.Postgres.Data != "" && tp.Postgres.running() {
		errs = append(errs, tp.Postgres.stop("fast"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(tp.Dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// CrashPostgres stops PostgreSQL as a crash does (`pg_ctl stop -m
// immediate`: no checkpoint, the WAL is replayed on the next start); a
// cluster that does not run is an error.
func (tp *Topology) CrashPostgres() error { return tp.Postgres.stop("immediate") }

// StartPostgres starts PostgreSQL on its data unless it runs and waits
// until it accepts connections.
func (tp *Topology) StartPostgres() error { return tp.Postgres.start() }

// Ports are every loopback port the topology listens on: PostgreSQL's,
// the Temporal server's, the Web UI's, every ZooKeeper node's client and
// peer ports and every worker's metrics port.
func (tp *Topology) Ports() []int {
	ports := []int{tp.Postgres.Port}
	ports = append(ports, tp.Temporal.Ports...)
	ports = append(ports, tp.UI.Port)
	for _, n := range tp.ZooKeeper {
		ports = append(ports, portOf(n.Addr))
		ports = append(ports, n.PeerPorts...)
	}
	for _, w := range tp.Workers {
		ports = append(ports, portOf(w.Metrics))
	}
	return ports
}

func portOf(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// RestartPostgres crashes PostgreSQL (`pg_ctl stop -m immediate`: no
// checkpoint, the WAL is replayed) and starts it again on its data; a
// cluster that does not run is an error.
func (tp *Topology) RestartPostgres() error {
	if err := tp.CrashPostgres(); err != nil {
		return err
	}
	return tp.StartPostgres()
}

// Status describes every part: its address and whether it runs, with its
// pid ("running pid 1234" or "stopped").
func (tp *Topology) Status() string {
	var b strings.Builder
	state := func(pid int) string {
		if pid != 0 {
			return fmt.Sprintf("running pid %d", pid)
		}
		return "stopped"
	}
	fmt.Fprintf(&b, "state directory   %s\n", tp.Dir)
	fmt.Fprintf(&b, "postgresql 15     %s  %s  (user %s, data %s)\n", tp.Postgres.Addr(), state(tp.Postgres.PID()), tp.Postgres.User, tp.Postgres.Data)
	fmt.Fprintf(&b, "temporal %s  %s  %s  (namespace %s, http %s, config %s, log %s)\n", ServerVersion, tp.Temporal.Frontend,
		state(tp.TemporalPID()), tp.Temporal.Namespace, tp.Temporal.HTTP, tp.Temporal.ConfigFile, tp.Temporal.Process.Log)
	fmt.Fprintf(&b, "web-ui %s   %s  %s  (frontend %s, config %s, log %s)\n", UIVersion, tp.UI.URL, state(tp.UIPID()),
		tp.Temporal.Frontend, tp.UI.ConfigFile, tp.UI.Process.Log)
	for _, n := range tp.ZooKeeper {
		mode, err := n.Mode()
		if err != nil {
			mode = "not serving"
		}
		fmt.Fprintf(&b, "zookeeper-%d       %s  %s  %s  (log %s)\n", n.ID, n.Addr, state(n.PID()), mode, n.Process.Log)
	}
	for _, w := range tp.Workers {
		fmt.Fprintf(&b, "%-17s metrics http://%s/metrics  %s  (log %s)\n", w.Name, w.Metrics, state(w.PID()), w.Process.Log)
	}
	fmt.Fprintf(&b, "task queue        %s\n", tp.TaskQueue)
	fmt.Fprintf(&b, "zookeeper root    %s\n", tp.ZooKeeperRoot)
	fmt.Fprintf(&b, "state bucket      %s\n", tp.BucketURL())
	fmt.Fprintf(&b, "finalizer CLI     env %s %s list --stuck\n", strings.Join(tp.CLIEnv(), " "), tp.CLI)
	return b.String()
}
