package bench

import (
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

const apiServerBefore = `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",resource="configmaps",verb="PUT"} 10
apiserver_request_total{code="409",resource="configmaps",verb="PUT"} 1
apiserver_request_total{code="409",resource="secrets",verb="PUT"} 5
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.005"} 10
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.025"} 11
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="+Inf"} 11
apiserver_request_duration_seconds_sum{resource="configmaps",verb="PUT"} 0.1
apiserver_request_duration_seconds_count{resource="configmaps",verb="PUT"} 11
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="GET",le="+Inf"} 4
apiserver_request_duration_seconds_sum{resource="configmaps",verb="GET"} 0.01
apiserver_request_duration_seconds_count{resource="configmaps",verb="GET"} 4
`

const apiServerAfter = `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",resource="configmaps",verb="PUT"} 30
apiserver_request_total{code="409",resource="configmaps",verb="PUT"} 5
apiserver_request_total{code="409",resource="secrets",verb="PUT"} 50
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.005"} 33
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="0.025"} 35
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="PUT",le="+Inf"} 35
apiserver_request_duration_seconds_sum{resource="configmaps",verb="PUT"} 0.22
apiserver_request_duration_seconds_count{resource="configmaps",verb="PUT"} 35
apiserver_request_duration_seconds_bucket{resource="configmaps",verb="GET",le="+Inf"} 4
apiserver_request_duration_seconds_sum{resource="configmaps",verb="GET"} 0.01
apiserver_request_duration_seconds_count{resource="configmaps",verb="GET"} 4
apiserver_request_duration_seconds_bucket{resource="secrets",verb="PUT",le="+Inf"} 100
apiserver_request_duration_seconds_sum{resource="secrets",verb="PUT"} 9
apiserver_request_duration_seconds_count{resource="secrets",verb="PUT"} 100
`

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
	steps := counts(apiServerAfter).since(counts(apiServerBefore)).steps(8)
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
