package world

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/proc"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// workerReadyTimeout bounds a worker's start: connecting to Temporal and
// opening a ZooKeeper session (which waits out an election or a partition).
const workerReadyTimeout = 2 * time.Minute

// buildWorker builds the real worker binary from this module.
func buildWorker(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "finalizer-worker")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/checkpoint-finalizer/finalizer/worker/cmd/finalizer-worker")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the worker binary: %w\n%s", err, out)
	}
	return bin, nil
}

// workerProc is one slot of the worker pool: a real finalizer-worker
// process, killed with SIGKILL and replaced by a fresh one on demand.
type workerProc struct {
	index   int
	bin     string
	args    []string
	env     []string // added to the harness's environment
	logPath string

	mu     sync.Mutex
	proc   *proc.Process // nil once killed
	starts int
}

// start runs a new process in the empty slot and waits until it polls its
// task queue.
func (w *workerProc) start(ctx context.Context) error {
	if w.running() {
		return fmt.Errorf("worker %d: start: the slot's process still runs", w.index)
	}
	metrics, err := freeport.Addr()
	if err != nil {
		return fmt.Errorf("worker %d: %w", w.index, err)
	}
	cmd := exec.Command(w.bin, append(w.args, "-metrics-address="+metrics)...)
	cmd.Env = append(os.Environ(), w.env...)
	// One log across the slot's lives; the process dies with the harness,
	// so a killed test leaves no worker behind.
	p, err := proc.Start(cmd, proc.Options{
		Name:   fmt.Sprintf("worker %d", w.index),
		Log:    w.logPath,
		Header: fmt.Sprintf("=== faultharness: worker %d start %d at %s\n", w.index, w.starts+1, time.Now().Format(time.RFC3339Nano)),
	})
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.proc = p
	w.starts++
	w.mu.Unlock()

	// Ready once it polls: /healthz answers 200 only then.
	deadline := time.Now().Add(workerReadyTimeout)
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		err := worker.Healthcheck(hctx, metrics)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-p.Done():
			return fmt.Errorf("worker %d exited before it polled (log %s)", w.index, w.logPath)
		case <-ctx.Done():
			return fmt.Errorf("worker %d: %w", w.index, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("worker %d not ready after %s (log %s): %w", w.index, workerReadyTimeout, w.logPath, err)
		}
	}
}

// kill sends SIGKILL and waits for the exit: a crash mid-activity.
func (w *workerProc) kill() error {
	w.mu.Lock()
	p := w.proc
	w.proc = nil
	w.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Kill()
}

// running reports whether the slot's process is alive.
func (w *workerProc) running() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proc != nil && w.proc.Running()
}
