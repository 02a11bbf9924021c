// Package workerproc runs the real finalizer-worker binary for test
// harnesses that drive the finalizer from outside Go (shell and TypeScript
// job managers, the Flink plugin): build it once, start one process per
// test, wait until it polls, stop it with the test.
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

	"github.com/checkpoint-finalizer/finalizer/internal/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/proc"
)

// Build compiles finalizer-worker into dir and returns its path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "finalizer-worker")
	build := exec.Command("go", "build", "-o", bin, "github.com/checkpoint-finalizer/finalizer/worker/cmd/finalizer-worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build finalizer-worker: %w", err)
	}
	return bin, nil
}

// Start runs bin with args (and a metrics address of its own) for the
// test's lifetime and returns that metrics address once the worker polls
// its task queue. The
// process (internal/proc) is stopped with SIGTERM (SIGKILL after 10 s)
// when the test ends; its log is printed when the test failed.
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
	metrics := FreeAddr(t)
	p, err := proc.Start(exec.Command(bin, append(args, "-metrics-address="+metrics)...), proc.Options{Log: logPath})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = p.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("worker log:\n%s", b)
		}
	})
	// Ready once it polls: /healthz answers 200 only then.
	require.Eventually(t, func() bool { return healthy(metrics) }, time.Minute, 100*time.Millisecond, "worker ready")
	return p, metrics
}

// healthy asks the worker's /healthz as any probe would (this package sits
// below the worker and does not link it).
func healthy(metrics string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
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
