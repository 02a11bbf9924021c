package worker

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	finalizerclient "github.com/checkpoint-finalizer/finalizer/client"
)

// MetricVerifying is the number of the namespace's finalizations parked in
// Verifying for longer than the older_than label ("0s": all of them), read
// from visibility: what on-call alerts on. Every worker of a namespace
// reports the same numbers.
const MetricVerifying = "finalizer_verifying"

// MetricStuck is MetricVerifying for every running phase
// (client.StuckQuery): Persisting with a failing bucket counts as much as
// Verifying with a silent store.
const MetricStuck = "finalizer_stuck"

// MetricRetirementsStuck is the number of the namespace's retirements
// running for longer than older_than (client.StuckRetirementQuery): a
// retirement takes seconds unless its store, or for one that discards the
// retired state its bucket, keeps failing.
const MetricRetirementsStuck = "finalizer_retirements_stuck"

// phaseGauges are the gauges watchVerifying keeps, each with its
// visibility filter.
var phaseGauges = []struct {
	name  string
	query func(cutoff time.Time) string
}{
	{MetricVerifying, finalizerclient.VerifyingQuery},
	{MetricStuck, finalizerclient.StuckQuery},
	{MetricRetirementsStuck, finalizerclient.StuckRetirementQuery},
}

// verifyingAges are the older_than buckets of MetricVerifying.
var verifyingAges = []time.Duration{0, time.Minute, 5 * time.Minute, time.Hour}

// ageLabel is an older_than value as the alert rules write it: "0s",
// "1m", "5m", "1h" (time.Duration.String's "5m0s" with its zero units
// dropped).
func ageLabel(d time.Duration) string {
	s := d.String()
	if s != "0s" {
		s = strings.TrimSuffix(s, "0s")
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// verifyingEvery is how often the counts are read (a visibility count
// query per bucket).
const verifyingEvery = 30 * time.Second

// watchVerifying updates MetricVerifying, MetricStuck and
// MetricRetirementsStuck now and every
// verifyingEvery until ctx ends. A count that fails leaves the gauge as it
// was and is logged: visibility lagging is no reason to stop the worker.
func watchVerifying(ctx context.Context, c client.Client, namespace string, m client.MetricsHandler, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		now := time.Now()
		for _, g := range phaseGauges {
			for _, age := range verifyingAges {
				resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
					Namespace: namespace, Query: g.query(now.Add(-age)),
				})
				if err != nil {
					if ctx.Err() == nil {
						log.Warn("count finalizations", "gauge", g.name, "olderThan", age.String(), "error", err)
					}
					continue
				}
				m.WithTags(map[string]string{"older_than": ageLabel(age), LabelTemporalNamespace: namespace}).Gauge(g.name).Update(float64(resp.GetCount()))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
