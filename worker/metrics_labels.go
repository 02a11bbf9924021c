package worker

import "go.temporal.io/sdk/client"

// LabelTemporalNamespace is the label carrying the Temporal namespace on
// every series the worker exports. Not "namespace": Prometheus's
// Kubernetes discovery (a ServiceMonitor's) gives every scraped series the
// pod's Kubernetes namespace under that name, and a series carrying its
// own would either lose it or, with honorLabels, hide the pod's.
const LabelTemporalNamespace = "temporal_namespace"

// temporalNamespaceTags renames the Temporal SDK's "namespace" tag (it
// tags its own metrics and the handlers it passes to workflows and
// activities with the namespace) to LabelTemporalNamespace, for every
// handler derived from it.
type temporalNamespaceTags struct {
	client.MetricsHandler
}

func (h temporalNamespaceTags) WithTags(tags map[string]string) client.MetricsHandler {
	if ns, ok := tags["namespace"]; ok {
		renamed := make(map[string]string, len(tags))
		for k, v := range tags {
			renamed[k] = v
		}
		delete(renamed, "namespace")
		renamed[LabelTemporalNamespace] = ns
		tags = renamed
	}
	return temporalNamespaceTags{h.MetricsHandler.WithTags(tags)}
}
