package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/checks/docblock"
)

// docs/reference.md shows finalizer --help, and the operator signals'
// help, as they are.
func TestReferenceShowsHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"retry-now", "--help"}, {"abandon", "--help"}} {
		name := "finalizer " + strings.Join(args, " ")
		block, err := docblock.Block(docblock.Reference, name)
		require.NoError(t, err)
		o := runTool(t, nil, args...)
		require.Equal(t, exitOK, o.code)
		assert.Equal(t, o.stdout, block, "docs/reference.md's %s block is stale: paste `go run ./client/cmd/%s`", name, name)
	}
}
