package cluster_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// jarsBuilt are the running test's jars, built once by each test of a
// Flink line (they run one after the other).
var jarsBuilt jars

// only narrows the scenarios, for work on one; the test command runs
// them all.
var only = flag.String("cluster.scenarios", "", "run only the scenarios whose names match this regular expression")

// TestRealCluster runs every scenario on Flink 1.20 in the stock world,
// then in the plugin's, each world on a cluster of its own (the worlds
// differ in their HA type and lib/), and prints the side-by-side table,
// also kept as table.md in the test's artifacts folder. Timings are
// reported, never asserted.
func TestRealCluster(t *testing.T) {
	onRealCluster(t, flink1)
}

// TestRealClusterFlink2 runs the core scenarios the same way on Flink 2.x:
// the plugin's flink2 jar, Flink 2's lib/ and the jobs built for it.
func TestRealClusterFlink2(t *testing.T) {
	onRealCluster(t, flink2)
}

func onRealCluster(t *testing.T, line flinkLine) {
	realserver.Require(t, "ZooKeeper, the Temporal dev server and a standalone Flink cluster")
	chosen := selected(t, line)
	mvn, err := flinkcluster.Maven()
	require.NoError(t, err)
	flinkLib := lib(t, mvn, line.version)
	jarsBuilt = build(t, mvn, line)
	javaOpts, err := flinkcluster.JavaOpts(filepath.Join("..", "pom.xml"))
	require.NoError(t, err)

	bucket := t.TempDir()
	worlds := []*world{stockWorld(t, bucket), pluginWorld(t, bucket, jarsBuilt.plugin)}
	rows := map[string][]row{} // by world, in the order of scenarios
	for _, w := range worlds {
		timed(t, w.name+" world: cluster started", func() { w.start(t, flinkLib, javaOpts) })
		for _, s := range chosen {
			r := row{world: w.name, scenario: s.name, restored: "-", left: -1, output: "-"}
			timed(t, w.name+" world: "+s.name, func() {
				j := w.newJob(t.TempDir(), s.job...)
				j.claimMode = s.claimMode
				if err := s.run(t.Context(), j, &r); err != nil {
					t.Logf("%s world, %s: %v", w.name, s.name, err)
					r.manual("needs a person: " + shorten(err.Error()))
				}
			})
			revive(t, w, &r)
			rows[w.name] = append(rows[w.name], r)
		}
		require.NoError(t, w.runsBundlingJob(t.Context(), t.TempDir()),
			"%s world: a job bundling its own Temporal SDK, gRPC, protobuf, Guava and Jackson", w.name)
		if w.proof != nil {
			require.NoError(t, w.proof(t.Context()), "%s world", w.name)
		}
		// The next world gets the machine to itself.
		require.NoError(t, w.c.Stop())
	}

	var all []row
	for i := range chosen {
		for _, w := range worlds {
			all = append(all, rows[w.name][i])
		}
	}
	report := table(all)
	t.Logf("side by side on a real cluster (Flink %s):\n%s", line.version, report)
	artifacts := filepath.Join(cachedir.Artifacts(), t.Name())
	require.NoError(t, os.MkdirAll(artifacts, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(artifacts, "table.md"), []byte(report), 0o644))
	for i, s := range chosen {
		if err := s.check(rows["plugin"][i], rows["stock"][i]); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
}

// selected are the scenarios of the line (the core ones where it runs
// only those) that -cluster.scenarios matches, all by default.
func selected(t *testing.T, line flinkLine) []scenario {
	t.Helper()
	match, err := regexp.Compile(*only)
	require.NoError(t, err, "-cluster.scenarios")
	var chosen []scenario
	for _, s := range scenarios {
		if match.MatchString(s.name) && (s.core || !line.coreOnly) {
			chosen = append(chosen, s)
		}
	}
	require.NotEmpty(t, chosen, "-cluster.scenarios %q matches no scenario", *only)
	return chosen
}

// revive starts again each JobManager that exited by itself during a
// scenario, so the next one starts from two, and records it as the
// manual step it is.
func revive(t *testing.T, w *world, r *row) {
	t.Helper()
	for _, jm := range w.c.JobManagers {
		if jm.Running() {
			continue
		}
		r.manual("restart " + jm.Name() + ", which exited")
		require.NoError(t, jm.Start(t.Context()), "restart %s (log %s)", jm.Name(), jm.Log())
	}
}

// shorten keeps a table cell readable: the first line, at most 100 bytes.
func shorten(s string) string {
	for i, c := range s {
		if c == '\n' || i >= 100 {
			return s[:i] + "…"
		}
	}
	return s
}
