package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func runTool(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The command line, without starting anything: help names every command,
// a mistyped one is refused with the one it resembles, a flag in package
// flag's spelling reads the same, and a command on a directory without a
// topology fails naming it.
func TestCommandLine(t *testing.T) {
	code, out, _ := runTool("--help")
	assert.Zero(t, code)
	for _, c := range []string{"up", "upgrade", "status", "down", "completion"} {
		assert.Contains(t, out, "  "+c+" ", "help lists %s", c)
	}

	code, _, errOut := runTool("upgrad")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Did you mean this?\n\tupgrade")

	code, _, errOut = runTool("status", "--no-such-flag")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "unknown flag: --no-such-flag")

	empty := t.TempDir()
	for _, args := range [][]string{{"status", "--dir", empty}, {"status", "-dir", empty}, {"-dir=" + empty, "down"}} {
		code, _, errOut = runTool(args...)
		assert.Equal(t, 1, code, "%v", args)
		assert.Contains(t, errOut, "no topology in "+empty, "%v", args)
	}
}
