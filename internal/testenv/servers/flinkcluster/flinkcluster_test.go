package flinkcluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJavaOptsReadsThePluginsPOM(t *testing.T) {
	opts, err := JavaOpts(filepath.Join("..", "..", "..", "..", "flink", "pom.xml"))
	require.NoError(t, err)
	assert.Contains(t, opts, "--add-opens=java.base/java.util=ALL-UNNAMED")
	for _, o := range opts {
		assert.Regexp(t, `^--add-(opens|exports)=`, o)
	}
}

func TestJavaOptsWithoutTheProperty(t *testing.T) {
	pom := filepath.Join(t.TempDir(), "pom.xml")
	require.NoError(t, os.WriteFile(pom, []byte("<project/>"), 0o644))
	_, err := JavaOpts(pom)
	assert.ErrorContains(t, err, "no flink.java.opts property")
}

func TestConfigQuotesEveryValue(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Config{"high-availability.zookeeper.quorum": "127.0.0.1:2181", "x": "it's"}.write(dir))
	b, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "high-availability.zookeeper.quorum: '127.0.0.1:2181'\nx: 'it''s'\n", string(b))
	for _, f := range []string{"log4j.properties", "log4j-cli.properties"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
}

func TestJobRunsOnlyWithEveryTask(t *testing.T) {
	for body, want := range map[string]bool{
		`{"state":"RUNNING","vertices":[{"status":"RUNNING"},{"status":"RUNNING"}]}`:      true,
		`{"state":"RUNNING","vertices":[{"status":"RUNNING"},{"status":"INITIALIZING"}]}`: false,
		`{"state":"RUNNING","vertices":[]}`:                                               false,
		`{"state":"RESTARTING","vertices":[{"status":"RUNNING"}]}`:                        false,
	} {
		var j Job
		require.NoError(t, json.Unmarshal([]byte(body), &j))
		assert.Equal(t, want, j.Running(), body)
	}
}
