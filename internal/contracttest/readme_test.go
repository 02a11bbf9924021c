package contracttest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/contracttest"
)

// readmeExample is one JSON value of a README code block.
type readmeExample struct {
	schema string
	line   int
	json   []byte
}

// marker precedes each json block of the contract section:
// <!-- schema: finalize-result --> for one value, with "(one per line)"
// for a block of one value per line.
var marker = regexp.MustCompile(`^<!-- schema: ([a-z-]+)( \(one per line\))? -->$`)

// readmeExamples reads the json blocks of README.md's contract section,
// failing on one without a marker: every example there is checked.
func readmeExamples(t *testing.T) []readmeExample {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	var examples []readmeExample
	in := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "## "):
			in = strings.HasPrefix(l, "## The workflow contract")
			continue
		case !in || l != "```json":
			continue
		}
		m := marker.FindStringSubmatch(lines[max(i-1, 0)])
		if m == nil {
			t.Errorf("README.md:%d: a json block of the contract section without <!-- schema: name --> above it", i+1)
			m = []string{"", "", ""}
		}
		start := i + 1
		var block []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		if m[2] == "" {
			examples = append(examples, readmeExample{m[1], start, []byte(strings.Join(block, "\n"))})
			continue
		}
		for j, l := range block {
			if strings.TrimSpace(l) != "" {
				examples = append(examples, readmeExample{m[1], start + j, []byte(l)})
			}
		}
	}
	return examples
}

// The contract section's examples are valid against their schemas, name
// no member the Go types lack, and show every call.
func TestReadmeExamplesMatchTheSchemas(t *testing.T) {
	seen := map[string][]string{} // schema: the phase or state of each example
	for _, e := range readmeExamples(t) {
		name := e.schema + ".schema.json"
		if err := contracttest.Check(name, e.json); err != nil {
			t.Errorf("README.md:%d: %v", e.line, err)
			continue
		}
		if typ, ok := contractTypes[name]; ok && reflect.TypeOf(typ).Kind() == reflect.Struct {
			// Answers' schemas admit members they do not list; the
			// README's examples name none.
			dec := json.NewDecoder(bytes.NewReader(e.json))
			dec.DisallowUnknownFields()
			v := reflect.New(reflect.TypeOf(typ))
			assert.NoError(t, dec.Decode(v.Interface()), "README.md:%d", e.line)
		}
		var kind struct{ Phase, State string }
		_ = json.Unmarshal(e.json, &kind)
		seen[e.schema] = append(seen[e.schema], kind.Phase+kind.State)
	}
	for _, schema := range []string{
		"claim-request", "latest-request", "finalize-request", "status", "abandon-signal",
		"retire-request", "reconcile-request", "reconcile-report",
	} {
		assert.NotEmpty(t, seen[schema], "the contract section shows a %s", schema)
	}
	assert.ElementsMatch(t, []string{"Published", "Discarded", "Abandoned", "Failed"}, seen["finalize-result"], "a result of each phase")
	assert.ElementsMatch(t, []string{"resolved", "none", "dangling"}, seen["restore-point"], "a restore point in each state")
}
