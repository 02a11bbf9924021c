// Package kubernetes_test proves the worker's Kubernetes manifests: each
// overlay is rendered with the kustomize Go API and every object applied
// with server-side dry-run to a real kube-apiserver (internal/testenv/servers/kubetest), so
// schema errors, unserved API versions and unknown fields fail here; what
// the API server cannot know (the worker's endpoints, settings and shutdown
// grace, the image's user) is checked against the worker package and the
// Dockerfile.
package kubernetes_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// RBAC on, as on a real cluster: the admin token passes it, and a Role is
// checked for escalation like any other.
func TestMain(m *testing.M) { kubetest.Main(m, kubetest.Options{RBAC: true}) }

// namespace is the base's; the test creates it for real.
const namespace = "checkpoint-finalizer"

// variant is one way to deploy: an overlay, optionally with the mTLS
// component added on top as an operator would.
type variant struct {
	name  string
	store worker.StoreKind
	dir   string
}

func variants() []variant {
	return []variant{
		{name: "zookeeper", store: worker.StoreZooKeeper, dir: "overlays/zookeeper"},
		{name: "kubernetes", store: worker.StoreKubernetes, dir: "overlays/kubernetes"},
		// The component added by a kustomization that takes the overlay as
		// its base, as an operator enables it.
		{name: "kubernetes+temporal-mtls", store: worker.StoreKubernetes, dir: "testdata/kubernetes-mtls"},
		{name: "kubernetes+temporal-api-key", store: worker.StoreKubernetes, dir: "testdata/kubernetes-api-key"},
		{name: "zookeeper+temporal-profile", store: worker.StoreZooKeeper, dir: "testdata/zookeeper-profile"},
	}
}

// render runs kustomize on dir as `kubectl apply -k` would.
func render(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	require.NoError(t, err, "kustomize %s", dir)
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		// Through JSON, as kubectl sends it: numbers become the int64 and
		// float64 that unstructured objects hold.
		b, err := r.MarshalJSON()
		require.NoError(t, err)
		obj := &unstructured.Unstructured{}
		require.NoError(t, obj.UnmarshalJSON(b))
		out = append(out, obj)
	}
	require.NotEmpty(t, out)
	return out
}

// cluster applies objects to the shared API server through discovery, as
// kubectl does.
type cluster struct {
	dyn      *dynamic.DynamicClient
	mapper   *restmapper.DeferredDiscoveryRESTMapper
	warnings *warnings
}

// warnings collects the API server's Warning headers (deprecated
// versions, ignored fields): a manifest that draws one is not clean.
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

// connect returns a client of the shared API server on which the
// ServiceMonitor CRD is established and the namespace exists, both for
// real (set up once per test binary, by apply without dry-run).
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
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(namespace)
	if err := c.send(ctx, ns, apply, true); err != nil {
		return err
	}
	raw, err := os.ReadFile("testdata/servicemonitor-crd.yaml")
	if err != nil {
		return err
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
		return fmt.Errorf("servicemonitor CRD: %w", err)
	}
	if err := c.send(ctx, crd, apply, true); err != nil {
		return err
	}
	if err := c.waitEstablished(ctx, crd.GetName()); err != nil {
		return err
	}
	// Discovery was cached before the CRD existed.
	c.mapper.Reset()
	return nil
}

