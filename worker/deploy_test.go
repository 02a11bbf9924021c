package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
	"github.com/checkpoint-finalizer/finalizer/workflows"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// promql parses the expressions of deploy/ as Prometheus does (no
// experimental features).
var promql = parser.NewParser(parser.Options{})

// seriesLabels are the labels one exported series carries: each label's
// fixed values, or nil where the value is free (a build, a bucket bound).
type seriesLabels map[string][]string

// targetLabels are the labels Prometheus adds to every scraped series:
// with Kubernetes discovery (a ServiceMonitor's) the pod's namespace too.
var targetLabels = []string{"instance", "job", "namespace"}

// externalSeries are series of other programs that the rules watch beside
// the worker's: Flink's job manager's (its Prometheus reporter), with the
// labels it sets. They are checked for their labels and their
// aggregation, never against what a worker serves.
var externalSeries = map[string]seriesLabels{
	"flink_jobmanager_job_numberOfFailedCheckpoints": {"job_id": nil, "job_name": nil, "host": nil},
}

// sdkServed are the prefixes of the Temporal SDK's families the rules
// watch: checkScrape takes them from a real worker's /metrics as it does
// the finalizer_ families.
var sdkServed = []string{"temporal_workflow_task_schedule_to_start_latency_seconds", "temporal_activity_schedule_to_start_latency_seconds"}

// exportedSeries is every finalizer series the worker exports, with its
// labels and, where the worker has a fixed set, their values, taken from the
// code that emits them. TestVerifyingGauge checks it against what a real
// worker's /metrics serves.
func exportedSeries() map[string]seriesLabels {
	var terminal []string
	for _, p := range []contract.Phase{contract.Persisting, contract.Publishing, contract.Verifying, contract.Published,
		contract.Discarding, contract.Discarded, contract.Abandoned, contract.Failed} {
		if p.Terminal() {
			terminal = append(terminal, string(p))
		}
	}
	kinds := []string{string(StoreEmbedded), string(StoreZooKeeper), string(StoreKubernetes)}
	var ages []string
	for _, a := range verifyingAges {
		ages = append(ages, ageLabel(a))
	}
	outcomes := []string{stores.Published.String(), stores.Rejected.String(), stores.Unknown.String()}
	// The op of each count() call in package activities.
	ops := []string{"claim", "collect", "publish", "quarantine", "read", "retire", "subsume", "verify"}
	latency := seriesLabels{"outcome": terminal, "store": append(slices.Clone(kinds), "none")}
	// The series workflows and activities emit through the SDK's metrics
	// handler carry the SDK's tags too.
	sdk := func(l seriesLabels) seriesLabels {
		out := seriesLabels{"activity_type": nil, "client_name": nil, LabelTemporalNamespace: nil, "task_queue": nil, "worker_type": nil, "workflow_type": nil}
		for k, v := range l {
			out[k] = v
		}
		return out
	}
	bucket := sdk(latency)
	bucket["le"] = nil
	// The SDK's schedule-to-start timers: how long a task of the queue
	// waited for a poller.
	scheduleToStart := sdk(seriesLabels{"le": nil})
	return map[string]seriesLabels{
		sdkServed[0] + "_bucket":                                scheduleToStart,
		sdkServed[1] + "_bucket":                                scheduleToStart,
		workflows.MetricFinalizations + "_total":                sdk(seriesLabels{"outcome": terminal}),
		workflows.MetricFinalizationLatency + "_seconds_bucket": bucket,
		workflows.MetricFinalizationLatency + "_seconds_sum":    sdk(latency),
		workflows.MetricFinalizationLatency + "_seconds_count":  sdk(latency),
		activities.MetricStoreCalls + "_total":                  sdk(seriesLabels{"op": ops, "outcome": outcomes}),
		activities.MetricVerdicts + "_total":                    sdk(seriesLabels{"verdict": {stores.Present.String(), stores.Absent.String(), stores.VerdictUnknown.String()}}),
		activities.MetricDiscards + "_total":                    sdk(seriesLabels{}),
		MetricVerifying:                                         {"older_than": ages, LabelTemporalNamespace: nil},
		MetricStuck:                                             {"older_than": ages, LabelTemporalNamespace: nil},
		MetricRetirementsStuck:                                  {"older_than": ages, LabelTemporalNamespace: nil},
		MetricBuildInfo:                                         {"version": nil, "revision": nil, "go": nil, LabelTemporalNamespace: nil},
		MetricStoreUp:                                           {"store": kinds, LabelTemporalNamespace: nil},
		MetricZooKeeperSession:                                  {"store": {string(StoreZooKeeper)}, "state": zookeeper.SessionStates(), LabelTemporalNamespace: nil},
		reconcile.MetricFindings + "_total": sdk(seriesLabels{"cluster": nil,
			"kind": {"dangling", "orphan", "orphan_kept", "in_flight", "tombstone", "foreign", "error"}}),
		reconcile.MetricActions + "_total": sdk(seriesLabels{"cluster": nil,
			"action": {"quarantined", "discarded", "tombstones_collected"}}),
	}
}

