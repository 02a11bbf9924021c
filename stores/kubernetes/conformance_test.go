package kubernetes_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

// harness: a namespace of its own per test; every Open is a new client
// (own connections) on that namespace.
type harness struct {
	srv *kubetest.Server
	ns  string
}

func (h harness) Open(t *testing.T) stores.ReferenceStore {
	return open(t, h.srv.AdminConfig(), h.ns)
}

func TestConformance(t *testing.T) {
	srv := kubetest.Shared(t)
	storetest.RunConformanceTests(t, func(t *testing.T) storetest.Harness {
		return harness{srv: srv, ns: srv.Namespace(t, "conf-"+t.Name())}
	})
}

// TestFootprint: the job's ConfigMap stays the size retention gives it,
// however many checkpoints pass (go test -run TestFootprint
// -footprint.checkpoints=20000 ./stores/kubernetes for the soak).
func TestFootprint(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "footprint")
	admin := srv.Admin(t)
	storetest.RunFootprint(t, open(t, srv.AdminConfig(), ns), storetest.Footprint{
		Bytes: func(ctx context.Context) (int, error) {
			list, err := admin.ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0, err
			}
			n := 0
			for i := range list.Items {
				n += kubernetes.ObjectSize(&list.Items[i])
			}
			return n, nil
		},
		Server: func(context.Context) (string, error) {
			total, inUse, err := srv.EtcdDBSize()
			return fmt.Sprintf("etcd database %d bytes, %d in use", total, inUse), err
		},
	})
}
