package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func scrapeText(t *testing.T, text string) families {
	t.Helper()
	f, err := parseFamilies(strings.NewReader(text))
	require.NoError(t, err)
	return f
}

// apiServer is a kube-apiserver scrape: the ConfigMap PUTs (ok, 409,
// those at or below 5 and 25 ms, and their summed seconds), 4 GETs that
// never move, and Secret series (409s, durations) that move but must not
// count.
func apiServer(ok, conflicts, within5ms, within25ms int, seconds float64) string {
	puts := ok + conflicts
	return fmt.Sprintf(`# TYPE apiserver_request_total counter
apiserver_request_total{code="200",resource="configmaps",verb="PUT"} %d
apiserver_request_total{code="409",resource="configmaps",verb="PUT"} %d
apiserver_request_total{code="409",resource="secrets",verb="PUT"} %d
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.005"} %d
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.025"} %d
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="+Inf"} %d
apiserver_request_duration_seconds_sum{resource="configmaps",verb="PUT"} %g
apiserver_request_duration_seconds_count{resource="configmaps",verb="PUT"} %d
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="GET",le="+Inf"} 4
apiserver_request_duration_seconds_sum{resource="configmaps",verb="GET"} 0.01
apiserver_request_duration_seconds_count{resource="configmaps",verb="GET"} 4
apiserver_request_duration_seconds_bucket{resource="secrets",verb="PUT",le="+Inf"} %d
apiserver_request_duration_seconds_sum{resource="secrets",verb="PUT"} %d
apiserver_request_duration_seconds_count{resource="secrets",verb="PUT"} %d
`, ok, conflicts, 10*puts, within5ms, within25ms, puts, seconds, puts, 10*puts, puts, 10*puts)
}

// The steps of a run are what changed over it, per finalization, of the
// series that match: ConfigMaps only, a step that did not move left out;
// the p99 bound is the first bucket of the run's own observations that
// holds 99% of them (23 of 24 fall at or below 5 ms: not enough).
func TestStepsAreTheRunsDeltaPerFinalization(t *testing.T) {
	counts := func(text string) stepCounts {
		c := stepCounts{}
		c.addKube(scrapeText(t, text))
		return c
	}
	steps := counts(apiServer(30, 5, 33, 35, 0.22)).since(counts(apiServer(10, 1, 10, 11, 0.1))).steps(8)
	require.Len(t, steps, 2, "GET did not move: %+v", steps)
	assert.Equal(t, Step{Name: "PUT configmaps", PerFinalization: 3, Mean: 5 * time.Millisecond, P99: 25 * time.Millisecond, Max: 25 * time.Millisecond}, steps[0])
	assert.Equal(t, Step{Name: conflictStep, PerFinalization: 0.5}, steps[1])
}

func TestMedianStepsOverRepetitions(t *testing.T) {
	runs := []Result{
		{Steps: []Step{{Name: "Publish", PerFinalization: 1, Mean: 9 * time.Millisecond}}},
		{Steps: []Step{{Name: "Publish", PerFinalization: 1, Mean: 3 * time.Millisecond}, {Name: conflictStep, PerFinalization: 0.3}}},
		{Steps: []Step{{Name: "Publish", PerFinalization: 1, Mean: 5 * time.Millisecond}}},
	}
	assert.Equal(t, []Step{
		{Name: conflictStep, PerFinalization: 0},
		{Name: "Publish", PerFinalization: 1, Mean: 5 * time.Millisecond},
	}, medianSteps(runs))
}
