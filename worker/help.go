package worker

import (
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/workflows"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// metricHelp is the # HELP text of each metric emitted through the SDK's
// metrics handler. The handler creates its instruments by name alone, so
// without a view saying what they are Prometheus would serve them with an
// empty HELP; the collectors registered directly (build info, store up)
// carry their own.
var metricHelp = map[string]string{
	workflows.MetricFinalizations: "Finalizations ended, by outcome (the terminal phase: Published, Discarded, Abandoned, Failed).",
	workflows.MetricFinalizationLatency: "Seconds from a finalization's trigger (its execution's start) to its outcome, " +
		"by outcome and store (none: ended before it reached a store).",
	activities.MetricStoreCalls: "Calls to the HA reference store by operation and outcome (Published: done, Rejected: " +
		"definitely not done, Unknown: may have landed).",
	activities.MetricVerdicts: "Verify verdicts after an ambiguous publish: Present, Absent (fenced: it can never land), Unknown.",
	activities.MetricDiscards: "Checkpoint directories discarded by finalizations (their state deleted from the bucket).",
	MetricVerifying: "Finalizations of the namespace parked in Verifying for longer than older_than, read from " +
		"Temporal visibility; every worker of a namespace reports the same numbers.",
	MetricStuck: "Finalizations and subsumptions of the namespace in one running phase (Persisting, Publishing, Verifying, " +
		"Discarding, Subsuming) for longer than older_than, read from Temporal visibility; every worker of a namespace " +
		"reports the same numbers.",
	MetricRetirementsStuck: "Retirements of the namespace running for longer than older_than (their store, or the " +
		"bucket of one that discards, keeps failing), read from Temporal visibility; every worker of a namespace " +
		"reports the same numbers.",
	reconcile.MetricFindings: "Reconciler findings by kind: dangling, orphan, orphan_kept, in_flight, tombstone, foreign, " +
		"error (an item a run could not settle).",
	reconcile.MetricActions: "What reconciler runs with --apply changed, by action: quarantined, discarded, tombstones_collected.",
}

// helpViews gives each metric of metricHelp its description.
func helpViews() []sdkmetric.View {
	views := make([]sdkmetric.View, 0, len(metricHelp))
	for name, help := range metricHelp {
		views = append(views, sdkmetric.NewView(sdkmetric.Instrument{Name: name}, sdkmetric.Stream{Description: help}))
	}
	return views
}
