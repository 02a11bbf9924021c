// Package readme reads the blocks of README.md that tests keep in step with
// what the code prints (the worker's and the CLI's --help), so that the
// README cannot drift from the binaries.
package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Path is the repository's README.md, found from this file.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "README.md")
}

// Block returns the fenced block that follows the line "<!-- name -->":
// its lines between the opening fence and the closing one, each ending in
// a newline.
func Block(name string) (string, error) {
	b, err := os.ReadFile(Path())
	if err != nil {
		return "", err
	}
	marker := "<!-- " + name + " -->"
	_, rest, ok := strings.Cut(string(b), marker+"\n")
	if !ok {
		return "", fmt.Errorf("README.md has no line %q", marker)
	}
	open, body, ok := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(open, "```") {
		return "", fmt.Errorf("README.md: no fenced block right after %q", marker)
	}
	body, _, ok = strings.Cut(body, "```\n")
	if !ok {
		return "", fmt.Errorf("README.md: the block after %q is not closed", marker)
	}
	return body, nil
}
