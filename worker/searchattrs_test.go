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
	"github.com/checkpoint-finalizer/finalizer/internal/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/worker/devserver"
)

// A namespace without the search attributes fails the start at once with
// the command that adds them, instead of every finalization's first
// upsert; -register-search-attributes registers them and starts.
func TestStartChecksSearchAttributes(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{}) // none registered
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Temporal.Address = srv.HostPort
	cfg.Store.Embedded.Path = filepath.Join(dir, "refs.db")
	cfg.StateBucket = "file://" + filepath.Join(dir, "bucket") + "?create_dir=true"
	cfg.MetricsAddress = ""
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
