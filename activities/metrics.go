package activities

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Metric names, emitted through the SDK's metrics handler so that they reach
// whatever the worker exports (Prometheus).
const (
	MetricStoreCalls = "finalizer_store_calls"
	MetricVerdicts   = "finalizer_verify_verdicts"
	MetricDiscards   = "finalizer_discards"
)

// CountStoreCall counts one store call by operation and outcome
// (MetricStoreCalls), for the reconciler's activities too.
func CountStoreCall(ctx context.Context, op string, o stores.Outcome) {
	metricsOf(ctx).WithTags(map[string]string{"op": op, "outcome": o.String()}).Counter(MetricStoreCalls).Inc(1)
}
