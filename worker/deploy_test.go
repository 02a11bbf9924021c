package worker

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// series matches the finalizer's series in a PromQL expression.
var series = regexp.MustCompile(`\bfinalizer_[a-z_]+\b`)

// deployedSeries are the finalizer series the alert rules and the Grafana
// dashboard in deploy/ query.
func deployedSeries(t *testing.T) []string {
	t.Helper()
	var exprs []string

	b, err := os.ReadFile("../deploy/prometheus/alerts.yaml")
	require.NoError(t, err)
	var rules struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, yaml.UnmarshalStrict(b, &rules))
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			require.NotEmpty(t, r.Expr, "alert %s has an expression", r.Alert)
			exprs = append(exprs, r.Expr)
		}
	}

	b, err = os.ReadFile("../deploy/grafana/finalizer.json")
	require.NoError(t, err)
	var dashboard struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(b, &dashboard))
	for _, p := range dashboard.Panels {
		require.NotEmpty(t, p.Targets, "panel %q queries something", p.Title)
		for _, target := range p.Targets {
			exprs = append(exprs, target.Expr)
		}
	}

	seen := map[string]bool{}
	for _, e := range exprs {
		for _, name := range series.FindAllString(e, -1) {
			seen[name] = true
		}
	}
	var out []string
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	require.NotEmpty(t, out)
	return out
}
