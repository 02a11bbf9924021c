package charttest

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
)

// RBAC on, as on a real cluster: a Role is checked for escalation. Run
// as memoryLimitChild, the binary only reports the Go runtime's limit.
func TestMain(m *testing.M) {
	if os.Getenv(memoryLimitChild) != "" {
		fmt.Println(debug.SetMemoryLimit(-1))
		os.Exit(0)
	}
	kubetest.Main(m, kubetest.Options{RBAC: true})
}

// The Prometheus Operator's CRDs the chart's optional objects need, as
// structural schemas without preserve-unknown-fields, so that a misspelt
// field is refused as the operator's own CRDs refuse it. The ServiceMonitor
// CRD is the kustomize test's.
var crdFiles = []string{
	"../../kubernetes/testdata/servicemonitor-crd.yaml",
	"testdata/prometheusrule-crd.yaml",
}

// storeNamespace is where one value set keeps the job ConfigMaps.
const storeNamespace = "flink-ha"

// cluster applies objects to the shared API server through discovery, as
// kubectl and Helm do.
type cluster struct {
	dyn      *dynamic.DynamicClient
	mapper   *restmapper.DeferredDiscoveryRESTMapper
	warnings *warnings
}

// warnings collects the API server's Warning headers: a manifest that
// draws one (a deprecated version, an ignored field) is not clean.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

var (
	setupOnce sync.Once
	setupErr  error
)

// connect returns a client of the shared API server on which the CRDs are
// established and the namespaces exist (set up for real, once).
func connect(t *testing.T) *cluster {
	t.Helper()
	rc := kubetest.Shared(t).AdminConfig()
	c := &cluster{warnings: &warnings{}}
	rc.WarningHandler = c.warnings
	var err error
	c.dyn, err = dynamic.NewForConfig(rc)
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(rc)
	require.NoError(t, err)
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	setupOnce.Do(func() { setupErr = c.setup() })
	require.NoError(t, setupErr)
	c.warnings.take()
	return c
}

func (c *cluster) setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range []string{namespace, storeNamespace} {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		ns.SetName(name)
		if err := c.apply(ctx, ns, true); err != nil {
			return err
		}
	}
	for _, f := range crdFiles {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := c.apply(ctx, crd, true); err != nil {
			return err
		}
		if err := c.waitEstablished(ctx, crd.GetName()); err != nil {
			return err
		}
	}
	// Discovery was cached before the CRDs existed.
	c.mapper.Reset()
	return nil
}

var crds = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (c *cluster) waitEstablished(ctx context.Context, name string) error {
	for {
		crd, err := c.dyn.Resource(crds).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("CRD %s: %w", name, err)
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, cond := range conds {
			if m, _ := cond.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not established: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// apply sends obj as a server-side apply (`kubectl apply --server-side`,
// Helm 4's default) with strict field validation: an unknown or duplicated
// field is an error, not a warning. Dry-run unless real.
func (c *cluster) apply(ctx context.Context, obj *unstructured.Unstructured, real bool) error {
	gvk := obj.GroupVersionKind()
	what := fmt.Sprintf("%s %s/%s", gvk.Kind, obj.GetNamespace(), obj.GetName())
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", what, obj.GetAPIVersion(), err)
	}
	var ri dynamic.ResourceInterface = c.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = c.dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	var dryRun []string
	if !real {
		dryRun = []string{metav1.DryRunAll}
	}
	body, err := obj.MarshalJSON()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
		DryRun: dryRun, FieldManager: "chart-test", Force: new(true), FieldValidation: "Strict"})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
