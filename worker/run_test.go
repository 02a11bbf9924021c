package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// Bad configuration fails Run before it connects to anything: the
// Temporal address is a listener that counts connections.
func TestRunRefusesBadConfigurationBeforeConnecting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var connections atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			_ = c.Close()
		}
	}()

	cfg := DefaultConfig()
	cfg.Temporal.Address = ln.Addr().String()
	cfg.Store.Kind = StoreZooKeeper // and no servers
	cfg.Store.Embedded.Path = filepath.Join(t.TempDir(), "never-created", "refs.db")
	cfg.MetricsAddress = ""
	err = Run(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.ErrorIs(t, err, stores.ErrInvalid)
	assert.ErrorContains(t, err, "-zookeeper-servers")
	assert.Zero(t, connections.Load())
}

// A bucket its driver refuses to open fails the start with one message
// naming the bucket once, its credentials hidden.
func TestRunBucketErrorNamesTheBucketOnce(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Temporal.Address = "127.0.0.1:1" // never reached: the bucket fails first
	cfg.Store.Embedded.Path = filepath.Join(t.TempDir(), "refs.db")
	cfg.StateBucket = "file://" + filepath.ToSlash(t.TempDir()) + "?bogus=SeCrEtVaLuE"
	cfg.MetricsAddress = ""
	err := Run(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.Equal(t, 1, strings.Count(err.Error(), "open bucket"), "%v", err)
	assert.Contains(t, err.Error(), "open state bucket: open bucket file://")
	assert.NotContains(t, err.Error(), "SeCrEtVaLuE")
}

// devWorker is a worker configuration for one test against a real
// Temporal dev server, on the embedded store and a file bucket.
type devWorker struct {
	t      *testing.T
	srv    *devserver.Server
	cfg    Config
	bucket string
	client client.Client // the test's own, outliving any Run
	// logs receives the worker's log at info and above when set.
	logs io.Writer
}

func newDevWorker(t *testing.T) *devWorker {
	t.Helper()
	srv := temporaltest.Start(t, devserver.Options{SearchAttributes: contract.SearchAttributes()})
	dir := t.TempDir()
	d := &devWorker{t: t, srv: srv, cfg: DefaultConfig(), bucket: filepath.Join(dir, "bucket")}
	d.cfg.Temporal.Address = srv.HostPort
	d.cfg.Store.Embedded.Path = filepath.Join(dir, "refs", "references.db")
	d.cfg.StateBucket = "file://" + d.bucket + "?create_dir=true"
	d.cfg.MetricsAddress = "127.0.0.1:0"
	d.cfg.ShutdownGrace = 5 * time.Second
	c, err := client.Dial(client.Options{HostPort: srv.HostPort, Logger: quietSDKLogger()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	d.client = c
	return d
}

// start runs the worker until the returned stop is called; stop returns
// Run's error.
func (d *devWorker) start(opts ...Option) (Ready, func() error) {
	d.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Ready, 1)
	done := make(chan error, 1)
	logger := slog.New(slog.DiscardHandler)
	switch {
	case d.logs != nil:
		logger = slog.New(slog.NewTextHandler(d.logs, nil))
	case testing.Verbose():
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	opts = append(opts, WithReady(func(r Ready) { ready <- r }))
	go func() { done <- Run(ctx, d.cfg, logger, opts...) }()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			return errors.New("worker did not stop within a minute")
		}
	})
	select {
	case r := <-ready:
		d.t.Cleanup(func() { _ = stop() })
		return r, stop
	case err := <-done:
		d.t.Fatalf("worker ended before it was ready: %v", err)
	case <-time.After(time.Minute):
		d.t.Fatal("worker not ready after a minute")
	}
	return Ready{}, nil
}

// execute starts a workflow on the worker's task queue.
func (d *devWorker) execute(ctx context.Context, id, workflow string, arg any) client.WorkflowRun {
	d.t.Helper()
	run, err := d.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: d.cfg.Temporal.TaskQueue}, workflow, arg)
	require.NoError(d.t, err)
	return run
}

func (d *devWorker) claim(ctx context.Context) contract.ClaimRequest {
	d.t.Helper()
	claim := contract.ClaimRequest{Cluster: "dev", Job: "job-1", Epoch: 1, Owner: "jm-1"}
	require.NoError(d.t, d.execute(ctx, claim.WorkflowID(), contract.ClaimWorkflow, claim).Get(ctx, nil))
	return claim
}

// reference reads a checkpoint's key once no worker holds the store.
func (d *devWorker) reference(req contract.FinalizeRequest) stores.Entry {
	d.t.Helper()
	s, err := embedded.Open(d.cfg.Store.Embedded.Path)
	require.NoError(d.t, err, "Run closed the store: its file lock is free")
	defer s.Close()
	e, err := s.Read(context.Background(), req.CheckpointID())
	require.NoError(d.t, err)
	return e
}

