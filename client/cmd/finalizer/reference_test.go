package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/docblock"
)

// docs/reference.md shows finalizer --help as it is.
func TestReferenceShowsHelp(t *testing.T) {
	block, err := docblock.Block(docblock.Reference, "finalizer --help")
	require.NoError(t, err)
	o := runTool(t, nil, "--help")
	require.Equal(t, exitOK, o.code)
	assert.Equal(t, o.stdout, block, "docs/reference.md's finalizer --help block is stale: paste `go run ./client/cmd/finalizer --help`")
}
