package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assembled are the types only worker.Assemble builds: a worker that a test
// runs is then the one we ship, with its tenant gate and interceptors.
var assembled = map[string]string{
	module + "activities":           "Activities",
	module + "activities/reconcile": "Activities",
}

// assemblers may build them by hand: the assembly itself, and the unit
// tests of the layers below it (activities, and workflows over Temporal's
// test environment), which the product's order keeps from importing it.
func assembler(path string) bool {
	return path == "worker/assembly.go" ||
		(strings.HasPrefix(path, "activities/") || strings.HasPrefix(path, "workflows/")) && strings.HasSuffix(path, "_test.go")
}

func TestOnlyTheAssemblyBuildsActivities(t *testing.T) {
	root, err := filepath.Abs("../../..")
	require.NoError(t, err)
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "target" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		files++
		for _, at := range handBuilt(t, p) {
			assert.True(t, assembler(rel), "%s:%s builds activities by hand: use worker.Assemble", rel, at)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 100, "the walk read the module")
}

// handBuilt returns where file writes a composite literal of an assembled
// type.
func handBuilt(t *testing.T, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	require.NoError(t, err, file)
	names := map[string]string{} // local import name -> the type assembled there
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		typ, ok := assembled[path]
		if !ok {
			continue
		}
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = typ
	}
	var at []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		sel, ok := lit.Type.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] == sel.Sel.Name {
			at = append(at, strconv.Itoa(fset.Position(lit.Pos()).Line))
		}
		return true
	})
	return at
}
