package charttest

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// platformBase is a release the platform tests vary: mTLS, so that a
// Secret is mounted and its file mode shows.
const platformBase = bucket + `
store: {kind: zookeeper, zookeeper: {servers: ["zk:2181"]}}
temporal: {tls: {secretName: temporal-tls}}
`

func renderPod(t *testing.T, values string) corev1.PodSpec {
	t.Helper()
	return typed[appsv1.Deployment](t, mustRender(t, parseValues(t, values)), "Deployment").Spec.Template.Spec
}

func secretMode(t *testing.T, pod corev1.PodSpec, name string) int32 {
	t.Helper()
	i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == name })
	require.GreaterOrEqual(t, i, 0, "volume %s", name)
	require.NotNil(t, pod.Volumes[i].Secret)
	require.NotNil(t, pod.Volumes[i].Secret.DefaultMode)
	return *pod.Volumes[i].Secret.DefaultMode
}

// By default the pod runs as the image's user, group and fsGroup, and a
// mounted Secret is readable by that group only.
func TestPodRunsAsTheImageUserByDefault(t *testing.T) {
	pod := renderPod(t, platformBase)
	ps := pod.SecurityContext
	require.NotNil(t, ps)
	assert.Equal(t, &corev1.PodSecurityContext{
		RunAsNonRoot: new(true), RunAsUser: new(int64(imageUID)), RunAsGroup: new(int64(imageUID)), FSGroup: new(int64(imageUID)),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}, ps)
	assert.Equal(t, int32(0o440), secretMode(t, pod, "temporal-tls"))
}

// OpenShift's restricted-v2 refuses a pod naming its own uid or fsGroup:
// with them unset (each to null, or the whole context) the pod names
// none, keeps the floor (non-root, RuntimeDefault seccomp, the container's
// restrictions), and a mounted Secret is readable by whatever uid runs.
func TestOpenShiftContextNamesNoUser(t *testing.T) {
	for name, values := range map[string]string{
		"fields unset":  platformBase + openshiftValues,
		"context unset": platformBase + "podSecurityContext: null\nsecurityContext: null\n",
	} {
		t.Run(name, func(t *testing.T) {
			pod := renderPod(t, values)
			assert.Equal(t, &corev1.PodSecurityContext{
				RunAsNonRoot:   new(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			}, pod.SecurityContext)
			c := workerContainer(t, pod)
			checkSecurity(t, pod, c)
			assert.Nil(t, c.SecurityContext.RunAsUser)
			assert.Equal(t, int32(0o444), secretMode(t, pod, "temporal-tls"))

			d, _ := uiParts(t, mustRender(t, parseValues(t, values+"ui: {enabled: true}\n")))
			ui := d.Spec.Template.Spec
			assert.Equal(t, pod.SecurityContext, ui.SecurityContext, "the Web UI's pod names no user either")
			require.Len(t, ui.Containers, 1)
			checkSecurity(t, ui, ui.Containers[0])
			assert.Nil(t, ui.Containers[0].SecurityContext.RunAsUser)
			assert.Equal(t, int32(0o444), secretMode(t, ui, "temporal-tls"))
		})
	}
}

// The workers spread over zones, then hosts, counting the release's
// workers; a list given replaces that one, and an empty list spreads
// nothing.
func TestTopologySpread(t *testing.T) {
	pod := renderPod(t, platformBase)
	var keys []string
	for _, c := range pod.TopologySpreadConstraints {
		keys = append(keys, c.TopologyKey)
		assert.Equal(t, corev1.ScheduleAnyway, c.WhenUnsatisfiable)
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		require.NoError(t, err)
		assert.True(t, sel.Matches(labels.Set(map[string]string{
			"app.kubernetes.io/name": "checkpoint-finalizer", "app.kubernetes.io/instance": releaseName, "app.kubernetes.io/component": "worker",
		})), "%s counts the workers", c.TopologyKey)
		assert.False(t, sel.Matches(labels.Set(map[string]string{
			"app.kubernetes.io/name": "checkpoint-finalizer", "app.kubernetes.io/instance": releaseName, "app.kubernetes.io/component": "ui",
		})), "%s counts only the workers", c.TopologyKey)
	}
	assert.Equal(t, []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"}, keys)

	pod = renderPod(t, bucket+extrasValues)
	require.Len(t, pod.TopologySpreadConstraints, 1, "the list given replaces the default")
	assert.Equal(t, "topology.kubernetes.io/region", pod.TopologySpreadConstraints[0].TopologyKey)
	assert.NotNil(t, pod.TopologySpreadConstraints[0].LabelSelector, "the release's workers by default")

	assert.Empty(t, renderPod(t, platformBase+"topologySpreadConstraints: []\n").TopologySpreadConstraints)
}

// Every value that adds to the pod reaches it, after what the chart sets:
// variables after the chart's, the operator's envFrom before the chart's
// ConfigMap (the last source wins a clash), volumes, mounts, sidecars.
func TestExtrasReachThePod(t *testing.T) {
	pod := renderPod(t, bucket+extrasValues)
	c := workerContainer(t, pod)
	require.GreaterOrEqual(t, len(c.Env), 2)
	assert.Equal(t, []string{"HTTPS_PROXY", "NO_PROXY"}, []string{c.Env[len(c.Env)-2].Name, c.Env[len(c.Env)-1].Name})
	require.Len(t, c.EnvFrom, 2)
	assert.Equal(t, "bucket-credentials", c.EnvFrom[0].SecretRef.Name)
	assert.NotNil(t, c.EnvFrom[1].ConfigMapRef, "the chart's ConfigMap last")
	assert.Contains(t, c.VolumeMounts, corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"})
	assert.True(t, slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == "tmp" && v.EmptyDir != nil }))
	var names []string
	for _, c := range pod.Containers {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"worker", "proxy"}, names)
	assert.Equal(t, new(int64(10001)), pod.SecurityContext.RunAsUser)
	assert.Equal(t, new(true), c.SecurityContext.RunAsNonRoot, "an added field")
	assert.Equal(t, new(true), c.SecurityContext.ReadOnlyRootFilesystem, "over the floor")
}
