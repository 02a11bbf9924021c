package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// A real Temporal server whose frontend requires a client certificate
// signed by the test's CA: the worker and the tool, configured through a
// temporal.toml profile only, through flags only, and through every layer
// at once (each one correcting the one below), connect and finalize; without
// the client certificate both are refused.
func TestMTLSThroughProfileFlagsAndLayers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	srv := mtlstest.Start(t)
	p := srv.PKI

	tlsTable := fmt.Sprintf("server_ca_cert_path = %q\nclient_cert_path = %q\nclient_key_path = %q\nserver_name = %q\n",
		p.CAFile, p.ClientCert, p.ClientKey, p.ServerName)
	toml := writeTOML(t, fmt.Sprintf(`
[profile.secure]
address = %[1]q
namespace = %[2]q
[profile.secure.tls]
%[3]s
# Everything but the address and the namespace: the layers above fix them.
[profile.wrong]
address = "127.0.0.1:1"
namespace = "no-such-namespace"
[profile.wrong.tls]
%[3]s
[profile.nocert]
address = %[1]q
namespace = %[2]q
[profile.nocert.tls]
server_ca_cert_path = %[4]q
server_name = %[5]q
`, srv.Frontend, mtlstest.Namespace, tlsTable, p.CAFile, p.ServerName))["TEMPORAL_CONFIG_FILE"]
	noFile := filepath.Join(t.TempDir(), "absent.toml")
	flags := []string{"--temporal-address", srv.Frontend, "--temporal-tls-ca-file", p.CAFile,
		"--temporal-tls-cert-file", p.ClientCert, "--temporal-tls-key-file", p.ClientKey, "--temporal-tls-server-name", p.ServerName}

	dir := t.TempDir()
	bucket := jobmanager.Bucket{Dir: filepath.Join(dir, "bucket")}
	require.NoError(t, os.MkdirAll(bucket.Dir, 0o755))
	const taskQueue = "mtls"
	workerArgs := []string{"-embedded-path=" + filepath.Join(dir, "refs.db"), "-state-bucket=" + bucket.URL(),
		"-metrics-address=off", "-task-queue=" + taskQueue}
	job := stores.JobID{Cluster: "mtls", Job: "j1"}

	phases := []struct {
		name      string
		workerEnv map[string]string
		workerArg []string
		toolEnv   map[string]string
		toolArgs  []string
	}{
		{"profile only",
			map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "secure"}, nil,
			map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "secure"}, nil},
		{"flags only",
			map[string]string{"TEMPORAL_CONFIG_FILE": noFile}, flags,
			map[string]string{"TEMPORAL_CONFIG_FILE": noFile}, flags},
		// The profile's dead address gives way to TEMPORAL_ADDRESS, its
		// namespace to TEMPORAL_NAMESPACE, that to FINALIZER_'s, that to
		// the flag.
		{"every layer",
			map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "secure", "TEMPORAL_ADDRESS": srv.Frontend,
				"TEMPORAL_NAMESPACE": "wrong-1", "FINALIZER_TEMPORAL_NAMESPACE": "wrong-2"},
			[]string{"-temporal-profile=wrong", "-temporal-namespace=" + mtlstest.Namespace},
			map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "wrong", "TEMPORAL_ADDRESS": srv.Frontend,
				"TEMPORAL_NAMESPACE": "wrong-1", "FINALIZER_TEMPORAL_NAMESPACE": "wrong-2"},
			[]string{"--temporal-namespace", mtlstest.Namespace}},
	}
	for i, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			cfg, err := worker.LoadConfig(append(append([]string{}, workerArgs...), ph.workerArg...), func(k string) string { return ph.workerEnv[k] })
			require.NoError(t, err)
			assert.Equal(t, srv.Frontend, cfg.Temporal.Address)
			assert.Equal(t, mtlstest.Namespace, cfg.Temporal.Namespace)
			stop := startWorker(t, cfg)
			defer func() { require.NoError(t, stop()) }()

			env := map[string]string{envTaskQueue: taskQueue}
			for k, v := range ph.toolEnv {
				env[k] = v
			}
			epoch := uint64(i + 1)
			o := runTool(t, env, append(append([]string{}, ph.toolArgs...),
				"claim", "--cluster", job.Cluster, "--job", job.Job, "--epoch", fmt.Sprint(epoch), "--owner", jobmanager.Owner(epoch))...)
			require.Equal(t, exitOK, o.code)
			req, err := bucket.WriteCheckpoint(job, epoch, epoch, false)
			require.NoError(t, err)
			o = runTool(t, env, append(append([]string{}, ph.toolArgs...), finalizeArgs(req, "--wait")...)...)
			require.Equal(t, exitOK, o.code)
			assert.Contains(t, o.stdout, req.WorkflowID()+" Published")
		})
	}

	// The server refuses a client without a certificate: the tool exits 1
	// (the connection failed), the worker's Run fails at its dial. The
	// client sees TLS 1.3's refusal as "certificate required" or, when its
	// next write comes first, as a reset: the phases above, the same
	// profile with the certificate, connected.
	noCert := map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "nocert", envTaskQueue: taskQueue}
	o := runTool(t, noCert, "--timeout", "20s", "latest", "--cluster", job.Cluster, "--job", job.Job)
	assert.Equal(t, exitError, o.code)
	assert.Contains(t, o.stderr, "temporal connection to "+srv.Frontend)
	cfg, err := worker.LoadConfig(append(append([]string{}, workerArgs...), "-temporal-profile=nocert"),
		func(k string) string { return noCert[k] })
	require.NoError(t, err)
	runCtx, cancelRun := context.WithTimeout(ctx, time.Minute)
	defer cancelRun()
	err = worker.Run(runCtx, cfg, slog.New(slog.DiscardHandler))
	assert.ErrorContains(t, err, "temporal connection to "+srv.Frontend)
}

