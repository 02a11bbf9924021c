//go:build ignore

// casecover widens a coverage profile to the case expressions of switch
// statements, for scripts/mutation.sh. Go's coverage blocks hold
// statements: a case clause's expressions (`case a != b:`) lie in no block,
// so gremlins, which tests only mutants inside a covered block, would
// report every mutant of a case expression NOT COVERED even when the tests
// evaluate it. This adds, for every switch statement that lies in a covered
// block, a covered block over each of its case clauses' headers (from
// `case` to the colon). A case the tests never reach is then tested all the
// same, and its mutants live unless a test kills them: the widening can
// only add work, never hide a mutant.
//
// Usage: go run scripts/mutation/casecover.go <module path> <profile>
// (the profile is rewritten in place; run from the module root).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

type block struct{ l0, c0, l1, c1, count int }

func (b block) contains(p token.Position) bool {
	if p.Line < b.l0 || p.Line > b.l1 {
		return false
	}
	if p.Line == b.l0 && p.Column < b.c0 {
		return false
	}
	return p.Line != b.l1 || p.Column <= b.c1
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: casecover <module path> <profile>")
		os.Exit(2)
	}
	mod, path := os.Args[1], os.Args[2]
	data, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	covered := map[string][]block{}
	var order []string
	for _, l := range lines[1:] {
		file, b, ok := parse(l)
		if !ok || b.count == 0 {
			continue
		}
		if _, seen := covered[file]; !seen {
			order = append(order, file)
		}
		covered[file] = append(covered[file], b)
	}
	var extra []string
	for _, file := range order {
		local := strings.TrimPrefix(file, mod+"/")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, local, nil, 0)
		if err != nil {
			fail(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch s := n.(type) {
			case *ast.SwitchStmt:
				body = s.Body
			case *ast.TypeSwitchStmt:
				body = s.Body
			default:
				return true
			}
			at := fset.Position(n.Pos())
			in := false
			for _, b := range covered[file] {
				in = in || b.contains(at)
			}
			if !in {
				return true
			}
			for _, st := range body.List {
				cc := st.(*ast.CaseClause)
				from, to := fset.Position(cc.Case), fset.Position(cc.Colon)
				extra = append(extra, fmt.Sprintf("%s:%d.%d,%d.%d 0 1", file, from.Line, from.Column, to.Line, to.Column+1))
			}
			return true
		})
	}
	out := strings.Join(append(lines, extra...), "\n") + "\n"
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		fail(err)
	}
}

// parse reads one profile line: file:l0.c0,l1.c1 statements count.
func parse(l string) (string, block, bool) {
	colon := strings.LastIndex(l, ":")
	if colon < 0 {
		return "", block{}, false
	}
	var b block
	var stmts int
	if _, err := fmt.Sscanf(l[colon+1:], "%d.%d,%d.%d %d %d", &b.l0, &b.c0, &b.l1, &b.c1, &stmts, &b.count); err != nil {
		return "", block{}, false
	}
	return l[:colon], b, true
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "casecover:", err)
	os.Exit(1)
}
