package zookeeper_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/storebench"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// BenchmarkStore: publish and verify against the package's real ZooKeeper,
// each benchmark on a session and a root of its own.
//
//	go test ./stores/zookeeper -run '^$' -bench .
func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) stores.ReferenceStore {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s, err := zookeeper.Open(ctx, config(serverAddr(b), uniqueRoot()), quiet)
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		return s
	})
}
