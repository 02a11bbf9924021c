package charttest

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
