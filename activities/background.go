package activities

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// The retention drain (DrainRetention) runs in the worker's process
// outside any activity, so the helpers the activities share find their
// logger and metrics handler in a background context too: the activity's
// own in an activity, else what WithBackground put there, else none.

type backgroundKey struct{}

type background struct {
	logger  log.Logger
	metrics client.MetricsHandler
}

// WithBackground gives work that runs outside any activity the worker's
// logger and metrics handler.
func WithBackground(ctx context.Context, logger log.Logger, handler client.MetricsHandler) context.Context {
	return context.WithValue(ctx, backgroundKey{}, background{logger: logger, metrics: handler})
}

func metricsOf(ctx context.Context) client.MetricsHandler {
	if activity.IsActivity(ctx) {
		return activity.GetMetricsHandler(ctx)
	}
	if b, ok := ctx.Value(backgroundKey{}).(background); ok && b.metrics != nil {
		return b.metrics
	}
	return client.MetricsNopHandler
}

func loggerOf(ctx context.Context) log.Logger {
	if activity.IsActivity(ctx) {
		return activity.GetLogger(ctx)
	}
	if b, ok := ctx.Value(backgroundKey{}).(background); ok && b.logger != nil {
		return b.logger
	}
	return log.NewStructuredLogger(slog.New(slog.DiscardHandler))
}

// heartbeat records progress when ctx is an activity's; outside one no one
// is waiting for it.
func heartbeat(ctx context.Context, details ...any) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, details...)
	}
}
