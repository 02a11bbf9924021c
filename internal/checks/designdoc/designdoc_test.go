// Package designdoc checks that every comment citing the design resolves
// inside the repository: it names docs/design.md, and the steps,
// invariants and quoted rules it cites are there.
package designdoc

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// A citation, the rest of its comment paragraph after it.
	citation  = regexp.MustCompile(`(?i)[\w./-]*design\.md`)
	steps     = regexp.MustCompile(`^,? ?steps? (\d)(?:-(\d))?`)
	invariant = regexp.MustCompile(`\bI([1-9])\b`)
	quoted    = regexp.MustCompile(`^, "([^"]+)`)
)

func TestCommentsCiteTheDesignInTheRepo(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	require.NoError(t, err)
	design := squash(string(doc))
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go").Output()
	require.NoError(t, err)
	cited := 0
	for _, file := range strings.Fields(string(out)) {
		b, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for _, para := range commentParagraphs(string(b)) {
			for _, loc := range citation.FindAllStringIndex(para, -1) {
				cited++
				name := para[loc[0]:loc[1]]
				where := file + ": " + para
				assert.Equal(t, "docs/design.md", name, "%s: cite the design as docs/design.md", where)
				rest := para[loc[1]:]
				if m := steps.FindStringSubmatch(rest); m != nil {
					last := m[1]
					if m[2] != "" {
						last = m[2]
					}
					for n := m[1][0]; n <= last[0]; n++ {
						assert.Contains(t, design, " "+string(n)+". **", "%s: step %c", where, n)
					}
				}
				if m := quoted.FindStringSubmatch(rest); m != nil {
					assert.Contains(t, design, m[1], "%s: the quoted rule", where)
				}
				for _, m := range invariant.FindAllStringSubmatch(para, -1) {
					assert.Contains(t, design, "**I"+m[1]+" ", "%s: invariant I%s", where, m[1])
				}
			}
		}
	}
	assert.Greater(t, cited, 5, "the code cites the design")
}

// commentParagraphs returns each run of // comment lines, joined into one
// line, so that a citation broken over lines reads whole.
func commentParagraphs(src string) []string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "// "); i >= 0 {
			cur = append(cur, strings.TrimSpace(line[i+3:]))
			if i > 0 { // a trailing comment is a paragraph of its own
				flush()
			}
			continue
		}
		flush()
	}
	flush()
	return paras
}

// squash folds the design's line breaks and runs of spaces into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
