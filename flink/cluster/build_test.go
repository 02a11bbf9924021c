package cluster_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/flinkcluster"
)

// flinkVersion is the Flink the cluster runs: the plugin's (flink/pom.xml).
const flinkVersion = "1.20.5"

// jars are what the test builds before any cluster starts.
type jars struct {
	// plugin is the plugin's shaded jar, for the plugin world's lib/.
	plugin string
	// job is the job every scenario submits (flink/cluster/job).
	job string
}

// build builds the plugin's jar and the job's, outside the repository:
// the plugin from a copy of flink/'s pom and sources, as flink/'s own
// tests may run `mvn clean` in flink/target meanwhile.
func build(t *testing.T, mvn []string) jars {
	t.Helper()
	plugin := t.TempDir()
	for _, p := range []string{"pom.xml", "src"} {
		cp := exec.Command("cp", "-r", filepath.Join("..", p), plugin)
		out, err := cp.CombinedOutput()
		require.NoError(t, err, "copy flink/%s: %s", p, out)
	}
	timed(t, "mvn package of the plugin", func() {
		maven(t, mvn, "-f", filepath.Join(plugin, "pom.xml"), "-Dmaven.test.skip=true", "package")
	})
	pluginJar, err := filepath.Glob(filepath.Join(plugin, "target", "finalizer-flink-*.jar"))
	require.NoError(t, err)
	require.NotEmpty(t, pluginJar, "the plugin's shaded jar")
	job := t.TempDir()
	timed(t, "mvn package of the job", func() {
		maven(t, mvn, "-f", filepath.Join("job", "pom.xml"), "-Dflink.version="+flinkVersion, "-Djob.build.dir="+job, "package")
	})
	return jars{plugin: pluginJar[0], job: filepath.Join(job, "finalizer-flink-cluster-job-0.jar")}
}

// lib is the Flink distribution's lib/, assembled once per version.
func lib(t *testing.T, mvn []string) string {
	t.Helper()
	var dir string
	timed(t, "Flink "+flinkVersion+"'s lib/ (cold: a Maven download)", func() {
		var err error
		dir, err = flinkcluster.Lib(t.Context(), mvn, flinkVersion)
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
