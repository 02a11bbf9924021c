package charttest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeDir is the kustomize base's directory, from this package's.
var kustomizeDir = filepath.Join("..", "..", "kubernetes")

// renderKustomize runs kustomize on an overlay of deploy/kubernetes as
// `kubectl apply -k` would.
func renderKustomize(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(kustomizeDir, dir))
	require.NoError(t, err, "kustomize %s", dir)
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		b, err := r.MarshalJSON()
		require.NoError(t, err)
		obj := &unstructured.Unstructured{}
		require.NoError(t, obj.UnmarshalJSON(b))
		out = append(out, obj)
	}
	return out
}

// The chart's values that deploy what each kustomize overlay deploys: the
// defaults plus what an overlay's worker.env and patches choose. The
// chart's defaults are the base's, so these stay short.
var kustomizeTwins = []struct{ overlay, values string }{
	{"overlays/zookeeper", bucket + `
store:
  kind: zookeeper
  zookeeper:
    servers:
      - zookeeper-0.zookeeper-headless.zookeeper.svc.cluster.local:2181
      - zookeeper-1.zookeeper-headless.zookeeper.svc.cluster.local:2181
      - zookeeper-2.zookeeper-headless.zookeeper.svc.cluster.local:2181
serviceMonitor: {enabled: true}
`},
	{"overlays/kubernetes", bucket + `
store: {kind: kubernetes}
serviceMonitor: {enabled: true}
`},
	{"testdata/zookeeper-profile", bucket + `
store: {kind: zookeeper, zookeeper: {servers: ["zookeeper-0.zookeeper-headless.zookeeper.svc.cluster.local:2181",
  "zookeeper-1.zookeeper-headless.zookeeper.svc.cluster.local:2181", "zookeeper-2.zookeeper-headless.zookeeper.svc.cluster.local:2181"]}}
temporal:
  address: ""
  namespace: ""
  profile: {name: prod, secretName: checkpoint-finalizer-temporal-config}
serviceMonitor: {enabled: true}
`},
	{"testdata/kubernetes-api-key", bucket + `
store: {kind: kubernetes}
temporal: {apiKeySecret: {name: checkpoint-finalizer-temporal}}
serviceMonitor: {enabled: true}
`},
	{"testdata/kubernetes-mtls", bucket + `
store: {kind: kubernetes}
temporal:
  tls: {secretName: checkpoint-finalizer-temporal-tls}
serviceMonitor: {enabled: true}
`},
}

