package worker

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/checks/docblock"
)

// docs/reference.md shows the worker's -h output as it is.
func TestReferenceShowsUsage(t *testing.T) {
	block, err := docblock.Block(docblock.Reference, "finalizer-worker -h")
	require.NoError(t, err)
	var out bytes.Buffer
	Usage(&out)
	assert.Equal(t, out.String(), block, "docs/reference.md's finalizer-worker -h block is stale: paste `go run ./worker/cmd/finalizer-worker -h`")
}
