package charttest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every object of every value set is accepted by the real API server with
// server-side dry-run and strict field validation, without a warning.
func TestChartAppliesServerSideDryRun(t *testing.T) {
	c := connect(t)
	for _, s := range valueSets() {
		t.Run(s.name, func(t *testing.T) {
			objs := mustRender(t, s.values(t))
			for _, obj := range objs {
				require.NoError(t, c.apply(ctxT(t), obj, false))
			}
			got := kinds(objs)
			for _, k := range append([]string{"ServiceAccount", "ConfigMap", "Deployment", "Service", "NetworkPolicy"}, s.kinds...) {
				assert.True(t, got[k], "the release has a %s", k)
			}
			assert.Len(t, got, 5+len(s.kinds), "no other kinds: %v", got)
			assert.Empty(t, c.warnings.take(), "the API server warned")
		})
	}
}

// The same apply refuses what a broken template would render: the dry-run
// above is not a test that cannot fail.
func TestBrokenObjectsAreRefused(t *testing.T) {
	c := connect(t)
	objs := mustRender(t, valueSets()[2].values(t))
	cases := []struct {
		name   string
		kind   string
		mutate func(o map[string]any)
		want   string
	}{
		{"unknown field in the pod template", "Deployment", func(o map[string]any) {
			c := container(o)
			c["startupProbe"].(map[string]any)["httpGet"].(map[string]any)["paht"] = "/livez"
		}, `startupProbe.httpGet.paht`},
		{"a resourceFieldRef divisor the API refuses", "Deployment", func(o map[string]any) {
			ref := container(o)["env"].([]any)[0].(map[string]any)["valueFrom"].(map[string]any)["resourceFieldRef"].(map[string]any)
			ref["divisor"] = "3Mi"
		}, `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported`},
		{"an alert duration outside the CRD's pattern", "PrometheusRule", func(o map[string]any) {
			group := o["spec"].(map[string]any)["groups"].([]any)[0].(map[string]any)
			group["rules"].([]any)[0].(map[string]any)["for"] = "5 minutes"
		}, `spec.groups[0].rules[0].for`},
		{"an unknown field in a rule", "PrometheusRule", func(o map[string]any) {
			group := o["spec"].(map[string]any)["groups"].([]any)[0].(map[string]any)
			group["rules"].([]any)[0].(map[string]any)["severity"] = "page"
		}, `spec.groups[0].rules[0].severity`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := find(t, objs, tc.kind).DeepCopy()
			tc.mutate(obj.Object)
			err := c.apply(ctxT(t), obj, false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			t.Log(err)
		})
	}
}

func container(deployment map[string]any) map[string]any {
	spec := deployment["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}
