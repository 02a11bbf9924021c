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

// docExample is one JSON value of a code block of docs/contract.md.
type docExample struct {
	schema string
	line   int
	json   []byte
}

// marker precedes each json block of docs/contract.md:
// <!-- schema: finalize-result --> for one value, with "(one per line)"
// for a block of one value per line.
var marker = regexp.MustCompile(`^<!-- schema: ([a-z-]+)( \(one per line\))? -->$`)

// contractDoc is the contract's documentation, whose json blocks are all
// examples of the contract.
var contractDoc = filepath.Join("..", "..", "docs", "contract.md")

// docExamples reads the json blocks of docs/contract.md, failing on one
// without a marker: every example there is checked.
func docExamples(t *testing.T) []docExample {
	b, err := os.ReadFile(contractDoc)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	var examples []docExample
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```json" {
			continue
		}
		m := marker.FindStringSubmatch(lines[max(i-1, 0)])
		if m == nil {
			t.Errorf("docs/contract.md:%d: a json block without <!-- schema: name --> above it", i+1)
			m = []string{"", "", ""}
		}
		start := i + 1
		var block []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		if m[2] == "" {
			examples = append(examples, docExample{m[1], start, []byte(strings.Join(block, "\n"))})
			continue
		}
		for j, l := range block {
			if strings.TrimSpace(l) != "" {
				examples = append(examples, docExample{m[1], start + j, []byte(l)})
			}
		}
	}
	return examples
}

// docs/contract.md's examples are valid against their schemas, name no
// member the Go types lack, and show every call.
func TestContractDocExamplesMatchTheSchemas(t *testing.T) {
	seen := map[string][]string{} // schema: the phase or state of each example
	for _, e := range docExamples(t) {
		name := e.schema + ".schema.json"
		if err := contracttest.Check(name, e.json); err != nil {
			t.Errorf("docs/contract.md:%d: %v", e.line, err)
			continue
		}
		if typ, ok := contractTypes[name]; ok && reflect.TypeOf(typ).Kind() == reflect.Struct {
			// Answers' schemas admit members they do not list; the
			// contract's examples name none.
			dec := json.NewDecoder(bytes.NewReader(e.json))
			dec.DisallowUnknownFields()
			v := reflect.New(reflect.TypeOf(typ))
			assert.NoError(t, dec.Decode(v.Interface()), "docs/contract.md:%d", e.line)
		}
		var kind struct{ Phase, State string }
		_ = json.Unmarshal(e.json, &kind)
		seen[e.schema] = append(seen[e.schema], kind.Phase+kind.State)
	}
	for _, schema := range []string{
		"claim-request", "latest-request", "finalize-request", "status", "abandon-signal",
		"retire-request", "reconcile-request", "reconcile-report",
	} {
		assert.NotEmpty(t, seen[schema], "docs/contract.md shows a %s", schema)
	}
	assert.ElementsMatch(t, []string{"Published", "Discarded", "Abandoned", "Failed"}, seen["finalize-result"], "a result of each phase")
	assert.ElementsMatch(t, []string{"resolved", "none", "dangling"}, seen["restore-point"], "a restore point in each state")
}
