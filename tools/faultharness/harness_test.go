package faultharness_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness"
)

// workerBinary is built once for the package's runs.
var workerBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // the harness runs skip in runHarness
	}
	dir, err := os.MkdirTemp("", "faultharness-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if workerBinary, err = workerproc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func runHarness(t *testing.T, cfg faultharness.Config) *faultharness.Report {
	t.Helper()
	realserver.Require(t, "Temporal dev server, ZooKeeper ensemble and kube-apiserver")
	cfg.WorkerBinary = workerBinary
	cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.Progress = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rep, err := faultharness.Run(ctx, cfg)
	require.NoError(t, err)
	var b strings.Builder
	rep.WriteText(&b)
	t.Logf("report:\n%s", b.String())
	// Harness errors (a node slow to restart on a loaded machine) are no
	// verdict; every check they touch is retried until the run's deadline.
	for _, e := range rep.HarnessErrors {
		t.Logf("harness error: %s", e)
	}
	return rep
}

// The protocol under every fault kind: no invariant breaks, whatever the
// faults hit. Assertions are on invariants and counts, never on timings.
func TestRealModeHoldsEveryInvariant(t *testing.T) {
	kinds := faultharness.KindsFor(faultharness.StoreZooKeeper)
	rep := runHarness(t, faultharness.Config{Seed: 7, Finalizations: 48, Faults: len(kinds) + 2, Jobs: 3})

	assert.Empty(t, rep.Violations, "the protocol breaks no invariant")
	assert.Len(t, rep.Faults, len(kinds)+2, "every scheduled fault was injected")
	injected, hits := rep.FaultsBy()
	for _, k := range kinds {
		assert.Positive(t, injected[k], "fault kind %s injected", k)
	}
	assert.Positive(t, hits[faultharness.BlobWriteFailure]+hits[faultharness.BlobWriteReplyLost], "blob writes failed")
	assert.Equal(t, 48+len(rep.Targeted)+rep.Closing, rep.TotalFinalizations())
	for _, o := range []string{"NotEnded", "WorkflowFailed", string(contract.Failed)} {
		assert.Zero(t, rep.Outcomes[o], "finalizations that ended %s", o)
	}

	require.Len(t, rep.Targeted, 2)
	assert.Positive(t, rep.Targeted[0].Hits, "the dropped reply hit the publish")
	assert.Equal(t, string(contract.Published), rep.Targeted[0].Outcome, "a retry finds its own applied write")
	assert.Positive(t, rep.Targeted[1].Hits, "the publish requests were dropped")
	assert.Equal(t, string(contract.Discarded), rep.Targeted[1].Outcome, "fenced Absent with no attempt left")

	assertLifecycle(t, rep)
	assert.Positive(t, rep.Paths.Fenced, "the fenced path was taken (at least by the targeted scenario)")
	assert.Positive(t, rep.Replays.Performed)
	assert.Equal(t, rep.Replays.Performed, rep.Replays.Rejected, "every stale replay is Rejected")
	assert.Zero(t, rep.Replays.Changed)
	for _, rc := range rep.Recovery {
		assert.Empty(t, rc.Error, "recovery of %s", rc.Job)
	}
}

// Both stores in one run, jobs split between them, each store with its
// own workers: the Kubernetes store under its own faults (writes applied
// in etcd whose answer is lost, a real 5xx, or late, a real client
// timeout; writes lost before etcd; resets and latency in front of the API
// server), the ZooKeeper store under its own, and the store-independent
// ones: every fault kind. Plus, on each store, a worker killed inside the
// fast-path workflow task whose publish landed, which subsumption removes
// before the task's retry: still Published; and one killed the moment a
// publish landed, before its background retention, with no newer
// checkpoint after it: retention settles all the same.
func TestRealModeBothStores(t *testing.T) {
	kinds := faultharness.KindsFor(faultharness.StoreBoth)
	assert.ElementsMatch(t, faultharness.AllKinds, kinds)
	rep := runHarness(t, faultharness.Config{Seed: 11, Store: faultharness.StoreBoth,
		Finalizations: 30, Faults: len(kinds), Jobs: 2, Workers: 1, CrashAfterPublish: true})

	assert.Empty(t, rep.Violations, "the protocol breaks no invariant")
	injected, _ := rep.FaultsBy()
	for _, k := range kinds {
		assert.Positive(t, injected[k], "fault kind %s injected", k)
	}
	assert.Empty(t, rep.Missing)
	require.Len(t, rep.Targeted, 8, "four scenarios on each store")
	for i := 0; i < 8; i += 4 {
		assert.Equal(t, string(contract.Published), rep.Targeted[i].Outcome, "a retry finds its own applied write")
		assert.Equal(t, string(contract.Discarded), rep.Targeted[i+1].Outcome, "fenced Absent with no attempt left")
		for _, sc := range rep.Targeted[i+2 : i+4] {
			assert.Positive(t, sc.Hits, "%s: the publish landed", sc.Name)
			assert.Equal(t, string(contract.Published), sc.Outcome, "%s: the landed publish stands", sc.Name)
		}
		assert.Contains(t, rep.Targeted[i+3].Detail, "within retention", "%s: retention settles without a newer checkpoint", rep.Targeted[i+3].Name)
	}
	assert.Equal(t, rep.Replays.Performed, rep.Replays.Rejected, "every stale replay is Rejected")
	assertLifecycle(t, rep)
	for _, rc := range rep.Recovery {
		assert.Empty(t, rc.Error, "recovery of %s", rc.Job)
	}
}

