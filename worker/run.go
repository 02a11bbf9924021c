package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// closeTimeout bounds closing the metrics endpoint at the very end.
const closeTimeout = 5 * time.Second

// Run runs the worker until ctx ends or the worker fails fatally; see the
// package documentation for the order of events and their failures. A nil
// return means a clean shutdown.
func Run(ctx context.Context, cfg Config, logger *slog.Logger, opts ...Option) (err error) {
	if err := cfg.Validate(); err != nil {
		return err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	logger.Info("worker starting", "config", cfg)

	interceptors, stopTracing, err := startTracing(ctx, cfg, logger)
	if err != nil {
		return err
	}
	m, err := startMetrics(cfg.MetricsAddress, cfg.Temporal.Namespace, logger)
	if err != nil {
		return errors.Join(err, stopTracing(context.Background()))
	}
	// The tracer provider stops last: its shutdown exports the spans the
	// worker's stop ended.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		err = errors.Join(err, m.close(ctx), stopTracing(ctx))
	}()

	layout, err := blobstate.ParseLayout(cfg.Clusters) // validated above
	if err != nil {
		return err
	}
	storeUp := m.watchStore(cfg.Store.Kind)
	refs, err := openReferences(ctx, cfg, logger)
	if err != nil {
		return err
	}
	storeUp.opened(refs)
	defer closeLogged(logger, "reference store", refs.Close)
	m.serveBackups(refs)
	// Before the store closes (deferred earlier, so run later): a backup
	// asked for after this is refused, not failed on a closed file.
	defer m.stopBackups()
	states, err := blobstate.Open(ctx, cfg.StateBucket)
	if err != nil {
		return fmt.Errorf("open state bucket: %w", err)
	}
	defer closeLogged(logger, "state bucket", states.Close)

	c, err := cfg.Temporal.Dial(ctx, client.Options{
		Logger:         sdklog.NewStructuredLogger(logger.With("component", "temporal-sdk")),
		MetricsHandler: m.handler,
		Interceptors:   interceptors,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := checkNamespace(ctx, c, cfg.Temporal.Address, cfg.Temporal.Namespace, logger); err != nil {
		return err
	}
	if err := checkSearchAttributes(ctx, c, cfg.Temporal.Namespace, cfg.RegisterSearchAttributes, logger); err != nil {
		return err
	}

	fatal := make(chan error, 1)
	sdkworker.SetStickyWorkflowCacheSize(cfg.WorkflowCache) // read when the process's first worker starts
	var references stores.ReferenceStore = refs
	if o.wrapReferences != nil {
		references = o.wrapReferences(refs)
	}
	a := Assemble(Parts{
		Store:      refs,
		References: references,
		Leadership: references,
		Bucket:     states,
		Layout:     layout,
		StoreKind:  string(cfg.Store.Kind),
		Temporal:   c,
		TaskQueue:  cfg.Temporal.TaskQueue,
		Retain:     cfg.Retain,
		Floors:     reconcileacts.Floors{Grace: cfg.ReconcileMinGrace, TombstoneTTL: cfg.ReconcileMinTombstoneTTL},
	})
	w := sdkworker.New(c, cfg.Temporal.TaskQueue, a.Options(workerOptions(cfg, fatal)))
	a.Register(w)
	// Deferred after the stores' closes, so it stops before them, and
	// after the worker's stop, so nothing publishes any more.
	retentionLog := logger.With("component", "retention")
	defer StartRetention(activities.WithBackground(context.Background(), sdklog.NewStructuredLogger(retentionLog), m.handler), a.Finalizer, HandleJobs(states, layout), retentionLog)()
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker on task queue %s: %w", cfg.Temporal.TaskQueue, err)
	}
	m.probes.Store(&[]probe{
		{"temporal", func(ctx context.Context) error {
			_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		}},
		{"store", refs.Probe},
		// Without the bucket every finalization sits in Persisting.
		{"bucket", states.Probe},
	})
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go watchVerifying(watchCtx, c, cfg.Temporal.Namespace, m.handler, o.verifyingEvery(), logger)
	m.ready.Store(true)
	logger.Info("worker polling", "taskQueue", cfg.Temporal.TaskQueue, "namespace", cfg.Temporal.Namespace,
		"store", cfg.Store.Kind, "metrics", m.addr)
	if o.ready != nil {
		o.ready(Ready{Client: c, MetricsAddress: m.addr})
	}

	select {
	case <-ctx.Done():
	case err = <-fatal:
		err = fmt.Errorf("worker failed: %w", err)
	}
	m.ready.Store(false)
	logger.Info("worker stopping", "grace", cfg.ShutdownGrace)
	start := time.Now()
	// Stop returns once running activities have finished or, after the
	// grace period, been cancelled; the stores close after it (deferred).
	w.Stop()
	logger.Info("worker stopped", "took", time.Since(start).Round(time.Millisecond))
	return err
}

func closeLogged(logger *slog.Logger, what string, closeFn func() error) {
	if err := closeFn(); err != nil {
		logger.Warn("close failed", "what", what, "error", err)
	}
}