func (c *cluster) waitEstablished(ctx context.Context, name string) error {
	gvr := c.dyn.Resource(apiextensionsCRDs)
	for {
		crd, err := gvr.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("CRD %s: %w", name, err)
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
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

var apiextensionsCRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// method is how an object reaches the API server.
type method int

const (
	// apply is `kubectl apply --server-side`: a server-side apply patch.
	apply method = iota
	// create is a plain POST, as `kubectl create` sends it.
	create
)

func (m method) String() string { return [...]string{"server-side apply", "create"}[m] }

// send sends obj by m with strict field validation (an unknown or
// duplicated field is an error, not a warning), dry-run unless real.
func (c *cluster) send(ctx context.Context, obj *unstructured.Unstructured, m method, real bool) error {
	gvk := obj.GroupVersionKind()
	what := fmt.Sprintf("%s %s %s/%s", m, gvk.Kind, obj.GetNamespace(), obj.GetName())
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
	switch m {
	case apply:
		body, err := obj.MarshalJSON()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
			DryRun: dryRun, FieldManager: "manifests-test", Force: new(true), FieldValidation: "Strict"})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	case create:
		_, err = ri.Create(ctx, obj, metav1.CreateOptions{DryRun: dryRun, FieldValidation: "Strict"})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Every object of every overlay is accepted by the real API server with
// server-side dry-run and strict field validation, without a warning.
func TestOverlaysApplyServerSideDryRun(t *testing.T) {
	c := connect(t)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			objs := render(t, v.dir)
			kinds := map[string]bool{}
			for _, obj := range objs {
				assert.Equal(t, namespace, obj.GetNamespace(), "%s %s", obj.GetKind(), obj.GetName())
				for _, m := range []method{apply, create} {
					require.NoError(t, c.send(ctxT(t), obj, m, false))
				}
				kinds[obj.GetKind()] = true
			}
			for _, k := range []string{"ServiceAccount", "Role", "RoleBinding", "ConfigMap", "Deployment",
				"PodDisruptionBudget", "Service", "ServiceMonitor", "NetworkPolicy"} {
				assert.True(t, kinds[k], "the overlay renders a %s", k)
			}
			assert.Empty(t, c.warnings.take(), "the API server warned")
		})
	}
}

// The same apply refuses what a broken manifest would contain: the
// dry-run above is not a test that cannot fail.
func TestBrokenManifestsAreRefused(t *testing.T) {
	c := connect(t)
	objs := render(t, "overlays/zookeeper")
	cases := []struct {
		name   string
		kind   string
		mutate func(o map[string]any)
		want   string // in the error: the refusal is for this reason
	}{
		{"unknown field in a Deployment", "Deployment", func(o map[string]any) {
			spec := o["spec"].(map[string]any)
			spec["replica"] = spec["replicas"]
		}, `spec.replica`},
		{"unknown field deep in the pod template", "Deployment", func(o map[string]any) {
			c := container(o)
			c["readinessProbe"].(map[string]any)["httpGet"].(map[string]any)["paht"] = "/readyz"
		}, `readinessProbe.httpGet.paht`},
		{"a list given as a string", "Deployment", func(o map[string]any) {
			container(o)["securityContext"].(map[string]any)["capabilities"] = map[string]any{"drop": "ALL"}
		}, "capabilities.drop"},
		{"an invalid value", "NetworkPolicy", func(o map[string]any) {
			rule := o["spec"].(map[string]any)["ingress"].([]any)[0].(map[string]any)
			rule["ports"].([]any)[0].(map[string]any)["protocol"] = "HTTP"
		}, `spec.ingress[0].ports[0].protocol: Unsupported value: "HTTP"`},
		{"an API version no longer served", "PodDisruptionBudget", func(o map[string]any) {
			o["apiVersion"] = "policy/v1beta1"
		}, `no matches for kind "PodDisruptionBudget" in version "policy/v1beta1"`},
		{"an API version never served", "Deployment", func(o map[string]any) {
			o["apiVersion"] = "apps/v2"
		}, `no matches for kind "Deployment" in version "apps/v2"`},
		{"unknown field in the ServiceMonitor", "ServiceMonitor", func(o map[string]any) {
			ep := o["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
			ep["intervall"] = "30s"
		}, `spec.endpoints[0].intervall`},
		{"a ServiceMonitor value outside its schema", "ServiceMonitor", func(o map[string]any) {
			ep := o["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
			ep["interval"] = "30 seconds"
		}, `spec.endpoints[0].interval: Invalid value: "30 seconds"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := find(t, objs, tc.kind).DeepCopy()
			tc.mutate(obj.Object)
			for _, m := range []method{apply, create} {
				err := c.send(ctxT(t), obj, m, false)
				require.Error(t, err, m)
				assert.Contains(t, err.Error(), tc.want)
				t.Log(err)
			}
		})
	}
}

func container(deployment map[string]any) map[string]any {
	spec := deployment["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}

func find(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	var found *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			require.Nil(t, found, "one %s", kind)
			found = o
		}
	}
	require.NotNil(t, found, "a %s", kind)
	return found
}

// typed converts the one object of kind into its Go type.
func typed[T any](t *testing.T, objs []*unstructured.Unstructured, kind string) *T {
	t.Helper()
	var out T
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(find(t, objs, kind).Object, &out, true), kind)
	return &out
}
