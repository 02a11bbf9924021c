package charttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/cert"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// runtimeEnv are the variables outside FINALIZER_* that a manifest may
// set: the Go runtime's memory limit and what it is computed from, where
// Temporal's client configuration file is, the GCS key file the bucket's
// SDK reads, and the proxy settings Go's HTTP and gRPC clients read (the
// extras value set's extraEnv).
var runtimeEnv = []string{"GOMEMLIMIT", "CONTAINER_MEMORY_LIMIT_MIB", "TEMPORAL_CONFIG_FILE", "GOOGLE_APPLICATION_CREDENTIALS",
	"HTTPS_PROXY", "NO_PROXY"}

// secretSettings may come from a Secret only.
var secretSettings = []string{flagenv.EnvName("temporal-api-key"), flagenv.EnvName("zookeeper-digest-password")}

// profileTOML is what the test puts in a mounted temporal.toml: the
// profile the profile value set names.
const profileTOML = `[profile.prod]
address = "temporal.prod.example:7233"
namespace = "prod"
`

// workerEnvNames are the variables `finalizer-worker -h` lists.
func workerEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	var b bytes.Buffer
	worker.Usage(&b)
	names := map[string]bool{}
	for _, n := range regexp.MustCompile(`\b`+flagenv.Prefix+`[A-Z0-9_]+\b`).FindAllString(b.String(), -1) {
		names[n] = true
	}
	require.True(t, names[flagenv.EnvName("shutdown-grace")], "usage lists the variables")
	for _, n := range runtimeEnv {
		names[n] = true
	}
	return names
}

// containerEnv resolves the container's environment as the kubelet would:
// the ConfigMap of envFrom, then env in order with $(VAR) expanded, a
// resourceFieldRef computed from the container's resources. A Secret's
// value is a placeholder; a file in a mounted Secret is a real file in a
// temporary directory (PEM files a fresh self-signed pair, a .toml file
// the test's profile), so that the worker's validation loads it.
func containerEnv(t *testing.T, objs []*unstructured.Unstructured, pod corev1.PodSpec, c corev1.Container) map[string]string {
	t.Helper()
	known := workerEnvNames(t)
	env := map[string]string{}
	cm := typed[corev1.ConfigMap](t, objs, "ConfigMap")
	for i, from := range c.EnvFrom {
		assert.Empty(t, from.Prefix)
		if i < len(c.EnvFrom)-1 {
			// The operator's (envFrom), unknown here; the chart's
			// ConfigMap comes last so that it wins a clash.
			require.NotNil(t, from.SecretRef, "the operator's envFrom, a Secret here")
			continue
		}
		require.NotNil(t, from.ConfigMapRef, "envFrom ends with the ConfigMap")
		require.Equal(t, cm.Name, from.ConfigMapRef.Name, "envFrom names the release's ConfigMap")
		for k, v := range cm.Data {
			assert.True(t, known[k], "ConfigMap key %s is a variable the worker reads", k)
			assert.NotContains(t, secretSettings, k, "a secret in the ConfigMap")
			env[k] = v
		}
	}
	for _, e := range c.Env {
		assert.True(t, known[e.Name], "env %s is a variable the worker reads", e.Name)
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = "from-secret-" + e.ValueFrom.SecretKeyRef.Name
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
			env[e.Name] = "from-configmap-" + e.ValueFrom.ConfigMapKeyRef.Name
		case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil:
			env[e.Name] = resourceField(t, c, *e.ValueFrom.ResourceFieldRef)
		default:
			require.Nil(t, e.ValueFrom, "env %s: only Secret, ConfigMap and resource references", e.Name)
			assert.NotContains(t, secretSettings, e.Name, "a secret as a literal")
			env[e.Name] = expand(e.Value, env)
		}
	}
	secretFiles := secretMounts(t, pod, c)
	for k, v := range env {
		for mount, dir := range secretFiles {
			if rest, ok := strings.CutPrefix(v, mount+"/"); ok {
				env[k] = filepath.Join(dir, rest)
				_, err := os.Stat(env[k])
				assert.NoError(t, err, "%s names a file of the mounted Secret", k)
			}
		}
	}
	return env
}

// expand replaces $(VAR) by a variable defined before, as the kubelet does
// (an undefined one stays as written).
func expand(v string, env map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(v, func(m string) string {
		if val, ok := env[m[2:len(m)-1]]; ok {
			return val
		}
		return m
	})
}

// resourceField is the kubelet's value of a resourceFieldRef: the
// container's quantity divided by the divisor, rounded up.
func resourceField(t *testing.T, c corev1.Container, ref corev1.ResourceFieldSelector) string {
	t.Helper()
	require.Equal(t, c.Name, ref.ContainerName, "resourceFieldRef names its own container")
	require.Equal(t, "limits.memory", ref.Resource, "only the memory limit is read")
	limit, ok := c.Resources.Limits[corev1.ResourceMemory]
	require.True(t, ok, "a memory limit for %s to read", ref.Resource)
	div := ref.Divisor.Value()
	require.Positive(t, div)
	return fmt.Sprint((limit.Value() + div - 1) / div)
}

// secretMounts maps the mount path of each mounted Secret to a directory
// holding its files.
func secretMounts(t *testing.T, pod corev1.PodSpec, c corev1.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		require.GreaterOrEqual(t, i, 0, "volume %s", m.Name)
		vol := pod.Volumes[i]
		if vol.PersistentVolumeClaim != nil || vol.EmptyDir != nil {
			continue
		}
		require.NotNil(t, vol.Secret, "volume %s: only Secrets, the embedded store's claim and scratch space", m.Name)
		assert.True(t, m.ReadOnly, "volume %s read-only", m.Name)
		files := []string{"tls.crt", "tls.key", "ca.crt"}
		if len(vol.Secret.Items) > 0 {
			files = nil
			for _, it := range vol.Secret.Items {
				files = append(files, it.Path)
			}
		}
		certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("temporal.test", nil, nil)
		require.NoError(t, err)
		dir := t.TempDir()
		for _, name := range files {
			var b []byte
			switch filepath.Ext(name) {
			case ".toml":
				b = []byte(profileTOML)
			case ".key":
				b = keyPEM
			default:
				b = certPEM
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
		}
		out[strings.TrimSuffix(m.MountPath, "/")] = dir
	}
	return out
}
