// Package docblock reads the blocks of the documentation that tests keep in
// step with what the code prints (the worker's and the CLI's --help in
// docs/reference.md), so that the documentation cannot drift from the
// binaries.
package docblock

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Reference is docs/reference.md, the --help reference, relative to the
// repository's root.
const Reference = "docs/reference.md"

// Path is the file rel (slash-separated, relative to the repository's
// root), found from this file.
func Path(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", filepath.FromSlash(rel))
}

// Block returns the fenced block of the file rel that follows the line
// "<!-- name -->": its lines between the opening fence and the closing one,
// each ending in a newline.
func Block(rel, name string) (string, error) {
	b, err := os.ReadFile(Path(rel))
	if err != nil {
		return "", err
	}
	marker := "<!-- " + name + " -->"
	_, rest, ok := strings.Cut(string(b), marker+"\n")
	if !ok {
		return "", fmt.Errorf("%s has no line %q", rel, marker)
	}
	open, body, ok := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(open, "```") {
		return "", fmt.Errorf("%s: no fenced block right after %q", rel, marker)
	}
	body, _, ok = strings.Cut(body, "```\n")
	if !ok {
		return "", fmt.Errorf("%s: the block after %q is not closed", rel, marker)
	}
	return body, nil
}
