package topology

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// Worker is one finalizer-worker process.
type Worker struct {
	Name    string  `json:"name"`
	Metrics string  `json:"metrics"`
	Process process `json:"process"`
}

// cliPackage is the package of the finalizer CLI a topology runs.
const cliPackage = "./client/cmd/finalizer"

// BuildBinaries builds finalizer-worker and the finalizer CLI from this
// module into dir.
func BuildBinaries(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := workerproc.BuildTo(ctx, filepath.Join(dir, "finalizer-worker"), moduleRoot()); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "finalizer"), cliPackage)
	cmd.Dir = moduleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", cliPackage, err, b)
	}
	return nil
}

// moduleRoot is this repository's checkout.
func moduleRoot() string { return filepath.Join(serverbin.ScriptsDir(), "..") }

// installWorker puts the worker binary the workers start from in place:
// from (another build, a previous release) copied, or this module's
// build. The file is replaced by a rename, so processes that run the old
// one keep it.
func (tp *Topology) installWorker(ctx context.Context, from string) error {
	bin := tp.workerBinary()
	next := bin + ".next"
	if from == "" {
		if err := workerproc.BuildTo(ctx, next, moduleRoot()); err != nil {
			return err
		}
	} else if err := copyExecutable(from, next); err != nil {
		return err
	}
	return os.Rename(next, bin)
}

func (tp *Topology) workerBinary() string { return filepath.Join(tp.Dir, "bin", "finalizer-worker") }

func copyExecutable(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("worker binary: %w", err)
	}
	return os.WriteFile(to, b, 0o755)
}

// workerShutdownGrace is the workers' -shutdown-grace; a stop waits a
// little longer before it kills.
const (
	workerShutdownGrace = 20 * time.Second
	workerStopGrace     = workerShutdownGrace + 5*time.Second
)

// Replaced is one worker a rolling upgrade replaced: its process before
// and after.
type Replaced struct {
	Name           string
	Before, After  int
	Stopped, Ready time.Time
}

// Upgrade replaces the workers' build, one worker at a time, as a rolling
// upgrade of a Deployment does: the new binary (binary, or this module's
// build when empty) is put in place, then each worker in turn is stopped
// gracefully (SIGTERM: it stops polling and finishes what it runs within
// its shutdown grace), started on the new binary and waited for until it
// polls, before the next one goes. Workflows move to the new build at
// their next workflow task; an old worker meanwhile fails a task it cannot
// replay, and Temporal hands it to another.
func (tp *Topology) Upgrade(ctx context.Context, binary string, progress io.Writer) ([]Replaced, error) {
	if err := tp.installWorker(ctx, binary); err != nil {
		return nil, err
	}
	var out []Replaced
	for i := range tp.Workers {
		w := &tp.Workers[i]
		r := Replaced{Name: w.Name, Before: w.PID()}
		if err := w.Process.shutdown(workerStopGrace); err != nil {
			return out, fmt.Errorf("stop %s: %w", w.Name, err)
		}
		r.Stopped = time.Now()
		if err := tp.StartWorker(ctx, i); err != nil {
			return out, err
		}
		r.Ready, r.After = time.Now(), w.PID()
		fmt.Fprintf(progress, "topology: %s replaced (pid %d, then %d; %s without it)\n", w.Name, r.Before, r.After, r.Ready.Sub(r.Stopped).Round(time.Millisecond))
		out = append(out, r)
	}
	return out, nil
}

// WorkerEnv is the workers' configuration, FINALIZER_* variables as in
// docker-compose.yml; each worker adds its own metrics address.
func (tp *Topology) WorkerEnv() []string {
	return []string{
		"FINALIZER_TEMPORAL_ADDRESS=" + tp.Temporal.Frontend,
		"FINALIZER_TEMPORAL_NAMESPACE=" + tp.Temporal.Namespace,
		"FINALIZER_TASK_QUEUE=" + tp.TaskQueue,
		"FINALIZER_STORE=zookeeper",
		"FINALIZER_ZOOKEEPER_SERVERS=" + strings.Join(tp.ZooKeeperServers(), ","),
		"FINALIZER_ZOOKEEPER_ROOT=" + tp.ZooKeeperRoot,
		"FINALIZER_ZOOKEEPER_SESSION_TIMEOUT=10s",
		"FINALIZER_STATE_BUCKET=" + tp.BucketURL(),
		"FINALIZER_RETAIN=" + strconv.Itoa(tp.Retain),
		"FINALIZER_LOG_LEVEL=info",
		"FINALIZER_LOG_FORMAT=json",
		"FINALIZER_SHUTDOWN_GRACE=" + workerShutdownGrace.String(),
	}
}

func (tp *Topology) setupWorkers(n int) error {
	ports, err := freeport.Ports(n)
	if err != nil {
		return err
	}
	tp.Workers = nil
	for i := 0; i < n; i++ {
		name := "worker-" + strconv.Itoa(i+1)
		dir := filepath.Join(tp.Dir, "workers")
		metrics := fmt.Sprintf("127.0.0.1:%d", ports[i])
		tp.Workers = append(tp.Workers, Worker{
			Name: name, Metrics: metrics,
			Process: process{
				Name:    name,
				Args:    []string{filepath.Join(tp.Dir, "bin", "finalizer-worker"), "-metrics-address=" + metrics},
				Env:     tp.WorkerEnv(),
				Log:     filepath.Join(dir, name+".log"),
				PIDFile: filepath.Join(dir, name+".pid"),
				Marker:  "-metrics-address=" + metrics,
			},
		})
	}
	return nil
}

// StartWorker starts worker i (from 0) unless it runs and waits until it
// polls (its /healthz answers).
func (tp *Topology) StartWorker(ctx context.Context, i int) error {
	w := &tp.Workers[i]
	if err := w.Process.start(); err != nil {
		return err
	}
	exited := func() bool { return w.Process.pid() == 0 }
	if err := workerproc.WaitReady(ctx, w.Metrics, exited, 0); err != nil {
		return fmt.Errorf("%s (log %s): %w\n%s", w.Name, w.Process.Log, err, proc.Tail(w.Process.Log, 10))
	}
	return nil
}

// KillWorker kills worker i with SIGKILL; a worker that does not run is
// an error.
func (tp *Topology) KillWorker(i int) error { return tp.Workers[i].Process.kill() }

// PauseWorker stops worker i's process group (SIGSTOP) until ResumeWorker:
// a worker frozen mid-task, as a long GC pause or a throttled container
// leaves it.
func (tp *Topology) PauseWorker(i int) error { return tp.Workers[i].Process.freeze(syscall.SIGSTOP) }

// ResumeWorker lets a paused worker run again (SIGCONT).
func (tp *Topology) ResumeWorker(i int) error { return tp.Workers[i].Process.freeze(syscall.SIGCONT) }

// PID is the worker's process ID, 0 when it does not run.
func (w *Worker) PID() int { return w.Process.pid() }
