// Package doclinks checks the user-facing documentation, README.md and
// docs/*.md: every relative link resolves inside the repository, every
// #anchor names a heading of its target as GitHub renders it, and the
// README stays a five-minute read.
package doclinks

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..", "..")

// maxReadmeLines bounds README.md: what it is, the two commands, how to wire
// it in and install it, the layout and the links; the rest is in docs/.
const maxReadmeLines = 300

var (
	// An inline link or image, [text](target) or [text](target "title").
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^()\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// A reference definition, [label]: target.
	refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	// An ATX heading.
	heading = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	// A scheme (https:, mailto:): not a relative link.
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	// Markdown inside a heading that GitHub renders away before the slug.
	headingLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// link is one relative link of a document, with where it stands.
type link struct {
	line   int
	target string
}

// doc is what the check needs of one markdown file: its links and the
// anchors of its headings.
type doc struct {
	links   []link
	anchors map[string]bool
}

// parse reads a markdown file's links and heading anchors, skipping fenced
// code blocks, inline code and HTML comments.
func parse(text string) doc {
	d := doc{anchors: map[string]bool{}}
	seen := map[string]int{} // GitHub numbers repeated slugs: x, x-1, x-2
	fence := ""
	inComment := false
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		// HTML comments (<!-- schema: x -->) are not rendered.
		var kept strings.Builder
		rest := line
		for rest != "" {
			if inComment {
				_, after, ok := strings.Cut(rest, "-->")
				if !ok {
					rest = ""
					break
				}
				inComment, rest = false, after
				continue
			}
			before, after, ok := strings.Cut(rest, "<!--")
			kept.WriteString(before)
			if !ok {
				break
			}
			inComment, rest = true, after
		}
		line = kept.String()
		if m := heading.FindStringSubmatch(line); m != nil {
			slug := Slug(m[2])
			anchor := slug
			if n := seen[slug]; n > 0 {
				anchor = fmt.Sprintf("%s-%d", slug, n)
			}
			seen[slug]++
			d.anchors[anchor] = true
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			d.links = append(d.links, link{i + 1, m[1]})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(withoutCode(line), -1) {
			d.links = append(d.links, link{i + 1, m[1]})
		}
	}
	return d
}

// withoutCode returns the line with its inline code spans emptied: a span
// opens with a run of backticks and closes with the next run of as many.
func withoutCode(line string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(line, '`')
		if open < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := len(line[open:]) - len(strings.TrimLeft(line[open:], "`"))
		b.WriteString(line[:open])
		rest := line[open+n:]
		closed := false
		for i := 0; i < len(rest); {
			j := strings.IndexByte(rest[i:], '`')
			if j < 0 {
				break
			}
			m := len(rest[i+j:]) - len(strings.TrimLeft(rest[i+j:], "`"))
			if m == n {
				line, closed = rest[i+j+m:], true
				break
			}
			i += j + m
		}
		if !closed { // an unmatched run is literal backticks
			b.WriteString(line[open : open+n])
			line = rest
		}
	}
}

// Slug is the anchor GitHub gives a heading's text: links and images
// rendered to their text, lower case, every character that is not a letter,
// a digit, a space, a hyphen or an underscore dropped, each space a hyphen.
func Slug(text string) string {
	text = headingLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// documents are the user-facing markdown files, relative to the root.
func documents(t *testing.T) []string {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		require.NoError(t, err)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// broken returns what is wrong with every relative link of the files
// (slash-separated, relative to dir), and how many links were checked.
func broken(dir string, files []string) (problems []string, checked int, err error) {
	parsed := map[string]doc{}
	read := func(rel string) (doc, error) {
		if d, ok := parsed[rel]; ok {
			return d, nil
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return doc{}, err
		}
		parsed[rel] = parse(string(b))
		return parsed[rel], nil
	}
	for _, file := range files {
		d, err := read(file)
		if err != nil {
			return nil, 0, err
		}
		for _, l := range d.links {
			if l.target == "" || scheme.MatchString(l.target) || strings.HasPrefix(l.target, "//") {
				continue
			}
			checked++
			where := fmt.Sprintf("%s:%d: link %q", file, l.line, l.target)
			p, anchor, _ := strings.Cut(l.target, "#")
			p, _, _ = strings.Cut(p, "?")
			target := file
			if p != "" {
				if strings.HasPrefix(p, "/") {
					problems = append(problems, where+": an absolute path; link relative to the file")
					continue
				}
				target = path.Clean(path.Join(path.Dir(file), p))
				if target == ".." || strings.HasPrefix(target, "../") {
					problems = append(problems, where+": leaves the repository")
					continue
				}
				info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target)))
				if err != nil {
					problems = append(problems, where+": "+target+" does not exist")
					continue
				}
				if anchor != "" && (info.IsDir() || !strings.HasSuffix(target, ".md")) {
					problems = append(problems, where+": an anchor into "+target+", which is not a markdown file")
					continue
				}
			}
			if anchor == "" {
				continue
			}
			td, err := read(target)
			if err != nil {
				return nil, 0, err
			}
			if !td.anchors[anchor] {
				problems = append(problems, fmt.Sprintf("%s: %s has no heading whose anchor is #%s", where, target, anchor))
			}
		}
	}
	return problems, checked, nil
}

