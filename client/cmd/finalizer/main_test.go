package main

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// asTool makes the test binary the tool itself, for a shell that runs it
// by name (the completion scripts).
const asTool = "FINALIZER_TEST_AS_TOOL"

// One dev server for the whole test binary; each test runs its own worker.
func TestMain(m *testing.M) {
	if os.Getenv(asTool) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	}
	harness.Main(m)
}

// outcome is one in-process run of the tool.
type outcome struct {
	code           int
	stdout, stderr string
}

// runTool runs the tool in-process with env as its whole environment.
func runTool(t *testing.T, env map[string]string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, func(k string) string { return env[k] }, &stdout, &stderr)
	o := outcome{code, stdout.String(), stderr.String()}
	t.Logf("finalizer %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, o.code, o.stdout, o.stderr)
	return o
}

// envFor points the tool at the test's server and worker through the
// environment, as a deployment would.
func envFor(t *testing.T, e *harness.Env) map[string]string {
	return map[string]string{envAddress: harness.HostPort(t), envTaskQueue: e.TaskQueue}
}
