package kubernetes_test

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/internal/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
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
