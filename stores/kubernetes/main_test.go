package kubernetes_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// One API server for the whole package: RBAC on (the admin token bypasses
// it), both fault proxies, an audit log of ConfigMap requests.
func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{RBAC: true, EtcdProxy: true, FrontProxy: true, Audit: true})
}

// open returns a store on namespace ns over rc, closed at the test's end.
func open(t *testing.T, rc *rest.Config, ns string, tweak ...func(*kubernetes.Config)) *kubernetes.Store {
	t.Helper()
	cfg := kubernetes.Config{Namespace: ns, REST: rc}
	for _, f := range tweak {
		f(&cfg)
	}
	s, err := kubernetes.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func ctxT(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

var job = stores.JobID{Cluster: "prod-eu", Job: "a1b2c3d4"}

func pub(n uint64, epoch uint64, token string, attempt uint32) stores.Publication {
	return stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: n},
		Epoch:        epoch,
		Reference:    stores.Reference{Handle: "handles/" + token, Token: token, Attempt: attempt},
	}
}

func cp(n uint64) stores.CheckpointID { return stores.CheckpointID{JobID: job, Checkpoint: n} }
