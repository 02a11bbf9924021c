package blobstate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 22, finding 6: a checksum mismatch names the digest the caller
// gave, never the object's own. Before, it printed the real SHA-256 of
// any object a request named, which the request could then resubmit.
func TestChecksumMismatchPrintsNoDigestOfTheObject(t *testing.T) {
	s := openURL(t, "file://"+t.TempDir())
	h := seedCheckpoint(t, s, "orders", 1, 7, 0)
	real := h.MetadataSHA256
	h.MetadataSHA256 = "0000000000000000000000000000000000000000000000000000000000000000"

	err := s.CheckData(t.Context(), h)
	require.True(t, errors.Is(err, ErrDataCorrupt), "%v", err)
	assert.NotContains(t, err.Error(), real)
	assert.Contains(t, err.Error(), h.MetadataSHA256, "the expected digest, the caller's own")
}
