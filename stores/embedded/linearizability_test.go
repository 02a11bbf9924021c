package embedded_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

// No network to break: the check covers concurrent goroutines on one Store.
func TestLinearizability(t *testing.T) {
	storetest.RunLinearizabilityTests(t, func(t *testing.T) storetest.Harness {
		s, err := embedded.Open(filepath.Join(t.TempDir(), "references.db"))
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return &harness{store: s}
	}, nil)
}