// startWorker runs the worker until the returned stop; it fails the test
// when the worker does not poll within a minute.
func startWorker(t *testing.T, cfg worker.Config) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, cfg, slog.New(slog.DiscardHandler), worker.WithReady(func(worker.Ready) { close(ready) }))
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("worker ended before polling: %v", err)
	case <-time.After(time.Minute):
		cancel()
		t.Fatal("worker not polling after a minute")
	}
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			return errors.New("worker did not stop within a minute")
		}
	}
}

// The worker's client certificate is rotated while it runs, as Temporal
// Cloud users rotate short-lived certificates: the worker starts with one
// about to expire, the files are replaced with a new one, and once the
// first has expired the frontend recycles every connection
// (keepAliveMaxConnectionAge), so the worker dials and shakes hands again.
// It finalizes after that only if it read the new files: no restart.
func TestWorkerReloadsARotatedCertificate(t *testing.T) {
	const recycled = 5 * time.Second
	srv := mtlstest.StartWith(t, mtlstest.Options{MaxConnectionAge: recycled})
	p := &srv.PKI
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "worker.pem"), filepath.Join(dir, "worker-key.pem")
	expires := time.Now().Add(12 * time.Second)
	require.NoError(t, p.IssueClient(cert, key, "worker, expiring", expires))

	bucket := jobmanager.Bucket{Dir: filepath.Join(dir, "bucket")}
	require.NoError(t, os.MkdirAll(bucket.Dir, 0o755))
	const taskQueue = "rotation"
	cfg, err := worker.LoadConfig([]string{"-embedded-path=" + filepath.Join(dir, "refs.db"), "-state-bucket=" + bucket.URL(),
		"-metrics-address=off", "-task-queue=" + taskQueue, "-temporal-address=" + srv.Frontend,
		"-temporal-namespace=" + mtlstest.Namespace, "-temporal-tls-ca-file=" + p.CAFile, "-temporal-tls-server-name=" + p.ServerName,
		"-temporal-tls-cert-file=" + cert, "-temporal-tls-key-file=" + key}, func(string) string { return "" })
	require.NoError(t, err)
	stop := startWorker(t, cfg)
	defer func() { require.NoError(t, stop()) }()

	env := map[string]string{envTaskQueue: taskQueue, "TEMPORAL_CONFIG_FILE": filepath.Join(dir, "absent.toml")}
	tool := []string{"--temporal-address", srv.Frontend, "--temporal-namespace", mtlstest.Namespace, "--temporal-tls-ca-file", p.CAFile,
		"--temporal-tls-cert-file", p.ClientCert, "--temporal-tls-key-file", p.ClientKey, "--temporal-tls-server-name", p.ServerName}
	job := stores.JobID{Cluster: "rotation", Job: "j1"}
	o := runTool(t, env, append(append([]string{}, tool...),
		"claim", "--cluster", job.Cluster, "--job", job.Job, "--epoch", "1", "--owner", jobmanager.Owner(1))...)
	require.Equal(t, exitOK, o.code, o.stderr)
	finalize := func(n uint64) {
		t.Helper()
		req, err := bucket.WriteCheckpoint(job, 1, n, false)
		require.NoError(t, err)
		o := runTool(t, env, append(append(append([]string{}, tool...), "--timeout", "90s"), finalizeArgs(req, "--wait")...)...)
		require.Equal(t, exitOK, o.code, o.stderr)
		assert.Contains(t, o.stdout, req.WorkflowID()+" Published")
	}
	finalize(1)

	// The new pair replaces the files one rename each, as a secret
	// mount or cert-manager does.
	next := t.TempDir()
	require.NoError(t, p.IssueClient(filepath.Join(next, "c.pem"), filepath.Join(next, "k.pem"), "worker, rotated", time.Now().Add(24*time.Hour)))
	require.NoError(t, os.Rename(filepath.Join(next, "k.pem"), key))
	require.NoError(t, os.Rename(filepath.Join(next, "c.pem"), cert))
	// Past the expiry by a whole recycling (and its jitter): every call
	// from now on goes over a connection shaken hands after it.
	time.Sleep(time.Until(expires) + recycled + recycled/5)
	finalize(2)
}
