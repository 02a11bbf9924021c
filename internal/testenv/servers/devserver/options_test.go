package devserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
)

func TestArgsHeadlessByDefault(t *testing.T) {
	args := strings.Join(Options{}.args("/tmp/x.db", ports{frontend: 7001}), " ")
	assert.Contains(t, args, "server start-dev --ip 127.0.0.1 --port 7001 --db-filename /tmp/x.db")
	assert.Contains(t, args, "--sqlite-pragma journal_mode=wal")
	assert.Contains(t, args, "--dynamic-config-value history.transferProcessorMaxPollRPS=1000")
	assert.Contains(t, args, "--log-level warn")
	assert.Contains(t, args, "--headless")
	assert.NotContains(t, args, "--ui-port")
	assert.NotContains(t, args, "--namespace")
}

func TestArgsUINamespaceSearchAttributes(t *testing.T) {
	opts := Options{
		Namespace:        "finalizer",
		SearchAttributes: map[string]string{"PhaseSince": "Datetime", "CheckpointEpoch": "Int"},
		ExtraArgs:        []string{"--dynamic-config-value", "x=1"},
	}
	args := strings.Join(opts.args("f.db", ports{frontend: 7001, ui: 8001}), " ")
	assert.Contains(t, args, "--ui-port 8001")
	assert.NotContains(t, args, "--headless")
	assert.Contains(t, args, "--namespace finalizer")
	// Sorted, so that a log line is comparable across runs.
	assert.Contains(t, args, "--search-attribute CheckpointEpoch=Int --search-attribute PhaseSince=Datetime")
	assert.True(t, strings.HasSuffix(args, "--dynamic-config-value x=1"))
}

func TestSearchAttributeTypes(t *testing.T) {
	types, err := Options{SearchAttributes: map[string]string{"A": "keyword", "B": "Datetime"}}.searchAttributeTypes()
	require.NoError(t, err)
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, types["A"])
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_DATETIME, types["B"])

	for _, bad := range []string{"Keywords", "Unspecified", ""} {
		_, err = Options{SearchAttributes: map[string]string{"A": bad}}.searchAttributeTypes()
		assert.Error(t, err, bad)
	}
}

func TestInstallProgressClassifiesLines(t *testing.T) {
	var out strings.Builder
	p := newInstallProgress(&out, time.Now())
	p.consume(strings.NewReader(strings.Join([]string{
		"go: downloading github.com/temporalio/cli v1.5.1",
		"go: downloading modernc.org/sqlite v1.34.1",
		"github.com/pkg/errors",
		"go.temporal.io/server/common/log",
		"# go.temporal.io/server/common/log",
		"common/log/x.go:1:2: undefined: y",
	}, "\n")))
	assert.Equal(t, 2, p.downloads)
	assert.Equal(t, 2, p.packages())
	assert.Equal(t, "# go.temporal.io/server/common/log\ncommon/log/x.go:1:2: undefined: y", p.messages())
	p.report()
	assert.Contains(t, out.String(), "2 modules downloaded, 2 packages compiled")
}

func TestPickPortsKeepsFixedOnes(t *testing.T) {
	p, err := pickPorts(Options{Port: 17233, UI: true})
	require.NoError(t, err)
	assert.Equal(t, 17233, p.frontend)
	assert.NotZero(t, p.ui)

	p, err = pickPorts(Options{UIPort: 18233})
	require.NoError(t, err)
	assert.NotZero(t, p.frontend)
	assert.Zero(t, p.ui, "UIPort without UI")
}
