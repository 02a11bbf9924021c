package kubernetes_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/storebench"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// BenchmarkStore: publish and verify against the package's real
// kube-apiserver and etcd, each benchmark in a namespace of its own.
//
//	go test ./stores/kubernetes -run '^$' -bench .
func BenchmarkStore(b *testing.B) {
	srv := kubetest.Shared(b)
	storebench.Run(b, func(b *testing.B) stores.ReferenceStore {
		s, err := kubernetes.New(kubernetes.Config{Namespace: srv.Namespace(b, "bench"), REST: srv.AdminConfig()})
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		return s
	})
}
