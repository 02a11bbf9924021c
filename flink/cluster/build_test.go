package cluster_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/pluginjar"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
)

// flinkLine is a Flink release line the cluster runs: its version (the
// plugin's, flink/pom.xml's), flink/pom.xml's profile for it and the
// folder it builds the plugin's jar in, the jobs' source adapter
// (src/<adapter> of flink/cluster/job), and whether it runs only the core
// scenarios.
type flinkLine struct {
	version, profile, dir, adapter string
	coreOnly                       bool
}

var (
	flink1 = flinkLine{version: "1.20.5", dir: "target", adapter: "flink1"}
	// Flink 2.x runs the core scenarios: each takes a minute or two of
	// the test command's longest package.
	flink2 = flinkLine{version: "2.3.0", profile: "flink2", dir: "target-flink2", adapter: "flink2", coreOnly: true}
)

// jars are what the test builds before any cluster starts.
type jars struct {
	// plugin is the plugin's shaded jar, for the plugin world's lib/.
	plugin string
	// job is the job every scenario submits (flink/cluster/job).
	job string
	// bundling is the job that bundles its own Temporal SDK and the rest
	// (flink/cluster/bundling).
	bundling string
}

// build builds the plugin's jar and the job's, outside the repository:
// the plugin from a copy of flink/'s pom and sources, as flink/'s own
// tests may run `mvn clean` in flink/target meanwhile.
func build(t *testing.T, mvn []string, line flinkLine) jars {
	t.Helper()
	plugin := t.TempDir()
	for _, p := range []string{"pom.xml", "src"} {
		cp := exec.Command("cp", "-r", filepath.Join("..", p), plugin)
		out, err := cp.CombinedOutput()
		require.NoError(t, err, "copy flink/%s: %s", p, out)
	}
	timed(t, "mvn package of the plugin", func() {
		args := []string{"-f", filepath.Join(plugin, "pom.xml"), "-Dmaven.test.skip=true", "package"}
		if line.profile != "" {
			args = append(args, "-P", line.profile)
		}
		maven(t, mvn, args...)
	})
	pluginJar, err := filepath.Glob(filepath.Join(plugin, line.dir, "finalizer-flink-*.jar"))
	require.NoError(t, err)
	require.NotEmpty(t, pluginJar, "the plugin's shaded jar")
	require.NoError(t, pluginjar.Check(pluginJar[0], pluginjar.Scope), "the jar for Flink's lib/ keeps to its package")
	job, bundling := t.TempDir(), t.TempDir()
	timed(t, "mvn package of the jobs", func() {
		maven(t, mvn, "-f", filepath.Join("job", "pom.xml"), "-Dflink.version="+line.version, "-Dflink.adapter="+line.adapter,
			"-Djob.build.dir="+job, "package")
		maven(t, mvn, "-f", filepath.Join("bundling", "pom.xml"), "-Dflink.version="+line.version, "-Djob.build.dir="+bundling, "package")
	})
	return jars{plugin: pluginJar[0], job: filepath.Join(job, "finalizer-flink-cluster-job-0.jar"),
		bundling: filepath.Join(bundling, "finalizer-flink-bundling-job-0.jar")}
}

// lib is the Flink distribution's lib/, assembled once per version.
func lib(t *testing.T, mvn []string, version string) string {
	t.Helper()
	var dir string
	timed(t, "Flink "+version+"'s lib/ (cold: a Maven download)", func() {
		var err error
		dir, err = flinkcluster.Lib(t.Context(), mvn, version)
		require.NoError(t, err)
	})
	return dir
}

func maven(t *testing.T, mvn []string, args ...string) {
	t.Helper()
	cmd := exec.Command(mvn[0], append(append([]string{}, mvn[1:]...), append([]string{"-q"}, args...)...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "mvn %v:\n%s", args, out)
}

// timed logs how long f took: durations are reported, never asserted.
func timed(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%s: %s", what, time.Since(start).Round(100*time.Millisecond))
}