// The worker in-process against a real Temporal dev server: a finalization
// ends Published, the reference is in the store, and /metrics shows the
// SDK's metrics and ours.
func TestRunFinalizesAgainstDevServer(t *testing.T) {
	d := newDevWorker(t)
	r, stop := d.start()
	get(t, "http://"+r.MetricsAddress+"/healthz", 200)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started := time.Now()
	req := writeCheckpoint(t, d.bucket, d.claim(ctx), 7)
	var res contract.FinalizeResult
	require.NoError(t, d.execute(ctx, req.WorkflowID(), contract.FinalizeWorkflow, req).Get(ctx, &res))
	assert.Equal(t, contract.Published, res.Phase, "reason: %s", res.Reason)
	t.Logf("claim + finalize through the real server: %s", time.Since(started).Round(time.Millisecond))

	metrics := get(t, "http://"+r.MetricsAddress+"/metrics", 200)
	assert.Equal(t, []string{"1"}, samples(metrics, "finalizer_finalizations_total", `outcome="Published"`))
	assert.Equal(t, []string{"1"}, samples(metrics, "finalizer_store_calls_total", `op="publish"`, `outcome="Published"`))
	assert.Equal(t, []string{"1"}, samples(metrics, "finalizer_finalization_latency_seconds_count", `outcome="Published"`, `store="embedded"`),
		"trigger-to-outcome latency")
	// The SDK counts a completion after the server acknowledged it, which
	// can be after the result reached us.
	assert.Eventually(t, func() bool {
		metrics := get(t, "http://"+r.MetricsAddress+"/metrics", 200)
		return len(samples(metrics, "temporal_workflow_completed_total", `workflow_type="FinalizeCheckpoint"`)) > 0
	}, 10*time.Second, 50*time.Millisecond, "the SDK's own metrics")
	assert.NotEmpty(t, samples(metrics, "temporal_local_activity_execution_latency_seconds_count", `activity_type="Publish"`),
		"the fast path publishes in a local activity")
	assert.NotEmpty(t, samples(metrics, "go_goroutines"))

	// The reconciler's activities are wired, their floors from the
	// configuration included: a dry run completes (activities registered
	// without floors fail it NotWired at once).
	var rep contract.ReconcileReport
	recon := contract.NewReconcileRequest(req.Cluster)
	require.NoError(t, d.execute(ctx, "reconcile/"+req.Cluster, contract.ReconcileWorkflow, recon).Get(ctx, &rep))
	assert.Equal(t, contract.ReconcileDone, rep.Phase)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, 1, rep.Counts.References)

	require.NoError(t, stop(), "a clean shutdown")
	assert.True(t, d.reference(req).HoldsToken(req.Token()))
	assert.FileExists(t, filepath.Join(d.bucket, res.HandleKey), "the handle the reference points at")
}

// A stop asked for while an activity runs waits for it (within the grace
// period), and the next worker takes the finalization over to Published.
func TestRunDrainsRunningActivity(t *testing.T) {
	d := newDevWorker(t)
	slow := &slowPublish{entered: make(chan struct{}, 1), delay: 1500 * time.Millisecond}
	_, stop := d.start(WithReferenceStore(func(s stores.ReferenceStore) stores.ReferenceStore {
		slow.ReferenceStore = s
		return slow
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := writeCheckpoint(t, d.bucket, d.claim(ctx), 1)
	run := d.execute(ctx, req.WorkflowID(), contract.FinalizeWorkflow, req)

	select {
	case <-slow.entered:
	case <-ctx.Done():
		t.Fatal("publish never started")
	}
	asked := time.Now()
	require.NoError(t, stop())
	assert.GreaterOrEqual(t, time.Since(asked), slow.delay-100*time.Millisecond, "the stop waited for the running publish")
	assert.True(t, d.reference(req).HoldsToken(req.Token()), "the publish finished before the store closed")

	d.start()
	var res contract.FinalizeResult
	require.NoError(t, run.Get(ctx, &res))
	assert.Equal(t, contract.Published, res.Phase, "reason: %s", res.Reason)
	assert.Equal(t, uint32(1), res.Attempts)
}

// slowPublish delays every publish, as a slow store would.
type slowPublish struct {
	stores.ReferenceStore
	entered chan struct{}
	delay   time.Duration
}

func (s *slowPublish) Publish(ctx context.Context, p stores.Publication) error {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	time.Sleep(s.delay) // deliberately deaf to ctx: the drain must wait
	return s.ReferenceStore.Publish(ctx, p)
}

// writeCheckpoint writes a checkpoint's metadata and data into the bucket
// the way a job manager does, and returns the request that finalizes it.
func writeCheckpoint(t *testing.T, bucket string, claim contract.ClaimRequest, n uint64) contract.FinalizeRequest {
	t.Helper()
	prefix := filepath.ToSlash(filepath.Join(claim.Cluster, claim.Job, "chk-"+itoa(n))) + "/"
	meta := []byte("metadata of checkpoint " + itoa(n))
	for key, data := range map[string][]byte{prefix + "_metadata": meta, prefix + "data-0": []byte("state")} {
		path := filepath.Join(bucket, filepath.FromSlash(key))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	sum := sha256.Sum256(meta)
	return contract.FinalizeRequest{
		Cluster: claim.Cluster, Job: claim.Job, Epoch: claim.Epoch, Owner: claim.Owner, Checkpoint: n,
		MetadataKey: prefix + "_metadata", MetadataSHA256: hex.EncodeToString(sum[:]),
		ExclusivePrefix: prefix,
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// samples returns the values of the series of a metric that carry every
// given label pair, whatever the other labels (the SDK adds its own).
func samples(exposition, name string, labels ...string) []string {
	var out []string
	for _, line := range strings.Split(exposition, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || rest[0] != '{' && rest[0] != ' ' {
			continue
		}
		matched := true
		for _, l := range labels {
			matched = matched && strings.Contains(rest, l)
		}
		if matched {
			out = append(out, rest[strings.LastIndexByte(rest, ' ')+1:])
		}
	}
	return out
}

func quietSDKLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
}
