package world

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// kubeNamespace holds the run's ConfigMaps; a run has its API server to itself.
const kubeNamespace = "faultharness"

// kubeWorld is the Kubernetes side of a run: etcd and a real kube-apiserver
// with a fault proxy between them (applied-then-lost answers, lost writes,
// resets: real 5xx and real timeouts), and in front of the API server a
// pass-through proxy plus a byte proxy (latency, resets) that the workers
// connect through. The harness's checker talks to the API server directly.
type kubeWorld struct {
	srv   *kubetest.Server
	front *netProxy
	store *kubernetes.Store
	admin *corev1client.CoreV1Client
	// kubeconfig is the workers' kubeconfig, through the proxies.
	kubeconfig string
}

var _ backend = (*kubeWorld)(nil)

func startKube(ctx context.Context, log *slog.Logger, dir string) (_ *kubeWorld, err error) {
	srv, err := kubetest.Start(kubetest.Options{EtcdProxy: true, FrontProxy: true})
	if err != nil {
		return nil, err
	}
	w := &kubeWorld{srv: srv}
	defer func() {
		if err != nil {
			w.close(true)
		}
	}()
	if w.admin, err = corev1client.NewForConfig(srv.AdminConfig()); err != nil {
		return nil, fmt.Errorf("kubernetes admin client: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kubeNamespace}}
	if _, err := w.admin.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", kubeNamespace, err)
	}
	if w.front, err = startNetProxy(srv.FrontProxy.Addr()); err != nil {
		return nil, err
	}
	w.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(w.kubeconfig, []byte(kubeconfig("https://"+w.front.Addr, srv.CAData, srv.AdminToken)), 0o600); err != nil {
		return nil, fmt.Errorf("write the workers' kubeconfig: %w", err)
	}
	w.store, err = kubernetes.New(kubernetes.Config{Namespace: kubeNamespace, REST: srv.AdminConfig(), Logger: log.With("component", "checker")})
	if err != nil {
		return nil, fmt.Errorf("open the checker's kubernetes store: %w", err)
	}
	return w, nil
}

// kubeconfig is a minimal kubeconfig with a static bearer token.
func kubeconfig(server string, ca []byte, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: harness
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: harness
  user:
    token: %s
contexts:
- name: harness
  context:
    cluster: harness
    user: harness
    namespace: %s
current-context: harness
`, server, base64.StdEncoding.EncodeToString(ca), token, kubeNamespace)
}

func (w *kubeWorld) workerArgs() []string {
	return []string{"-store=kubernetes", "-kubernetes-kubeconfig=" + w.kubeconfig, "-kubernetes-namespace=" + kubeNamespace}
}

func (w *kubeWorld) checker() stores.ReferenceStore { return w.store }

// keyVersion is the key's stored value, read linearizably (resourceVersion
// ""): a replay that wrote the key would change it, if only its tombstone's
// time. The ConfigMap's resourceVersion would not do: other checkpoints of
// the job share the ConfigMap and change it legitimately.
func (w *kubeWorld) keyVersion(ctx context.Context, id stores.CheckpointID) (string, error) {
	name, err := kubernetes.ConfigMapName(id.JobID)
	if err != nil {
		return "", err
	}
	cm, err := w.admin.ConfigMaps(kubeNamespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "absent", nil
	}
	if err != nil {
		return "", fmt.Errorf("get configmap %s: %w", name, err)
	}
	v, ok := cm.Data[fmt.Sprintf("%s%019d", kubernetes.KeyPrefix, id.Checkpoint)]
	if !ok {
		return "absent", nil
	}
	return v, nil
}

func (w *kubeWorld) heal(context.Context) error {
	w.front.SetLatency(0)
	return nil
}

func (w *kubeWorld) close(keep bool) {
	if w.store != nil {
		_ = w.store.Close()
	}
	if w.front != nil {
		w.front.Close()
	}
	if keep {
		w.srv.KeepLogs()
	}
	w.srv.Stop()
}