// The chart and the kustomize base deploy the same worker: the same
// container (image, arguments, environment, probes, resources, security,
// mounts), the same pod and rollout settings, the same RBAC rules, network
// policy, disruption budget, Service and scrape configuration. Only names
// and labels differ (the chart's carry the release).
func TestChartMatchesKustomize(t *testing.T) {
	for _, twin := range kustomizeTwins {
		t.Run(twin.overlay, func(t *testing.T) {
			k := renderKustomize(t, twin.overlay)
			h := mustRender(t, parseValues(t, twin.values))

			kd, hd := typed[appsv1.Deployment](t, k, "Deployment"), typed[appsv1.Deployment](t, h, "Deployment")
			assert.Equal(t, kd.Spec.Replicas, hd.Spec.Replicas, "replicas")
			assert.Equal(t, kd.Spec.Strategy, hd.Spec.Strategy, "strategy")
			assert.Equal(t, kd.Spec.RevisionHistoryLimit, hd.Spec.RevisionHistoryLimit)
			kp, hp := kd.Spec.Template.Spec, hd.Spec.Template.Spec
			assert.Equal(t, kp.SecurityContext, hp.SecurityContext, "pod securityContext")
			assert.Equal(t, kp.TerminationGracePeriodSeconds, hp.TerminationGracePeriodSeconds)
			assert.Equal(t, kp.AutomountServiceAccountToken, hp.AutomountServiceAccountToken)
			assert.Equal(t, secretVolumes(kp), secretVolumes(hp), "mounted Secrets")
			require.Len(t, hp.TopologySpreadConstraints, len(kp.TopologySpreadConstraints))
			for i := range kp.TopologySpreadConstraints {
				kc, hc := kp.TopologySpreadConstraints[i], hp.TopologySpreadConstraints[i]
				kc.LabelSelector, hc.LabelSelector = nil, nil
				assert.Equal(t, kc, hc, "topology spread")
			}

			require.Len(t, kp.Containers, 1)
			require.Len(t, hp.Containers, 1)
			kc, hc := kp.Containers[0], hp.Containers[0]
			assert.Equal(t, kc.Name, hc.Name)
			assert.Equal(t, kc.Image, hc.Image, "the same release of the image")
			assert.Equal(t, kc.ImagePullPolicy, hc.ImagePullPolicy)
			assert.Equal(t, kc.Command, hc.Command, "command")
			assert.Equal(t, kc.Args, hc.Args, "args")
			assert.Equal(t, kc.Env, hc.Env, "env")
			assert.Equal(t, settings(typed[corev1.ConfigMap](t, k, "ConfigMap").Data), settings(typed[corev1.ConfigMap](t, h, "ConfigMap").Data),
				"the ConfigMap's settings")
			assert.Equal(t, kc.Ports, hc.Ports, "ports")
			assert.Equal(t, kc.StartupProbe, hc.StartupProbe, "startupProbe")
			assert.Equal(t, kc.LivenessProbe, hc.LivenessProbe, "livenessProbe")
			assert.Equal(t, kc.ReadinessProbe, hc.ReadinessProbe, "readinessProbe")
			assert.Equal(t, kc.Resources, hc.Resources, "resources")
			assert.Equal(t, kc.SecurityContext, hc.SecurityContext, "container securityContext")
			assert.Equal(t, kc.VolumeMounts, hc.VolumeMounts, "mounts")

			if *kp.AutomountServiceAccountToken {
				assert.Equal(t, typed[rbacv1.Role](t, k, "Role").Rules, typed[rbacv1.Role](t, h, "Role").Rules, "RBAC rules")
			}
			kn, hn := typed[networkingv1.NetworkPolicy](t, k, "NetworkPolicy"), typed[networkingv1.NetworkPolicy](t, h, "NetworkPolicy")
			assert.Equal(t, kn.Spec.PolicyTypes, hn.Spec.PolicyTypes)
			assert.Equal(t, kn.Spec.Ingress, hn.Spec.Ingress, "ingress")
			assert.Equal(t, kn.Spec.Egress, hn.Spec.Egress, "egress")
			assert.Equal(t, typed[policyv1.PodDisruptionBudget](t, k, "PodDisruptionBudget").Spec.MaxUnavailable,
				typed[policyv1.PodDisruptionBudget](t, h, "PodDisruptionBudget").Spec.MaxUnavailable, "PDB")
			assert.Equal(t, typed[corev1.Service](t, k, "Service").Spec.Ports, typed[corev1.Service](t, h, "Service").Spec.Ports, "Service ports")
			assert.Equal(t, find(t, k, "ServiceMonitor").Object["spec"].(map[string]any)["endpoints"],
				find(t, h, "ServiceMonitor").Object["spec"].(map[string]any)["endpoints"], "scrape endpoints")
		})
	}
}

// secretVolumes are the pod's Secret volumes by name (the chart's and the
// base's other volumes differ by store: none here).
func secretVolumes(p corev1.PodSpec) map[string]corev1.SecretVolumeSource {
	out := map[string]corev1.SecretVolumeSource{}
	for _, v := range p.Volumes {
		if v.Secret != nil {
			out[v.Name] = *v.Secret
		}
	}
	return out
}

// settings are a ConfigMap's variables that are set: the worker reads an
// empty one as unset (kustomize empties the base's to let a profile's
// through; the chart leaves them out).
func settings(data map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range data {
		if v != "" {
			out[k] = v
		}
	}
	return out
}
