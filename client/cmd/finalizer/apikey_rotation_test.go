package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/authproxy"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// The worker's API key is rotated while it runs, as a Kubernetes Secret
// mounted as a file is (FINALIZER_TEMPORAL_API_KEY_FILE, the chart's
// mount): the key file is replaced by a rename and the frontend, which
// checks keys, revokes the old key at once. The worker finalizes after
// that only if it sends the new key: no restart. The frontend is the dev
// server behind a proxy that checks keys as Temporal Cloud does; the tool
// sent with the revoked key is refused, so the check is real.
func TestWorkerReloadsARotatedAPIKey(t *testing.T) {
	dir := t.TempDir()
	pki, err := mtlstest.NewPKI(dir)
	require.NoError(t, err)
	const toolKey, firstKey, nextKey = "tool-key", "worker-key-1", "worker-key-2"
	proxy, err := authproxy.Start(harness.HostPort(t), pki.ServerCert, pki.ServerKey, toolKey, firstKey)
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	mount := filepath.Join(dir, "secret")
	publishSecret(t, mount, "1", firstKey)
	keyFile := filepath.Join(mount, "api-key")

	bucket := jobmanager.Bucket{Dir: filepath.Join(dir, "bucket")}
	require.NoError(t, os.MkdirAll(bucket.Dir, 0o755))
	const taskQueue = "api-key-rotation"
	cfg, err := worker.LoadConfig([]string{"-embedded-path=" + filepath.Join(dir, "refs.db"), "-state-bucket=" + bucket.URL(),
		"-metrics-address=off", "-task-queue=" + taskQueue, "-temporal-address=" + proxy.Addr,
		"-temporal-namespace=" + harness.Namespace(), "-temporal-tls-ca-file=" + pki.CAFile, "-temporal-tls-server-name=" + pki.ServerName,
		"-temporal-api-key-file=" + keyFile}, func(string) string { return "" })
	require.NoError(t, err)
	stop := startWorker(t, cfg)
	defer func() { require.NoError(t, stop()) }()

	env := map[string]string{envTaskQueue: taskQueue, "TEMPORAL_CONFIG_FILE": filepath.Join(dir, "absent.toml")}
	tool := func(key string) []string {
		return []string{"--temporal-address", proxy.Addr, "--temporal-namespace", harness.Namespace(), "--temporal-tls-ca-file", pki.CAFile,
			"--temporal-tls-server-name", pki.ServerName, "--temporal-api-key-file", writeKey(t, t.TempDir(), "key", key)}
	}
	job := stores.JobID{Cluster: "apikey", Job: "j1"}
	o := runTool(t, env, append(tool(toolKey), "claim", "--cluster", job.Cluster, "--job", job.Job, "--epoch", "1", "--owner", jobmanager.Owner(1))...)
	require.Equal(t, exitOK, o.code, o.stderr)
	finalize := func(n uint64) {
		t.Helper()
		req, err := bucket.WriteCheckpoint(job, 1, n, false)
		require.NoError(t, err)
		o := runTool(t, env, append(append(tool(toolKey), "--timeout", "90s"), finalizeArgs(req, "--wait")...)...)
		require.Equal(t, exitOK, o.code, o.stderr)
		assert.Contains(t, o.stdout, req.WorkflowID()+" Published")
	}
	finalize(1)
	require.Positive(t, proxy.Calls(firstKey), "the worker sent its first key")

	// The Secret's new content lands as the kubelet writes it; the old key
	// is revoked.
	publishSecret(t, mount, "2", nextKey)
	proxy.Accept(toolKey, nextKey)
	finalize(2)
	assert.Positive(t, proxy.Calls(nextKey), "the worker sent the rotated key")

	o = runTool(t, env, append(tool(firstKey), "--timeout", "20s", "latest", "--cluster", job.Cluster, "--job", job.Job)...)
	assert.Equal(t, exitError, o.code, "the revoked key is refused")
	assert.Contains(t, o.stderr, "API key not accepted")
}

func writeKey(t *testing.T, dir, name, key string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(key+"\n"), 0o600))
	return path
}

// publishSecret writes the key into dir the way the kubelet updates a
// mounted Secret (its atomic writer): the content in a new timestamped
// folder, "..data" switched to it by one rename, "api-key" a link through
// "..data" that never changes.
func publishSecret(t *testing.T, dir, version, key string) {
	t.Helper()
	content := "..2026_12_05_" + version
	require.NoError(t, os.MkdirAll(filepath.Join(dir, content), 0o755))
	writeKey(t, filepath.Join(dir, content), "api-key", key)
	require.NoError(t, os.Symlink(content, filepath.Join(dir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	if _, err := os.Lstat(filepath.Join(dir, "api-key")); os.IsNotExist(err) {
		require.NoError(t, os.Symlink(filepath.Join("..data", "api-key"), filepath.Join(dir, "api-key")))
	}
}
