package worker

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runbookSections are the anchors of docs/runbook.md's level-2 headings,
// one per alert, as GitHub renders them (lower case; the alert names have
// nothing else to escape).
func runbookSections(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../docs/runbook.md")
	require.NoError(t, err)
	defer f.Close()
	sections := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if heading, ok := strings.CutPrefix(lines.Text(), "## "); ok {
			sections[strings.ToLower(strings.TrimSpace(heading))] = heading
		}
	}
	require.NoError(t, lines.Err())
	return sections
}

var runbookURL = regexp.MustCompile(`^https://\S+/docs/runbook\.md#([a-z0-9-]+)$`)

// Every alert links its own section of the runbook, and every section of
// the runbook is an alert's: an on-call engineer paged by any rule lands
// on what to do, and the runbook describes no alert that does not exist.
func TestAlertsHaveRunbookSections(t *testing.T) {
	sections := runbookSections(t)
	linked := map[string]bool{}
	for _, r := range alertRules(t) {
		m := runbookURL.FindStringSubmatch(r.Annotations["runbook_url"])
		if !assert.NotNil(t, m, "alert %s: runbook_url %q is not a docs/runbook.md anchor", r.Alert, r.Annotations["runbook_url"]) {
			continue
		}
		anchor := m[1]
		assert.Equal(t, strings.ToLower(r.Alert), anchor, "alert %s links another alert's section", r.Alert)
		_, ok := sections[anchor]
		assert.True(t, ok, "alert %s: docs/runbook.md has no section %q", r.Alert, anchor)
		linked[anchor] = true
		assert.NotEmpty(t, r.Annotations["summary"], "alert %s has a summary", r.Alert)
		assert.Contains(t, []string{"page", "ticket"}, r.Labels["severity"], "alert %s has a severity", r.Alert)
	}
	for anchor, heading := range sections {
		assert.True(t, linked[anchor], "docs/runbook.md section %q belongs to no alert", heading)
	}
}

// Every alert aggregates by namespace (the Kubernetes namespace
// Prometheus gives the scraped pods) and temporal_namespace, and by
// cluster where its series carry one: one alert per deployment (and
// cluster), never one that folds them together or one per worker that
// repeats the same news. A series of another program (Flink's) has no
// Temporal namespace: by namespace. The dead-man rule's absent() is the
// exception: it fires when there is nothing left to aggregate.
func TestAlertsAggregateByNamespace(t *testing.T) {
	exported := exportedSeries()
	for _, r := range alertRules(t) {
		e, err := promql.ParseExpr(r.Expr)
		require.NoError(t, err, r.Alert)
		for _, problem := range aggregationProblems(e, exported) {
			t.Errorf("alert %s: %s: %s", r.Alert, r.Expr, problem)
		}
	}
}

// aggregationProblems says which selectors of e reach the alert without
// an aggregation by namespace (and cluster, where their series carry it)
// or absent() around them.
func aggregationProblems(e parser.Expr, exported map[string]seriesLabels) []string {
	var problems []string
	parser.Inspect(e, func(node parser.Node, path []parser.Node) error {
		s, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		want := []string{"namespace", LabelTemporalNamespace}
		if _, ok := externalSeries[s.Name]; ok {
			want = want[:1]
		}
		if _, ok := exported[s.Name]["cluster"]; ok {
			want = append(want, "cluster")
		}
		for _, p := range path {
			switch n := p.(type) {
			case *parser.Call:
				if n.Func.Name == "absent" {
					return nil
				}
			case *parser.AggregateExpr:
				if n.Without {
					problems = append(problems, fmt.Sprintf("%s aggregates without, not by", s))
					return nil
				}
				for _, l := range want {
					if !slices.Contains(n.Grouping, l) {
						problems = append(problems, fmt.Sprintf("%s is aggregated without grouping by %s", s, l))
					}
				}
				return nil
			}
		}
		problems = append(problems, fmt.Sprintf("%s is not aggregated by namespace", s))
		return nil
	})
	return problems
}

// The aggregation check refuses what the rules once were.
func TestAggregationCheckRefuses(t *testing.T) {
	exported := exportedSeries()
	for expr, want := range map[string]string{
		`max(finalizer_verifying{older_than="5m"}) > 0`:                                                               "without grouping by namespace",
		`max by (namespace) (finalizer_verifying{older_than="5m"}) > 0`:                                               "without grouping by temporal_namespace",
		`finalizer_store_up == 0`:                                                                                     "not aggregated by namespace",
		`sum without (instance) (rate(finalizer_discards_total[5m]))`:                                                 "aggregates without",
		`sum by (namespace, temporal_namespace) (increase(finalizer_reconcile_findings_total{kind="error"}[1h])) > 0`: "without grouping by cluster",
	} {
		e, err := promql.ParseExpr(expr)
		require.NoError(t, err)
		problems := aggregationProblems(e, exported)
		if assert.NotEmpty(t, problems, expr) {
			assert.Contains(t, problems[0], want, expr)
		}
	}
	e, err := promql.ParseExpr(`absent(finalizer_build_info)`)
	require.NoError(t, err)
	assert.Empty(t, aggregationProblems(e, exported))
}
