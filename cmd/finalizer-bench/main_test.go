package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/tools/bench"
)

// TestMain lets the benchmark re-execute this test binary as its separate
// trigger process, as the command re-executes itself.
func TestMain(m *testing.M) {
	if bench.IsTrigger() {
		if err := bench.RunTrigger(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A tiny run of every path and mode and of the parked scenario, against
// the real servers the command starts. Timings are not asserted: only
// that every part ran and the report holds what it should.
func TestTinyRun(t *testing.T) {
	realserver.Require(t, "Temporal dev server and ZooKeeper")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{
		"-store", "zookeeper", "-rate", "10", "-duration", "500ms", "-warmup", "0",
		"-concurrency", "2", "-jobs", "2", "-scale-jobs", "10,12", "-parked", "5", "-worker-parked", "5,8", "-json",
		"-repeat", "1", "-footprint", "110",
	}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())

	var rep bench.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	require.Len(t, rep.Results, len(bench.Paths)*len(bench.Modes))
	for _, r := range rep.Results {
		assert.Positive(t, r.Published, "%s %s", r.Path, r.Load.Mode)
		assert.Zero(t, r.Errors, "%s %s: %s", r.Path, r.Load.Mode, r.FirstError)
		assert.Positive(t, r.PeakRSS)
	}
	require.Len(t, rep.Scaling, 2)
	for i, jobs := range []int{10, 12} {
		assert.Equal(t, jobs, rep.Scaling[i].Load.Jobs)
		assert.Positive(t, rep.Scaling[i].Published, "over %d jobs", jobs)
		assert.Zero(t, rep.Scaling[i].Errors, "over %d jobs: %s", jobs, rep.Scaling[i].FirstError)
	}
	require.Len(t, rep.Anatomy, 3, "floor, durable and naive taken apart")
	for _, a := range rep.Anatomy {
		assert.Positive(t, a.Events["WorkflowExecutionStarted"], a.Path)
		assert.Positive(t, a.Events["WorkflowExecutionCompleted"], a.Path)
		assert.GreaterOrEqual(t, a.VisibilityWrites, 2, a.Path)
		switch a.Path {
		case bench.Naive:
			assert.Positive(t, a.CoordinatorEvents["WorkflowExecutionSignaled"], "%s: its report to the coordinator", a.Path)
		case bench.Durable:
			assert.Empty(t, a.CoordinatorEvents, "durable: retention runs in the worker, no coordinator")
		}
	}
	require.Len(t, rep.Parked, 1)
	assert.Equal(t, 5, rep.Parked[0].Confirmed, "parked in Verifying before the measured run")
	assert.Equal(t, 5, rep.Parked[0].StillParked)
	assert.Positive(t, rep.Parked[0].With.Published)
	require.Len(t, rep.WorkerOnly, 1)
	w := rep.WorkerOnly[0]
	assert.Positive(t, w.IdleRSS)
	require.Len(t, w.Steps, 2)
	for i, parked := range []int{5, 8} {
		assert.Equal(t, parked, w.Steps[i].Parked)
		assert.Equal(t, parked, w.Steps[i].Confirmed, "the worker process parked them in Verifying")
		assert.Greater(t, w.Steps[i].RSS, int64(10<<20), "a Go worker's resident set, not the bench's")
	}
	require.Len(t, rep.Footprints, 1)
	assert.Len(t, rep.Footprints[0].Points, 2, "after 100 checkpoints and after the last")
	for _, p := range rep.Footprints[0].Points {
		assert.True(t, p.Settled, "retention settled before the footprint after %d checkpoints was read", p.Checkpoints)
	}
	for _, r := range rep.Results {
		if r.Path == bench.Durable || r.Path == bench.Floor {
			assert.NotEmpty(t, r.Steps, "%s %s: its local activities counted from the worker's metrics", r.Path, r.Load.Mode)
		}
		if r.Path == bench.Durable && r.Load.Mode == bench.Max {
			require.NotNil(t, r.RetentionSettle, "I5 after the burst measured on ZooKeeper")
		}
	}
	for _, a := range rep.Anatomy {
		assert.Positive(t, a.Actions, a.Path)
	}
	assert.Len(t, rep.Targets, 13)
	for _, tg := range rep.Targets {
		assert.NotEqual(t, bench.NotMeasured, tg.Status, tg.Name)
	}
	assert.NotEmpty(t, rep.Ratios)
}

func TestMarkdownReport(t *testing.T) {
	realserver.Require(t, "Temporal dev server and ZooKeeper")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{
		"-store", "embedded", "-phases", "durable,direct", "-modes", "rate", "-rate", "10",
		"-duration", "300ms", "-warmup", "0", "-jobs", "2", "-scale-jobs", "", "-repeat", "2",
	}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "Every cell measured 2 times")
	assert.Contains(t, out, "| embedded | durable | rate |")
	assert.Contains(t, out, "| embedded | direct | rate |")
	assert.Contains(t, out, "durable p50 / direct p50 (rate)")
	assert.Contains(t, out, "| embedded | durable throughput ≥ 3x naive (max) | - | not measured |")
}

func TestFlagsValidatedBeforeAnythingStarts(t *testing.T) {
	cases := map[string][]string{
		"--store":           {"-store", "etcd"},
		"--phases":          {"-phases", "durable,durable"},
		"--modes":           {"-modes", ""},
		"--rate":            {"-rate", "0"},
		"--duration":        {"-duration", "10ms"},
		"--warmup":          {"-warmup", "-1s"},
		"--concurrency":     {"-concurrency", "0"},
		"--jobs":            {"-jobs", "0"},
		"--parked":          {"-parked", "-1"},
		"--parked-settle":   {"-parked-settle", "-1s"},
		"--retain":          {"-retain", "-1"},
		"--temporal-config": {"-temporal-config", "nokey"},
		"--temporal":        {"-temporal", "sqlite"},
		"--scale-jobs":      {"-scale-jobs", "10,0"},
		"--worker-parked":   {"-worker-parked", "1000,10"},
		"--timeout":         {"-timeout", "10ms"},
		"--repeat":          {"-repeat", "0"},
		"--footprint":       {"-footprint", "100"},
	}
	for flagName, args := range cases {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		assert.Equal(t, 2, code, flagName)
		assert.True(t, strings.HasPrefix(stderr.String(), "finalizer-bench: "+flagName+" "), "%s: %s", flagName, stderr.String())
		assert.Empty(t, stdout.String())
	}
}

// The Kubernetes store against the real kube-apiserver the run starts,
// every cell repeated: the report keeps each repetition under its median.
func TestKubernetesRun(t *testing.T) {
	realserver.Require(t, "Temporal dev server, kube-apiserver and etcd")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{
		"-store", "kubernetes", "-phases", "floor,durable,direct", "-modes", "rate", "-rate", "10",
		"-duration", "300ms", "-warmup", "0", "-jobs", "2", "-scale-jobs", "", "-repeat", "2", "-footprint", "0", "-json",
	}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())

	var rep bench.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	require.Len(t, rep.Results, 3)
	for _, r := range rep.Results {
		assert.Equal(t, "kubernetes", string(r.Store))
		assert.Len(t, r.Runs, 2, r.Path)
		assert.Positive(t, r.Published, r.Path)
		assert.Zero(t, r.Errors, "%s: %s", r.Path, r.FirstError)
	}
	require.Len(t, rep.Anatomy, 2, "floor and durable taken apart")
}

