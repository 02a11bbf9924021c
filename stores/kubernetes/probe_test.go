package kubernetes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
)

// Readiness asks the API server with the store's own credentials: a token
// it does not know is not ready, whatever the network says.
func TestProbe(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "probe")
	assert.NoError(t, open(t, srv.AdminConfig(), ns).Probe(ctxT(t)))
	err := open(t, srv.Config("not-a-token"), ns).Probe(ctxT(t))
	assert.ErrorContains(t, err, "kubernetes API, namespace "+ns)
}
