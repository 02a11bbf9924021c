package embedded_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/storebench"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// BenchmarkStore: publish and verify on a real bbolt file (fsync on commit).
//
//	go test ./stores/embedded -run '^$' -bench .
func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) stores.ReferenceStore {
		s, err := embedded.Open(filepath.Join(b.TempDir(), "references.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		return s
	})
}
