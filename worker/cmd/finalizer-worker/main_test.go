package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// outcome is one in-process run of the worker's command.
type outcome struct {
	code           int
	stdout, stderr string
}

// runWorker runs the command in-process with env as its whole environment.
func runWorker(t *testing.T, env map[string]string, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, func(k string) string { return env[k] }, &stdout, &stderr)
	o := outcome{code, stdout.String(), stderr.String()}
	t.Logf("finalizer-worker %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, o.code, o.stdout, o.stderr)
	return o
}

func TestExitCodes(t *testing.T) {
	assert.Equal(t, 0, runWorker(t, nil, "-h").code, "help")

	noServers := map[string]string{"FINALIZER_STORE": "zookeeper"}
	assert.Equal(t, 2, runWorker(t, noServers).code, "bad configuration")
	assert.Equal(t, 2, runWorker(t, noServers, "-retain=many").code, "unparseable flag")

	// Nothing listens on a port just released: the healthcheck fails.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	assert.Equal(t, 1, runWorker(t, nil, "healthcheck", "-metrics-address="+addr).code)
}

// A value that does not parse is reported with its flag, its variable and
// the rule, together with every other problem of the same start.
func TestBadValuesReportedWithEveryOtherProblem(t *testing.T) {
	o := runWorker(t, map[string]string{
		"FINALIZER_RETAIN":         "abc",
		"FINALIZER_SHUTDOWN_GRACE": "1x",
		"FINALIZER_STORE":          "zookeeper", // without servers
	}, "-log-format=xml")
	assert.Equal(t, 2, o.code)
	for _, want := range []string{
		`--retain / FINALIZER_RETAIN: must be a whole number (got "abc")`,
		`--shutdown-grace / FINALIZER_SHUTDOWN_GRACE: must be a duration such as 90s, 15m or 1h (got "1x")`,
		"--zookeeper-servers",
		"--log-format",
	} {
		assert.Contains(t, o.stderr, want)
	}
	assert.Empty(t, o.stdout)
}

// help is -h by another name: the same usage on stdout, exit 0.
func TestHelpCommand(t *testing.T) {
	var usage bytes.Buffer
	worker.Usage(&usage)
	for _, args := range [][]string{{"-h"}, {"help"}} {
		o := runWorker(t, nil, args...)
		assert.Equal(t, 0, o.code, args)
		assert.Equal(t, usage.String(), o.stdout, args)
		assert.Empty(t, o.stderr, args)
	}
}

// A namespace that does not exist, on a real server: exit 2, as for any
// configuration that repeating the start cannot fix.
func TestExitCodeMissingNamespace(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{SearchAttributes: contract.SearchAttributes()})
	dir := t.TempDir()
	assert.Equal(t, 2, run([]string{
		"-temporal-address=" + srv.HostPort, "-temporal-namespace=finalizer-prod",
		"-embedded-path=" + filepath.Join(dir, "refs.db"),
		"-state-bucket=file://" + filepath.Join(dir, "bucket") + "?create_dir=true",
		"-metrics-address=127.0.0.1:0",
	}, os.Getenv, os.Stdout, os.Stderr))
}

// The commands are cobra's: completion for every shell, and a mistyped
// command refused with the one it resembles.
func TestCompletionAndSuggestions(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		o := runWorker(t, nil, "completion", shell)
		assert.Equal(t, 0, o.code, shell)
		assert.Contains(t, o.stdout, "__complete", shell)
	}
	o := runWorker(t, nil, "healtcheck")
	assert.Equal(t, 2, o.code)
	assert.Contains(t, o.stderr, "Did you mean this?\n\thealthcheck\n")
}

// Flags are pflag's, --name; package flag's -name still reads the same,
// and an unknown one is named as given, not as a run of shorthands.
func TestFlagSpellings(t *testing.T) {
	for _, args := range [][]string{{"--retain=many"}, {"-retain=many"}, {"-retain", "many"}} {
		o := runWorker(t, nil, args...)
		assert.Equal(t, 2, o.code, args)
		assert.Contains(t, o.stderr, `--retain / FINALIZER_RETAIN: must be a whole number (got "many")`, args)
	}
	o := runWorker(t, nil, "-zookeeper-servrs=zk:2181")
	assert.Equal(t, 2, o.code)
	assert.Contains(t, o.stderr, "unknown flag: --zookeeper-servrs")
}
