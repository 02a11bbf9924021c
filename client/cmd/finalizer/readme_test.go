package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/readme"
)

// README.md shows finalizer --help as it is.
func TestREADMEShowsHelp(t *testing.T) {
	block, err := readme.Block("finalizer --help")
	require.NoError(t, err)
	o := runTool(t, nil, "--help")
	require.Equal(t, exitOK, o.code)
	assert.Equal(t, o.stdout, block, "README.md's finalizer --help block is stale: paste `go run ./client/cmd/finalizer --help`")
}
