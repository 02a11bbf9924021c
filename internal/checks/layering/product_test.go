package layering

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// product is the product's order, lowest first: a package of the product
// imports packages of its own layer and the layers below, never above, its
// tests included. Everything else of the module (the test harnesses under
// internal/ and stores/storetest, e2e, tools, cmd, flink, deploy, examples)
// sits above the product: it may import any of it, and no product code
// imports it outside tests.
var product = [][]string{
	{"internal/flagenv", "internal/version"}, // libraries the product's commands share
	{"stores"},
	{"contract"},
	{"activities"},
	{"workflows"},
	{"client"},
	{"worker"},
	{"client/cmd", "worker/cmd"}, // the binaries
}

// harnesses are the packages inside the product's trees that belong to the
// test layer.
var harnesses = []string{"stores/storetest"}

// layerOf is the product layer of a package path relative to the module
// (the one of its longest root), -1 for the test layer.
func layerOf(rel string) int {
	for _, h := range harnesses {
		if under(rel, h) {
			return -1
		}
	}
	layer, longest := -1, 0
	for i, roots := range product {
		for _, root := range roots {
			if under(rel, root) && len(root) > longest {
				layer, longest = i, len(root)
			}
		}
	}
	return layer
}

func under(rel, root string) bool { return rel == root || strings.HasPrefix(rel, root+"/") }

type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestProductReadsDownward(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p listed
		require.NoError(t, dec.Decode(&p))
		rel := strings.TrimPrefix(p.ImportPath, module)
		own := layerOf(rel)
		if own < 0 {
			continue
		}
		checked++
		check := func(imports []string, tests bool) {
			for _, imp := range imports {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				dep := strings.TrimPrefix(imp, module)
				l := layerOf(dep)
				switch {
				case l < 0:
					assert.True(t, tests, "%s imports the test layer's %s", rel, dep)
				default:
					assert.LessOrEqual(t, l, own, "%s (layer %v) imports %s (layer %v), which sits above it",
						rel, product[own], dep, product[l])
				}
			}
		}
		check(p.Imports, false)
		check(p.TestImports, true)
		check(p.XTestImports, true)
	}
	assert.Greater(t, checked, 15, "the listing named the product's packages")
}
