package charttest

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// bucketSecretVariables are the bucket SDKs' credential variables: from a
// Secret only, like the worker's own secretSettings.
var bucketSecretVariables = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "GOOGLE_APPLICATION_CREDENTIALS"}

// No ConfigMap of any value set holds a secret, and the worker takes its
// own secrets as files of mounted Secrets: no variable of the worker
// container is read from a Secret, the API key and the digest password
// are FINALIZER_*_FILE naming the mounted key, and the bucket's
// credentials are a Secret's variables and key file.
func TestSecretsAreFilesNeverConfigMaps(t *testing.T) {
	for _, s := range valueSets() {
		t.Run(s.name, func(t *testing.T) {
			objs := mustRender(t, s.values(t))
			for _, o := range objs {
				if o.GetKind() != "ConfigMap" {
					continue
				}
				var cm corev1.ConfigMap
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cm))
				for k := range cm.Data {
					assert.NotContains(t, secretSettings, k, "ConfigMap %s holds a secret", cm.Name)
					assert.NotContains(t, bucketSecretVariables, k, "ConfigMap %s holds a bucket credential", cm.Name)
				}
			}
			pod := typed[appsv1.Deployment](t, objs, "Deployment").Spec.Template.Spec
			for _, e := range workerContainer(t, pod).Env {
				assert.False(t, e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil, "%s from a Secret as a variable", e.Name)
			}
		})
	}

	objs := mustRender(t, parseValues(t, secretsValues))
	pod := typed[appsv1.Deployment](t, objs, "Deployment").Spec.Template.Spec
	c := workerContainer(t, pod)
	for variable, want := range map[string]struct{ secret, key string }{
		"FINALIZER_TEMPORAL_API_KEY_FILE":          {"temporal-cloud", "token"},
		"FINALIZER_ZOOKEEPER_DIGEST_PASSWORD_FILE": {"zk-digest", "pw"},
		"GOOGLE_APPLICATION_CREDENTIALS":           {"gcs-sa", "sa.json"},
	} {
		secret, key := mountedKey(t, pod, c, envValue(t, c, variable))
		assert.Equal(t, want.secret, secret, variable)
		assert.Equal(t, want.key, key, variable)
	}
	assert.True(t, slices.ContainsFunc(c.EnvFrom, func(e corev1.EnvFromSource) bool {
		return e.SecretRef != nil && e.SecretRef.Name == "bucket-env"
	}), "the bucket's variables from bucketCredentials.secretName")
}

func envValue(t *testing.T, c corev1.Container, name string) string {
	t.Helper()
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	require.GreaterOrEqual(t, i, 0, "%s is set", name)
	return c.Env[i].Value
}

// mountedKey is the Secret and key whose file is path in container c.
func mountedKey(t *testing.T, pod corev1.PodSpec, c corev1.Container, path string) (secret, key string) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		require.GreaterOrEqual(t, i, 0)
		vol := pod.Volumes[i].Secret
		if vol == nil {
			continue
		}
		for _, it := range vol.Items {
			if m.MountPath+"/"+it.Path == path {
				assert.True(t, m.ReadOnly, "%s mounted read-only", path)
				return vol.SecretName, it.Key
			}
		}
	}
	t.Fatalf("%s is no key of a mounted Secret", path)
	return "", ""
}
