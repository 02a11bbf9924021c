package charttest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/checkpoint-finalizer/finalizer/tools/topology"
)

// The optional Web UI: none by default; enabled, a Deployment and a
// Service of its own running the UI version the production topology runs
// (and the Web UI test reads a stuck finalization through), in front of
// the frontend the workers poll, over their mTLS Secret, its pods apart
// from the workers' selectors.
func TestChartWebUI(t *testing.T) {
	for _, s := range valueSets() {
		objs := mustRender(t, s.values(t))
		if !strings.HasSuffix(s.name, "+ui") {
			assert.Empty(t, uiObjects(objs), "%s: no Web UI unless ui.enabled", s.name)
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			d, svc := uiParts(t, objs)
			pod := d.Spec.Template.Spec
			require.Len(t, pod.Containers, 1)
			c := pod.Containers[0]
			assert.Equal(t, "temporalio/ui:"+strings.TrimPrefix(topology.UIVersion, "v"), c.Image)
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			workers := typed[appsv1.Deployment](t, objs, "Deployment").Spec.Template.Spec
			cfg := containerEnv(t, objs, workers, workers.Containers[0])
			assert.Equal(t, cfg["FINALIZER_TEMPORAL_ADDRESS"], env["TEMPORAL_ADDRESS"], "the workers' frontend")
			assert.Equal(t, cfg["FINALIZER_TEMPORAL_NAMESPACE"], env["TEMPORAL_DEFAULT_NAMESPACE"])
			assert.Equal(t, cfg["FINALIZER_TEMPORAL_TLS_SERVER_NAME"], env["TEMPORAL_TLS_SERVER_NAME"])
			// The paths as the pods see them (containerEnv points the
			// workers' at files of the test's own).
			files := map[string]string{}
			for _, e := range workers.Containers[0].Env {
				files[e.Name] = e.Value
			}
			for _, k := range []string{"TEMPORAL_TLS_CA", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY"} {
				assert.Equal(t, files["FINALIZER_"+k+"_FILE"], env[k], "%s: the workers' mTLS files", k)
			}
			read := imageVariables(t)
			for k := range env {
				assert.True(t, read[k], "%s is not a variable the image's configuration reads", k)
			}
			require.Len(t, c.Ports, 1)
			assert.Equal(t, env["TEMPORAL_UI_PORT"], strconv.Itoa(int(c.Ports[0].ContainerPort)), "the image listens on TEMPORAL_UI_PORT")
			for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
				require.NotNil(t, p)
				assert.Equal(t, "/healthz", p.HTTPGet.Path)
				assert.Equal(t, c.Ports[0].Name, p.HTTPGet.Port.String())
			}
			// The chart's security values, as the workers': the image's
			// files are everyone's to read and it writes none, so it runs
			// as any user (OpenShift's restricted-v2 assigns one).
			checkSecurity(t, pod, c)
			assert.Equal(t, workers.SecurityContext, pod.SecurityContext, "the workers' pod security context")
			assert.Equal(t, workerContainer(t, workers).SecurityContext, c.SecurityContext, "the workers' container security context")

			require.Len(t, pod.Volumes, 1)
			require.Len(t, c.VolumeMounts, 1)
			assert.Equal(t, "temporal-tls", pod.Volumes[0].Secret.SecretName, "the workers' mTLS Secret")
			assert.Equal(t, pod.Volumes[0].Name, c.VolumeMounts[0].Name)
			assert.True(t, strings.HasPrefix(env["TEMPORAL_TLS_CERT"], c.VolumeMounts[0].MountPath+"/"), "the files come from the Secret")

			podLabels := labels.Set(d.Spec.Template.Labels)
			assert.True(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels), "the UI Service selects the UI pods")
			assert.Equal(t, c.Ports[0].Name, svc.Spec.Ports[0].TargetPort.String())
			for _, kind := range []string{"Service", "PodDisruptionBudget", "NetworkPolicy"} {
				assert.False(t, selects(t, find(t, objs, kind), podLabels), "the workers' %s does not select the UI pods", kind)
			}
			assert.False(t, labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(
				labels.Set(typed[appsv1.Deployment](t, objs, "Deployment").Spec.Template.Labels)), "the UI Deployment does not select the workers")
		})
	}

	// ui.temporalAddress wins; Temporal Cloud's API key cannot be used.
	zk := bucket + "store: {kind: zookeeper, zookeeper: {servers: [\"zk:2181\"]}}\n"
	d, _ := uiParts(t, mustRender(t, parseValues(t, zk+"ui: {enabled: true, temporalAddress: \"temporal-frontend.other:7233\"}")))
	assert.Equal(t, "temporal-frontend.other:7233", d.Spec.Template.Spec.Containers[0].Env[0].Value)
	_, err := renderChart(parseValues(t, zk+"temporal: {apiKeySecret: {name: cloud}}\nui: {enabled: true}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ui.enabled: the Web UI server cannot present a Temporal Cloud API key")
	_, err = renderChart(parseValues(t, zk+"ui: {enabled: true, image: {tag: latest}}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/ui/image/tag")
}

func uiObjects(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetLabels()[componentLabel] == "ui" {
			out = append(out, o)
		}
	}
	return out
}

// uiParts are the Web UI's Deployment and Service, its only objects.
func uiParts(t *testing.T, objs []*unstructured.Unstructured) (*appsv1.Deployment, *corev1.Service) {
	t.Helper()
	ui := uiObjects(objs)
	require.Len(t, ui, 2, "the Web UI's Deployment and Service")
	var d appsv1.Deployment
	var svc corev1.Service
	for _, o := range ui {
		switch o.GetKind() {
		case "Deployment":
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, &d, true))
		case "Service":
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, &svc, true))
		default:
			t.Fatalf("a Web UI %s", o.GetKind())
		}
	}
	return &d, &svc
}

// selects reports whether a worker object's pod selector (a Service's
// selector, a PodDisruptionBudget's or NetworkPolicy's matchLabels)
// matches pods labelled set.
func selects(t *testing.T, o *unstructured.Unstructured, set labels.Set) bool {
	t.Helper()
	path := map[string][]string{
		"Service":             {"spec", "selector"},
		"PodDisruptionBudget": {"spec", "selector", "matchLabels"},
		"NetworkPolicy":       {"spec", "podSelector", "matchLabels"},
	}[o.GetKind()]
	sel, ok, err := unstructured.NestedStringMap(o.Object, path...)
	require.NoError(t, err)
	require.True(t, ok, "%s has %v", o.GetKind(), path)
	return labels.SelectorFromSet(sel).Matches(set)
}

// imageVariables are the variables the temporalio/ui image's configuration
// reads: config/docker.yaml of github.com/temporalio/ui-server/v2 at the
// topology's UI version (the module proxy's copy), a template the server
// renders with {{ env "NAME" }}.
func imageVariables(t *testing.T) map[string]bool {
	t.Helper()
	b, err := topology.UIImageConfig()
	require.NoError(t, err)
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`env "([A-Z0-9_]+)"`).FindAllStringSubmatch(string(b), -1) {
		read[m[1]] = true
	}
	require.True(t, read["TEMPORAL_ADDRESS"], "the template names its variables: %s", b)
	return read
}
