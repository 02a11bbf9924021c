package topology

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/serverbin"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Worker is one finalizer-worker process.
type Worker struct {
	Name    string  `json:"name"`
	Metrics string  `json:"metrics"`
	Process process `json:"process"`
}

// BuildBinaries builds finalizer-worker and the finalizer CLI from this
// module into dir.
func BuildBinaries(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := filepath.Join(serverbin.ScriptsDir(), "..")
	for _, pkg := range []string{"./worker/cmd/finalizer-worker", "./client/cmd/finalizer"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, filepath.Base(pkg)), pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
		}
	}
	return nil
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
		"FINALIZER_SHUTDOWN_GRACE=20s",
	}
}

func (tp *Topology) setupWorkers(n int) error {
	ports, err := freePorts(n)
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
	deadline := time.Now().Add(2 * time.Minute)
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		err := worker.Healthcheck(hctx, w.Metrics)
		cancel()
		if err == nil {
			return nil
		}
		if w.Process.pid() == 0 {
			return fmt.Errorf("%s exited (log %s): %v\n%s", w.Name, w.Process.Log, err, tailFile(w.Process.Log, 10))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s not healthy (log %s): %v", w.Name, w.Process.Log, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// KillWorker kills worker i with SIGKILL; a worker that does not run is
// an error.
func (tp *Topology) KillWorker(i int) error { return tp.Workers[i].Process.kill() }

// PID is the worker's process ID, 0 when it does not run.
func (w *Worker) PID() int { return w.Process.pid() }