// The PostgreSQL server runs the production topology's settings: extra
// dynamic config is the dev server's only.
func TestTemporalConfigOnlyOnTheDevServer(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-temporal", "postgres", "-temporal-config", "a=b"}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "--temporal-config [a=b]: applies to --temporal dev only")
}

// The production-shaped rows: the durable and the separate-process paths
// on Temporal server over PostgreSQL (tools/topology's server, started
// by the run), with PostgreSQL's CPU measured apart from the server's.
// Twenty jobs at 10/s: one checkpoint per job every 2 s, so that a loaded
// machine does not let a job's later checkpoint overtake an earlier one
// (which ends the earlier Discarded, as the protocol wants).
func TestPostgresRun(t *testing.T) {
	realserver.Require(t, "temporal-server and PostgreSQL")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	profiles := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{
		"-temporal", "postgres", "-store", "embedded", "-phases", "floor,durable,remote", "-modes", "rate",
		"-rate", "10", "-duration", "2s", "-warmup", "0", "-jobs", "20", "-scale-jobs", "", "-json", "-repeat", "1",
		"-profile", profiles,
	}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())

	var rep bench.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	assert.Contains(t, rep.Settings.Temporal, "PostgreSQL")
	require.Len(t, rep.Results, 3)
	for _, r := range rep.Results {
		assert.Positive(t, r.Published, r.Path)
		assert.Zero(t, r.Errors, "%s: %s", r.Path, r.FirstError)
		assert.Positive(t, r.ServerCores, "%s: the Temporal server's CPU", r.Path)
		assert.Positive(t, r.DatabaseCores, "%s: PostgreSQL's CPU", r.Path)
		assert.Positive(t, r.ServerCPUPerFinalization, r.Path)
	}
	// The in-process paths' measured runs, profiled in the worker's
	// process and, through its pprof endpoint, in the Temporal server.
	for _, path := range []string{"floor", "durable"} {
		for _, side := range []string{"worker", "server"} {
			name := fmt.Sprintf("embedded-%s-rate.%s.pprof", path, side)
			assert.Positive(t, profileSamples(t, filepath.Join(profiles, name)), name)
		}
	}
}

