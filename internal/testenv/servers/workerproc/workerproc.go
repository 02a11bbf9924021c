// Package workerproc is the one way a harness builds and runs the real
// finalizer-worker binary: the end-to-end and CLI tests, the Flink and
// example job managers, the fault harness, the topology and the bench all
// build it here and start it here (a topology keeps its own detached
// processes and waits for them here). A worker is ready once it polls its
// task queue, which its /healthz answers.
package workerproc

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// Package is the worker binary's package.
const Package = "github.com/checkpoint-finalizer/finalizer/worker/cmd/finalizer-worker"

// DefaultReadyTimeout bounds a worker's start: connecting to Temporal and
// opening the store (a ZooKeeper session waits out an election or a
// partition).
const DefaultReadyTimeout = 2 * time.Minute

// BuildTo builds the worker binary at out, in the module checkout at dir
// ("" for the current directory's).
func BuildTo(ctx context.Context, out, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, Package)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build finalizer-worker: %w\n%s", err, b)
	}
	return nil
}

// Build builds the worker binary into dir and returns its path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "finalizer-worker")
	return bin, BuildTo(context.Background(), bin, "")
}

// Options say how Launch runs a worker.
type Options struct {
	// Args are the worker's flags; Launch adds -metrics-address.
	Args []string
	// Env is added to the harness's environment (FINALIZER_* variables).
	Env []string
	// Name, Log and Header are the process's (internal/testenv/servers/proc).
	Name, Log, Header string
	// ReadyTimeout bounds the wait until it polls; 0: DefaultReadyTimeout.
	ReadyTimeout time.Duration
}

// Launch starts bin with a metrics address of its own and returns the
// process and that address once the worker polls its task queue. A worker
// that exits or is not ready in time is stopped and reported with its log.
func Launch(ctx context.Context, bin string, o Options) (*proc.Process, string, error) {
	metrics, err := freeport.Addr()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(bin, append(append([]string{}, o.Args...), "-metrics-address="+metrics)...)
	cmd.Env = append(os.Environ(), o.Env...)
	p, err := proc.Start(cmd, proc.Options{Name: o.Name, Log: o.Log, Header: o.Header})
	if err != nil {
		return nil, "", err
	}
	exited := func() bool {
		select {
		case <-p.Done():
			return true
		default:
			return false
		}
	}
	if err := WaitReady(ctx, metrics, exited, o.ReadyTimeout); err != nil {
		_ = p.Stop(10 * time.Second)
		return nil, "", fmt.Errorf("%w (log %s)", err, o.Log)
	}
	return p, metrics, nil
}

// WaitReady waits until the worker serving metrics answers /healthz with
// 200 (it polls), its process is gone (exited reports it), ctx ends or
// timeout (0: DefaultReadyTimeout) passes.
func WaitReady(ctx context.Context, metrics string, exited func() bool, timeout time.Duration) error {
	if timeout == 0 {
		timeout = DefaultReadyTimeout
	}
	deadline := time.Now().Add(timeout)
	for {
		if healthy(ctx, metrics) {
			return nil
		}
		if exited() {
			return fmt.Errorf("worker at %s exited before it polled", metrics)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("worker at %s not ready after %s", metrics, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("worker at %s: %w", metrics, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Start runs bin with args (and a metrics address of its own) for the
// test's lifetime and returns that metrics address once the worker polls
// its task queue. The process is stopped with SIGTERM (SIGKILL after
// 10 s) when the test ends; its log is printed when the test failed.
func Start(t testing.TB, bin string, args ...string) string {
	t.Helper()
	_, metrics := StartProcess(t, bin, args...)
	return metrics
}

// StartProcess is Start that also returns the process, for a test that
// pauses the worker (SIGSTOP) to take it away without a shutdown.
func StartProcess(t testing.TB, bin string, args ...string) (*proc.Process, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "worker.log")
	p, metrics, err := Launch(context.Background(), bin, Options{Args: args, Log: logPath, ReadyTimeout: time.Minute})
	if err != nil {
		b, _ := os.ReadFile(logPath)
		t.Logf("worker log:\n%s", b)
	}
	require.NoError(t, err, "worker ready")
	t.Cleanup(func() {
		_ = p.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("worker log:\n%s", b)
		}
	})
	return p, metrics
}

// healthy asks the worker's /healthz as any probe would (this package sits
// below the worker and does not link it).
func healthy(ctx context.Context, metrics string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+metrics+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// FreeAddr is a loopback address nothing listens on at the moment.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := freeport.Addr()
	require.NoError(t, err)
	return addr
}
