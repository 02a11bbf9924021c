package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// The README's run command, end to end, against the real dev server it
// starts: every demo finalization ends Published or (the deposed leader's)
// Discarded.
func TestDevModeRuns(t *testing.T) {
	realserver.Require(t, "Temporal dev server")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s := settings{
		dir: t.TempDir(), jobs: 2, checkpoints: 4, interval: 10 * time.Millisecond,
		faultRate: 0.5, retain: 1, seed: 7, exit: true,
	}
	sum, err := runDemo(ctx, s)
	require.NoError(t, err)
	require.Equal(t, 7, sum.published, "2 jobs x 4 checkpoints, one of them by a deposed leader")
	require.Equal(t, 1, sum.discarded)
	require.Zero(t, sum.others)
	require.Positive(t, sum.injected)
	for job, kept := range sum.retained {
		require.Len(t, kept, 1, job)
	}
}

// The command line, without starting anything: help lists the flags, a
// value that does not parse or an unknown flag is refused with exit 2.
func TestCommandLine(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Zero(t, command(context.Background(), []string{"--help"}, &out, &errOut))
	for _, f := range []string{"--jobs", "--checkpoints", "--fault-rate", "--exit", "--ui-port"} {
		require.Contains(t, out.String(), f)
	}
	for _, args := range [][]string{{"-jobs", "three"}, {"--no-such-flag"}, {"stray"}} {
		errOut.Reset()
		require.Equal(t, 2, command(context.Background(), args, &out, &errOut), "%v", args)
		require.Contains(t, errOut.String(), "finalizer-dev: ", "%v", args)
	}
}

// `finalizer-dev temporal-cli`, the one installer behind
// scripts/temporal-cli.sh: its last line is a Temporal CLI that runs.
func TestTemporalCLIPrintsItsPath(t *testing.T) {
	realserver.Require(t, "Temporal CLI")
	var out, errOut bytes.Buffer
	require.Zero(t, command(t.Context(), []string{"temporal-cli"}, &out, &errOut), errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	path := lines[len(lines)-1]
	version, err := exec.Command(path, "--version").CombinedOutput()
	require.NoError(t, err, "%s --version: %s", path, version)
	require.Contains(t, string(version), "temporal version")
}