// assertLifecycle: the run exercised the lifecycle around finalization (a
// job retired and its ID reused above its old epochs, each adversarial
// kind, the reconciler's passes, the continuous check) and none of it
// broke anything (the caller asserts no violation at all).
func assertLifecycle(t *testing.T, rep *faultharness.Report) {
	t.Helper()
	l := rep.Lifecycle
	assert.Positive(t, l.Retirements, "a job retired")
	assert.Positive(t, l.ReusedIDs, "a retired job forgotten and its ID claimed again")
	assert.Equal(t, l.ReusedIDs, l.StaleClaimsRejected, "a claim of a reused ID at or below its old epochs is Rejected")
	assert.Zero(t, l.Stuck, "no retired job left unforgotten")
	for _, kind := range faultharness.AdversarialKinds {
		outcomes := l.Adversarial[kind]
		assert.NotEmpty(t, outcomes, "adversarial %s sent", kind)
		if kind == faultharness.ForeignDirectory || kind == faultharness.NestedDirectory {
			assert.Positive(t, outcomes[string(contract.Failed)], "adversarial %s ended Failed: %v", kind, outcomes)
			continue
		}
		// Discarded (stale epoch), or Failed when retention had discarded
		// the live checkpoint it names before it persisted (the run checks
		// that case as a "requests" violation otherwise). A short run sends
		// one or two of a kind, so either may be all there is.
		ended := outcomes[string(contract.Discarded)] + outcomes[string(contract.Failed)]
		assert.Positive(t, ended, "adversarial %s ended Discarded or Failed: %v", kind, outcomes)
	}
	assert.GreaterOrEqual(t, l.Reconciler.Passes, 3, "the reconciler ran all along")
	assert.Zero(t, l.Reconciler.Quarantined, "no dangling reference to quarantine")
	assert.Positive(t, l.Continuous.Rounds, "the continuous check ran")
	assert.Positive(t, l.Continuous.References, "the continuous check sampled live references")
	assert.Zero(t, l.Continuous.Violations)
	assert.Positive(t, l.RestorePoints["resolved"], "claims answered a restore point that resolves")
	assert.Zero(t, l.RestorePoints["dangling"])
	assert.Positive(t, l.RestoreJudged, "restore points judged against Published finalizations of older epochs")
}

// The same harness with the safety off must see what Flink users met: the
// targeted dropped reply leaves a published reference to discarded state
// (I1, and the recovery fails), and the replay after a fence-less discard
// lands (I6).
func TestNaiveModeShowsViolations(t *testing.T) {
	rep := runHarness(t, faultharness.Config{Seed: 7, Finalizations: 12, Faults: 4, Jobs: 2, Naive: true})

	by := rep.ViolationsBy()
	assert.Positive(t, by["I1"], "a published reference to discarded state")
	assert.Positive(t, by["I2"], "state discarded while its reference is present")
	assert.Positive(t, by["I6"], "a stale attempt landed after the discard")
	assert.Positive(t, by["recovery"], "recovery cannot retrieve the checkpoint")

	require.Len(t, rep.Targeted, 2)
	assert.Equal(t, string(contract.Discarded), rep.Targeted[0].Outcome, "the naive workflow discards on the dropped reply")
	dangling := false
	for _, v := range rep.Violations {
		if v.Invariant == "I1" && strings.Contains(v.Subject, "targeted-1 checkpoint 1") {
			dangling = true
		}
	}
	assert.True(t, dangling, "the targeted dropped reply's reference dangles: %v", rep.Violations)
}

// testWriter sends the harness's log to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
