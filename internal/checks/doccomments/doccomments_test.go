// Package doccomments checks the Go comments of the module against the
// code: a comment that names a package's identifier (contract.Published)
// or a command's directory (client/cmd/finalizer) names one that exists,
// so that moving or renaming one leaves no comment pointing at nothing.
package doccomments

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..", "..")

const module = "github.com/checkpoint-finalizer/finalizer/"

var (
	// A qualified identifier, pkg.Name, not part of a longer dotted name
	// (of pkg.Type.Method the type is checked); a trailing * makes it a
	// pattern (client.Setting*), not a name.
	qualified = regexp.MustCompile(`(?:^|[^\w.])([a-z][a-z0-9]*)\.([A-Z]\w*)(\*?)`)
	// A command's directory as a path from the root of the repository or
	// of the file's Go module: any leading elements, then cmd/<name>. Not
	// one inside a longer path (an import path, ./cmd/...).
	cmdPath = regexp.MustCompile(`(?:^|[^\w./-])((?:[\w-]+/)*cmd/[\w-]+)`)
)

// file is one Go file of the module: its Go module's root, its comments,
// and the local names it imports from outside the module.
type file struct {
	module   string
	comments []*ast.CommentGroup
	fset     *token.FileSet
	external map[string]bool
}

func TestCommentsNameWhatExists(t *testing.T) {
	// package name -> its top-level names and its methods: a comment names
	// an activity as activities.Publish, a method of Activities.
	decls := map[string]map[string]bool{}
	modules := []string{root} // Go modules' roots, the repository's first
	var files []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				modules = append(modules, path)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		names := decls[f.Name.Name]
		if names == nil {
			names = map[string]bool{}
			decls[f.Name.Name] = names
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				names[decl.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						names[spec.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		external := map[string]bool{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				continue
			}
			local := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			external[local] = true
		}
		if !strings.HasSuffix(path, "_test.go") {
			// Walked depth first: the last module root above the file is its own.
			mod := root
			for _, m := range modules {
				if strings.HasPrefix(path, m+string(filepath.Separator)) {
					mod = m
				}
			}
			files = append(files, file{module: mod, comments: f.Comments, fset: fset, external: external})
		}
		return nil
	})
	require.NoError(t, err)
	delete(decls, "main") // commands declare nothing another package names

	checked := 0
	for _, f := range files {
		for _, cg := range f.comments {
			for _, c := range cg.List {
				at := f.fset.Position(c.Pos())
				where := strings.TrimPrefix(at.String(), root+string(filepath.Separator))
				for _, m := range qualified.FindAllStringSubmatch(c.Text, -1) {
					pkg, name := m[1], m[2]
					names, ours := decls[pkg]
					if !ours || f.external[pkg] || m[3] != "" {
						continue // another module's package, or a pattern
					}
					checked++
					assert.True(t, names[name], "%s: %s.%s: package %s declares no %s", where, pkg, name, pkg, name)
				}
				for _, m := range cmdPath.FindAllStringSubmatch(c.Text, -1) {
					checked++
					_, errRoot := os.Stat(filepath.Join(root, m[1]))
					_, errModule := os.Stat(filepath.Join(f.module, m[1]))
					assert.True(t, errRoot == nil || errModule == nil,
						"%s: %s: no such directory from the repository's root (or the file's module's)", where, m[1])
				}
			}
		}
	}
	assert.Greater(t, checked, 100, "the check found what it checks")
}