// profileSamples counts a CPU profile's samples as go tool pprof reads it.
func profileSamples(t *testing.T, path string) int {
	t.Helper()
	out, err := exec.Command("go", "tool", "pprof", "-raw", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, samples, ok := strings.Cut(string(out), "\nSamples:\n")
	require.True(t, ok, "%s", out)
	samples, _, _ = strings.Cut(samples, "\nLocations")
	lines := strings.Split(strings.TrimSpace(samples), "\n")
	return len(lines) - 1 // the first is the header
}

func TestFlagsFallBackToEnvironment(t *testing.T) {
	t.Setenv("FINALIZER_BENCH_RATE", "7.5")
	t.Setenv("FINALIZER_BENCH_STORE", "embedded")
	cfg, _, err := parse([]string{"-concurrency", "3"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 7.5, cfg.Rate)
	assert.Equal(t, 3, cfg.Concurrency)
	require.Len(t, cfg.Stores, 1)

	t.Setenv("FINALIZER_BENCH_RATE", "fast")
	_, _, err = parse(nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "FINALIZER_BENCH_RATE")

	// The command line wins over the environment.
	t.Setenv("FINALIZER_BENCH_RATE", "7.5")
	cfg, _, err = parse([]string{"-rate", "3"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 3.0, cfg.Rate)

	// An empty variable is unset, as the worker's and the CLI's are.
	t.Setenv("FINALIZER_BENCH_RATE", "")
	t.Setenv("FINALIZER_BENCH_STORE", "")
	cfg, _, err = parse(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, bench.DefaultConfig().Rate, cfg.Rate)
	assert.Len(t, cfg.Stores, len(bench.DefaultConfig().Stores))
}

// Every value that does not parse is reported at once, from the command
// line and the environment, each with its flag, its variable and the rule.
func TestFlagValuesReportedTogether(t *testing.T) {
	t.Setenv("FINALIZER_BENCH_RATE", "fast")
	_, _, err := parse([]string{"--concurrency", "many"}, &bytes.Buffer{})
	require.Error(t, err)
	assert.ErrorContains(t, err, `--rate / FINALIZER_BENCH_RATE: must be a number (got "fast")`)
	assert.ErrorContains(t, err, `--concurrency / FINALIZER_BENCH_CONCURRENCY: must be a whole number (got "many")`)
}
