// Package layering checks that the import graph reads one way. The
// product's packages import only their own layer and those below it, in the
// order of product_test.go (stores, contract, activities, workflows,
// client, worker, the binaries), tests included; the harnesses and helpers
// under internal/ never link the product's top (worker, client) or the
// tools (cmd/, tools/); and only the worker's assembly builds the
// activities a worker runs (assembly_test.go).
package layering

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/checkpoint-finalizer/finalizer/"

// above are the layers no internal package may link, its tests included.
var above = []string{module + "worker", module + "client", module + "tools/", module + "cmd/"}

func TestInternalReadsDownward(t *testing.T) {
	// -test lists each package's test variant and test binary too, with
	// what its _test.go files link.
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"internal/...").Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	checked := 0
	for _, line := range lines {
		fields := strings.Fields(line)
		if !strings.HasPrefix(fields[0], module+"internal/") {
			continue
		}
		checked++
		for _, dep := range fields[1:] {
			for _, a := range above {
				assert.False(t, dep == a || strings.HasPrefix(dep, a+"/") || strings.HasSuffix(a, "/") && strings.HasPrefix(dep, a),
					"%s links %s", fields[0], dep)
			}
		}
	}
	assert.Greater(t, checked, 10, "the listing named the internal packages")
}
