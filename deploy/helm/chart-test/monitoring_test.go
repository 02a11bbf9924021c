package charttest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// alertsFile is the rule file that worker/deploy_test.go checks against
// the series the worker exports; the chart ships a copy (Helm reads only
// files inside the chart).
const alertsFile = "../../prometheus/alerts.yaml"

// The chart's copy of the alert rules is the checked file, byte for byte,
// and the PrometheusRule carries its groups unchanged: Prometheus's own
// {{ $value }} templates are not executed by Helm.
func TestPrometheusRuleIsTheAlertsFile(t *testing.T) {
	want, err := os.ReadFile(alertsFile)
	require.NoError(t, err)
	got, err := os.ReadFile("../finalizer/files/alerts.yaml")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "deploy/helm/finalizer/files/alerts.yaml is a copy of %s: cp it", alertsFile)

	var rules map[string]any
	require.NoError(t, yaml.Unmarshal(want, &rules))
	objs := mustRender(t, valueSets()[2].values(t))
	rule := find(t, objs, "PrometheusRule")
	assert.Equal(t, rules, rule.Object["spec"], "the PrometheusRule's spec is the rule file")
	assert.Equal(t, "prometheus", rule.GetLabels()["release"], "prometheusRule.labels select the Prometheus")
	assert.Equal(t, "prometheus", find(t, objs, "ServiceMonitor").GetLabels()["release"], "serviceMonitor.labels")
}

// prometheusRule.disabled leaves alerts out (and refuses a name that is no
// alert), runbookBaseURL moves every runbook link, and the result is still
// what the API server accepts.
func TestPrometheusRuleValues(t *testing.T) {
	base := bucket + "store: {kind: zookeeper, zookeeper: {servers: [\"zk:2181\"]}}\n"
	objs := mustRender(t, parseValues(t, base+`
prometheusRule:
  enabled: true
  runbookBaseURL: https://wiki.example/ops/finalizer-runbook/
  disabled: [FlinkCheckpointsFailing, FinalizationSlow]
`))
	rule := find(t, objs, "PrometheusRule")
	var spec struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rule.Object["spec"].(map[string]any), &spec))
	require.Len(t, spec.Groups, 1)
	var alerts []string
	for _, r := range spec.Groups[0].Rules {
		alerts = append(alerts, r.Alert)
		assert.Equal(t, "https://wiki.example/ops/finalizer-runbook#"+strings.ToLower(r.Alert), r.Annotations["runbook_url"])
	}
	assert.Contains(t, alerts, "FinalizationStuckInVerifying")
	assert.NotContains(t, alerts, "FlinkCheckpointsFailing")
	assert.NotContains(t, alerts, "FinalizationSlow")
	require.NoError(t, connect(t).apply(ctxT(t), rule, false))

	_, err := renderChart(parseValues(t, base+"prometheusRule: {enabled: true, disabled: [FinalizationTooSlow]}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "prometheusRule.disabled[0]: FinalizationTooSlow is no alert")
	_, err = renderChart(parseValues(t, base+"prometheusRule: {enabled: true, runbookBaseURL: wiki/runbook}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/prometheusRule/runbookBaseURL")
}