// alertRule is one rule of deploy/prometheus/alerts.yaml.
type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// alertRules reads deploy/prometheus/alerts.yaml strictly: a misspelt
// field fails.
func alertRules(t *testing.T) []alertRule {
	t.Helper()
	b, err := os.ReadFile("../deploy/prometheus/alerts.yaml")
	require.NoError(t, err)
	var file struct {
		Groups []struct {
			Name  string      `json:"name"`
			Rules []alertRule `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, yaml.UnmarshalStrict(b, &file))
	var rules []alertRule
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			require.NotEmpty(t, r.Expr, "alert %s has an expression", r.Alert)
			rules = append(rules, r)
		}
	}
	require.NotEmpty(t, rules)
	return rules
}

// deployedExprs are the PromQL expressions of the alert rules and the
// Grafana dashboard in deploy/, each named by where it is.
func deployedExprs(t *testing.T) map[string]string {
	t.Helper()
	exprs := map[string]string{}

	for _, r := range alertRules(t) {
		exprs["alerts.yaml: alert "+r.Alert] = r.Expr
	}

	b, err := os.ReadFile("../deploy/grafana/finalizer.json")
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
		for i, target := range p.Targets {
			exprs[fmt.Sprintf("finalizer.json: panel %q target %d", p.Title, i)] = grafanaVariables.Replace(target.Expr)
		}
	}
	require.NotEmpty(t, exprs)
	return exprs
}

// checkExpr parses expr and returns what is wrong with it against the
// exported series: a parse error; a selector naming a series the worker
// does not export, a label it does not carry or a value the worker never
// sets; a by/without naming a label none of the aggregated series carry.
func checkExpr(expr string, exported map[string]seriesLabels) []error {
	e, err := promql.ParseExpr(expr)
	if err != nil {
		return []error{err}
	}
	var errs []error
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			errs = append(errs, checkSelector(n, exported)...)
		case *parser.AggregateExpr:
			have := map[string]bool{}
			for _, l := range targetLabels {
				have[l] = true
			}
			for _, sel := range selectors(n.Expr) {
				for l := range exported[sel.Name] {
					have[l] = true
				}
				for l := range externalSeries[sel.Name] {
					have[l] = true
				}
			}
			for _, l := range n.Grouping {
				if !have[l] {
					errs = append(errs, fmt.Errorf("%s groups by %q, which none of its series carry", n.Op, l))
				}
			}
		}
		return nil
	})
	return errs
}

func checkSelector(s *parser.VectorSelector, exported map[string]seriesLabels) []error {
	if s.Name == "" {
		return []error{fmt.Errorf("%s names no series", s)}
	}
	carried, ok := exported[s.Name]
	if !ok {
		carried, ok = externalSeries[s.Name]
	}
	if !ok {
		return []error{fmt.Errorf("%s: the worker exports no series %s", s, s.Name)}
	}
	var errs []error
	for _, m := range s.LabelMatchers {
		if m.Name == model.MetricNameLabel || slices.Contains(targetLabels, m.Name) {
			continue
		}
		values, ok := carried[m.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: %s carries no label %q", s, s.Name, m.Name))
		case values != nil && !slices.ContainsFunc(values, m.Matches):
			errs = append(errs, fmt.Errorf("%s: %s matches none of the values the worker sets on %s (%s)",
				s, m, m.Name, strings.Join(values, ", ")))
		}
	}
	return errs
}

func selectors(e parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if s, ok := node.(*parser.VectorSelector); ok {
			out = append(out, s)
		}
		return nil
	})
	return out
}

// Every expression of deploy/ parses, and names only series, labels and
// label values the worker exports.
func TestDeployedQueriesNameExportedSeries(t *testing.T) {
	exported := exportedSeries()
	for where, expr := range deployedExprs(t) {
		for _, err := range checkExpr(expr, exported) {
			t.Errorf("%s: %s: %v", where, expr, err)
		}
	}
}

// The check refuses what a typo in deploy/ would bring.
func TestCheckExprRefuses(t *testing.T) {
	exported := exportedSeries()
	for expr, want := range map[string]string{
		`max(finalizer_verifying{older_than="5m"} > 0`:                               "unclosed left parenthesis",
		`sum(rate(finalizer_finalizations_total{outcome="Published"}[5m])`:           "unclosed left parenthesis",
		`max(finalizer_verifying{older_than="10m"}) > 0`:                             `older_than="10m" matches none of the values the worker sets on older_than (0s, 1m, 5m, 1h)`,
		`sum(rate(finalizer_finalizations_total{outcome="published"}[15m]))`:         `outcome="published" matches none`,
		`sum(rate(finalizer_store_calls_total{op="Verify"}[10m]))`:                   `op="Verify" matches none`,
		`sum(rate(finalizer_finalizations_total{phase="Discarded"}[15m]))`:           `carries no label "phase"`,
		`finalizer_store_up{store=~"zk.*"} == 0`:                                     `store=~"zk.*" matches none`,
		`sum(rate(finalizer_finalization_total[5m]))`:                                "the worker exports no series finalizer_finalization_total",
		`max by (age) (finalizer_verifying)`:                                         `groups by "age"`,
		`histogram_quantile(0.99, sum by (le) (rate(finalizer_discards_total[5m])))`: `groups by "le"`,
	} {
		errs := checkExpr(expr, exported)
		if assert.NotEmpty(t, errs, "%s passes the check", expr) {
			assert.ErrorContains(t, errs[0], want, expr)
		}
	}
	for _, expr := range []string{
		`max(finalizer_verifying{older_than=~"5m|1h"}) > 0`,
		`min by (instance, store) (finalizer_store_up{job="finalizer"})`,
	} {
		assert.Empty(t, checkExpr(expr, exported), expr)
	}
}

// checkScrape checks a real worker's /metrics against exportedSeries (each
// finalizer series it serves is listed there, with only the labels and
// values listed) and against deploy/ (each selector there selects at least
// one of the series served, so the names and label values are real).
func checkScrape(t *testing.T, exposition string) {
	t.Helper()
	checkHelp(t, exposition)
	exported := exportedSeries()
	var served []labels.Labels
	for _, line := range strings.Split(exposition, "\n") {
		if !strings.HasPrefix(line, "finalizer_") && !slices.ContainsFunc(sdkServed, func(p string) bool { return strings.HasPrefix(line, p+"_bucket") }) {
			continue
		}
		metric, err := promql.ParseMetric(line[:strings.LastIndexByte(line, ' ')])
		require.NoError(t, err, line)
		served = append(served, metric)
		name := metric.Get(model.MetricNameLabel)
		carried, ok := exported[name]
		if !assert.True(t, ok, "the worker serves %s, which exportedSeries does not list", name) || carried == nil {
			continue
		}
		metric.Range(func(l labels.Label) {
			if l.Name == model.MetricNameLabel {
				return
			}
			values, ok := carried[l.Name]
			assert.True(t, ok, "%s carries %s, which exportedSeries does not list", name, l.Name)
			if values != nil {
				assert.Contains(t, values, l.Value, "%s{%s}: a value exportedSeries does not list", name, l.Name)
			}
		})
	}
	for where, expr := range deployedExprs(t) {
		e, err := promql.ParseExpr(expr)
		require.NoError(t, err, where)
		checkGroupingServed(t, where, e, served)
		for _, s := range selectors(e) {
			if _, ok := externalSeries[s.Name]; ok {
				continue
			}
			assert.True(t, slices.ContainsFunc(served, func(m labels.Labels) bool {
				for _, matcher := range s.LabelMatchers {
					if !slices.Contains(targetLabels, matcher.Name) && !matcher.Matches(m.Get(matcher.Name)) {
						return false
					}
				}
				return true
			}), "%s: %s selects none of the series the worker served", where, s)
		}
	}
}

// checkHelp checks that every finalizer family served says what it is in
// its # HELP line: what an operator reads in Prometheus's and Grafana's
// metric explorers.
func checkHelp(t *testing.T, exposition string) {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(exposition))
	require.NoError(t, err)
	var checked int
	for name, f := range families {
		if strings.HasPrefix(name, "finalizer_") {
			checked++
			assert.NotEmpty(t, strings.TrimSpace(f.GetHelp()), "%s has no # HELP text", name)
		}
	}
	require.NotZero(t, checked, "the worker served finalizer families")
}

// checkGroupingServed checks that each label an aggregation of e groups by
// (beside the labels Prometheus adds) is carried by a served series of
// that aggregation: a by (namespace) over series without the label would
// fold every namespace into one.
func checkGroupingServed(t *testing.T, where string, e parser.Expr, served []labels.Labels) {
	t.Helper()
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		agg, ok := node.(*parser.AggregateExpr)
		if !ok || agg.Without {
			return nil
		}
		for _, l := range agg.Grouping {
			if slices.Contains(targetLabels, l) || l == model.BucketLabel {
				continue
			}
			for _, s := range selectors(agg.Expr) {
				if _, ok := externalSeries[s.Name]; ok {
					continue
				}
				assert.True(t, slices.ContainsFunc(served, func(m labels.Labels) bool {
					return m.Get(model.MetricNameLabel) == s.Name && m.Has(l)
				}), "%s: %s groups by %q, which no served %s carries", where, agg.Op, l, s.Name)
			}
		}
		return nil
	})
}
