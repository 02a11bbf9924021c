package worker

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/readme"
)

// README.md shows the worker's -h output as it is.
func TestREADMEShowsUsage(t *testing.T) {
	block, err := readme.Block("finalizer-worker -h")
	require.NoError(t, err)
	var out bytes.Buffer
	Usage(&out)
	assert.Equal(t, out.String(), block, "README.md's finalizer-worker -h block is stale: paste `go run ./worker/cmd/finalizer-worker -h`")
}
