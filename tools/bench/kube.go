package bench

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
)

// kubeNamespace holds the run's ConfigMaps; the run has its API server to
// itself.
const kubeNamespace = "finalizer-bench"

// kubeServer is the run's real kube-apiserver (on its etcd) and the
// kubeconfig the worker is given, as an operator outside the cluster
// would give it.
type kubeServer struct {
	*kubetest.Server
	kubeconfig string
	admin      *corev1client.CoreV1Client
}

// startKube starts etcd and kube-apiserver, creates the run's namespace
// and writes the worker's kubeconfig into dir.
func startKube(ctx context.Context, dir string) (_ *kubeServer, err error) {
	srv, err := kubetest.Start(kubetest.Options{})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			srv.Stop()
		}
	}()
	k := &kubeServer{Server: srv, kubeconfig: filepath.Join(dir, "kubeconfig")}
	if k.admin, err = corev1client.NewForConfig(srv.AdminConfig()); err != nil {
		return nil, fmt.Errorf("kubernetes admin client: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kubeNamespace}}
	if _, err := k.admin.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", kubeNamespace, err)
	}
	if err := srv.WriteKubeconfig(k.kubeconfig, srv.AdminToken, kubeNamespace); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *kubeServer) stop(keep bool) {
	if keep {
		k.KeepLogs()
	}
	k.Stop()
}
