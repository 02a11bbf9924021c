package worker

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
)

// A namespace without the search attributes fails the start at once with
// the command that adds them, instead of every finalization's first
// upsert; -register-search-attributes registers them and starts.
func TestStartChecksSearchAttributes(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{}) // none registered
	cfg := startConfig(t, srv.HostPort)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	err := Run(ctx, cfg, slog.New(slog.DiscardHandler))
	require.ErrorIs(t, err, ErrSearchAttributes)
	assert.ErrorContains(t, err, "namespace default lacks CheckpointCluster, CheckpointEpoch, CheckpointID, CheckpointJob, FinalizationPhase, PhaseSince, StoreKind")
	assert.ErrorContains(t, err, "temporal operator search-attribute create --namespace default --name CheckpointCluster --type Keyword --name CheckpointEpoch --type Int")
	assert.ErrorContains(t, err, "-register-search-attributes")

	cfg.RegisterSearchAttributes = true
	ready := make(chan struct{})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Run(runCtx, cfg, slog.New(slog.DiscardHandler), WithReady(func(Ready) { close(ready) }))
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the worker did not start: %v", err)
	}
	stop()
	require.NoError(t, <-done)

	c, err := client.Dial(client.Options{HostPort: srv.HostPort, Logger: quietSDKLogger()})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	for name := range contract.SearchAttributes() {
		assert.Contains(t, resp.GetCustomAttributes(), name)
	}
}

// A namespace that does not exist fails the start at once, naming it and
// the command that creates it (ErrNamespace: the worker exits 2, repeating
// never helps); a search attribute registered with another type fails it
// too, naming the attribute, both types and what to do.
func TestStartChecksTheNamespace(t *testing.T) {
	attrs := contract.SearchAttributes()
	attrs["CheckpointEpoch"] = "Keyword" // the workflows need Int
	srv := temporaltest.Start(t, devserver.Options{SearchAttributes: attrs})
	cfg := startConfig(t, srv.HostPort)
	cfg.RegisterSearchAttributes = true // registering cannot help either
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("missing namespace", func(t *testing.T) {
		cfg := cfg
		cfg.Temporal.Namespace = "finalizer-prod"
		start := time.Now()
		err := Run(ctx, cfg, slog.New(slog.DiscardHandler))
		require.ErrorIs(t, err, ErrNamespace)
		assert.ErrorContains(t, err, `namespace "finalizer-prod" does not exist on `+srv.HostPort)
		assert.ErrorContains(t, err, "temporal operator namespace create --namespace finalizer-prod")
		assert.Less(t, time.Since(start), 10*time.Second, "at once, not after retries")
	})
	t.Run("wrong type", func(t *testing.T) {
		err := Run(ctx, cfg, slog.New(slog.DiscardHandler))
		require.ErrorIs(t, err, ErrSearchAttributes)
		assert.ErrorContains(t, err, "namespace default: CheckpointEpoch is Keyword, the workflows need Int")
		assert.ErrorContains(t, err, "a search attribute's type cannot be changed: use another namespace")
	})
}

// startConfig is a worker on the embedded store and a bucket of its own,
// against the Temporal server at hostPort, without a metrics endpoint.
func startConfig(t *testing.T, hostPort string) Config {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Temporal.Address = hostPort
	cfg.Store.Embedded.Path = filepath.Join(dir, "refs.db")
	cfg.StateBucket = "file://" + filepath.Join(dir, "bucket") + "?create_dir=true"
	cfg.MetricsAddress = ""
	return cfg
}
