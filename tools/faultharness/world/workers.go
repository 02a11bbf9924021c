package world

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

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
	// One log across the slot's lives; the process dies with the harness,
	// so a killed test leaves no worker behind.
	p, _, err := workerproc.Launch(ctx, w.bin, workerproc.Options{
		Args:   w.args,
		Env:    w.env,
		Name:   fmt.Sprintf("worker %d", w.index),
		Log:    w.logPath,
		Header: fmt.Sprintf("=== faultharness: worker %d start %d at %s\n", w.index, w.starts+1, time.Now().Format(time.RFC3339Nano)),
	})
	if err != nil {
		return fmt.Errorf("worker %d: %w", w.index, err)
	}
	w.mu.Lock()
	w.proc = p
	w.starts++
	w.mu.Unlock()
	return nil
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
