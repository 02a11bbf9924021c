package kubernetes_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// The store connects from a kubeconfig file, picks the named context and
// takes that context's namespace.
func TestKubeconfigContext(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: srv.URL, CertificateAuthorityData: srv.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: srv.AdminToken}
	kc.Contexts["other"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin", Namespace: "default"}
	kc.Contexts["finalizer"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin", Namespace: ns}
	kc.CurrentContext = "other"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))

	s, err := kubernetes.New(kubernetes.Config{Kubeconfig: path, Context: "finalizer"})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, ns, s.Namespace())
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok", 1)))
	assert.Contains(t, getCM(t, srv, ns).Data, "checkpointID-0000000000000000001")

	_, err = kubernetes.New(kubernetes.Config{Kubeconfig: path, Context: "missing"})
	assert.Error(t, err, "an unknown context fails before connecting")
	_, err = kubernetes.New(kubernetes.Config{Kubeconfig: filepath.Join(t.TempDir(), "absent")})
	assert.Error(t, err)
	_ = os.Remove(path)
}
