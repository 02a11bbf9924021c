package worker

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dashboard is what the checks read of deploy/grafana/finalizer.json.
type dashboard struct {
	Templating struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Datasource *datasourceRef  `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title       string         `json:"title"`
		Type        string         `json:"type"`
		Datasource  *datasourceRef `json:"datasource"`
		FieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
		} `json:"fieldConfig"`
		Targets []struct {
			Expr       string         `json:"expr"`
			Datasource *datasourceRef `json:"datasource"`
		} `json:"targets"`
	} `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// grafanaVariables are the dashboard's template variables as Grafana
// substitutes them when every namespace is selected: what the checks of
// the queries against the worker's series see.
var grafanaVariables = strings.NewReplacer(`$temporal_namespace`, `.+`, `$namespace`, `.*`)

// The dashboard imports into any Grafana: it asks which Prometheus to
// query (a datasource variable every panel and query uses, never a
// datasource of the machine it was made on) and which namespaces to show
// (a namespace variable every selector filters by), and its latency panels
// say their unit, seconds.
func TestDashboardVariablesAndUnits(t *testing.T) {
	b, err := os.ReadFile("../deploy/grafana/finalizer.json")
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(b, &d))

	vars := map[string]int{}
	for i, v := range d.Templating.List {
		vars[v.Name] = i
	}
	require.Contains(t, vars, "datasource", "a datasource variable")
	ds := d.Templating.List[vars["datasource"]]
	assert.Equal(t, "datasource", ds.Type)
	assert.JSONEq(t, `"prometheus"`, string(ds.Query), "it lists Prometheus datasources")
	// The Kubernetes namespace (Prometheus's discovery label) and the
	// Temporal namespace (the worker's own).
	for name, query := range map[string]string{
		"namespace":            `label_values(finalizer_build_info, namespace)`,
		LabelTemporalNamespace: `label_values(finalizer_build_info{namespace=~\"$namespace\"}, temporal_namespace)`,
	} {
		require.Contains(t, vars, name, "a %s variable", name)
		ns := d.Templating.List[vars[name]]
		assert.Equal(t, "query", ns.Type)
		if assert.NotNil(t, ns.Datasource) {
			assert.Equal(t, "${datasource}", ns.Datasource.UID, "the %s variable queries the chosen datasource", name)
		}
		assert.Contains(t, string(ns.Query), query)
	}

	for _, p := range d.Panels {
		if assert.NotNil(t, p.Datasource, "panel %q names its datasource", p.Title) {
			assert.Equal(t, "${datasource}", p.Datasource.UID, "panel %q queries the chosen datasource", p.Title)
		}
		latency := false
		for _, target := range p.Targets {
			if target.Datasource != nil {
				assert.Equal(t, "${datasource}", target.Datasource.UID, "panel %q: a target queries another datasource", p.Title)
			}
			e, err := promql.ParseExpr(target.Expr)
			require.NoError(t, err, "panel %q", p.Title)
			for _, s := range selectors(e) {
				assert.Truef(t, hasMatcher(s.LabelMatchers, "namespace", labels.MatchRegexp, "$namespace"),
					"panel %q: %s filters by the namespace variable", p.Title, s)
				assert.Truef(t, hasMatcher(s.LabelMatchers, LabelTemporalNamespace, labels.MatchRegexp, "$temporal_namespace"),
					"panel %q: %s filters by the temporal_namespace variable", p.Title, s)
			}
			latency = latency || strings.Contains(target.Expr, "_seconds")
		}
		if latency {
			assert.Equal(t, "s", p.FieldConfig.Defaults.Unit, "latency panel %q is in seconds", p.Title)
		} else if p.Type == "timeseries" {
			assert.NotEmpty(t, p.FieldConfig.Defaults.Unit, "panel %q says its unit", p.Title)
		}
	}
}

func hasMatcher(ms []*labels.Matcher, name string, typ labels.MatchType, value string) bool {
	for _, m := range ms {
		if m.Name == name && m.Type == typ && m.Value == value {
			return true
		}
	}
	return false
}