// Every relative link of README.md and docs/*.md names a file or directory
// of the repository, and every anchor a heading of its target.
func TestLinksResolve(t *testing.T) {
	files := documents(t)
	problems, checked, err := broken(root, files)
	require.NoError(t, err)
	for _, p := range problems {
		t.Error(p)
	}
	assert.Greater(t, checked, 30, "the check saw the documents' links")
	t.Logf("%d relative links checked in %d files", checked, len(files))
}

func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(b), "\n")
	if !strings.HasSuffix(string(b), "\n") {
		lines++
	}
	assert.LessOrEqual(t, lines, maxReadmeLines, "README.md has %d lines: move detail to docs/ and link it", lines)
}

// The check itself finds a missing file, a missing anchor, an anchor into a
// file that has none and a link out of the repository, and takes GitHub's
// anchors (repeated headings numbered, punctuation dropped).
func TestBrokenLinksAreFound(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644))
	}
	write("docs/a.md", "# A\n\n## Failure semantics: the `lifecycle`\n\n## Notes\n\n## Notes\n\n```\n# not a heading\n[x](nowhere.md)\n```\n")
	write("README.md", `# R
[ok](docs/a.md) [ok](docs/a.md#failure-semantics-the-lifecycle) [ok](docs/a.md#notes-1) [ok](docs/)
[ok](#r) [ok](https://example.com/x.md#y) `+"`[code](nowhere.md)`"+` <!-- [c](nowhere.md) -->
[bad](docs/b.md) [bad](docs/a.md#not-a-heading) [bad](docs/a.md#notes-2) [bad](docs/#x) [bad](../x.md)
[bad](#nothing)
`)
	problems, checked, err := broken(dir, []string{"README.md", "docs/a.md"})
	require.NoError(t, err)
	assert.Equal(t, 11, checked)
	want := []string{
		`README.md:4: link "docs/b.md": docs/b.md does not exist`,
		`README.md:4: link "docs/a.md#not-a-heading": docs/a.md has no heading whose anchor is #not-a-heading`,
		`README.md:4: link "docs/a.md#notes-2": docs/a.md has no heading whose anchor is #notes-2`,
		`README.md:4: link "docs/#x": an anchor into docs, which is not a markdown file`,
		`README.md:4: link "../x.md": leaves the repository`,
		`README.md:5: link "#nothing": README.md has no heading whose anchor is #nothing`,
	}
	assert.Equal(t, want, problems)
}

func TestSlug(t *testing.T) {
	for text, want := range map[string]string{
		"1.1 `high-availability.type`":                             "11-high-availabilitytype",
		"The workflow contract (for job managers in any language)": "the-workflow-contract-for-job-managers-in-any-language",
		"Docker: `docker-compose.yml` and the image":               "docker-docker-composeyml-and-the-image",
		"`finalizer-worker -h`":                                    "finalizer-worker--h",
		"FinalizationStuckInVerifying":                             "finalizationstuckinverifying",
		"2.4 `notifyCheckpointComplete`: only on `Published`":      "24-notifycheckpointcomplete-only-on-published",
		"See [the design](docs/design.md)":                         "see-the-design",
		"snake_case and ≥ 0.8x":                                    "snake_case-and--08x",
	} {
		assert.Equal(t, want, Slug(text), "%q", text)
	}
}

// README.md links every page of docs/, so that a newcomer finds each one
// from it.
func TestReadmeLinksEveryDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	linked := map[string]bool{}
	for _, l := range parse(string(b)).links {
		p, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(p)] = true
	}
	for _, d := range documents(t)[1:] {
		assert.True(t, linked[d], "README.md does not link %s", d)
	}
}
