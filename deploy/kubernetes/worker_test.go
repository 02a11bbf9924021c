package kubernetes_test

import (
	"bytes"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/cert"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// What the API server cannot check: that the manifests fit the worker they
// run. Every rendered variant must configure a worker that passes its own
// validation, probe the endpoints it serves, outlast its shutdown grace,
// run as the image's user and let through exactly the traffic it needs.
func TestManifestsFitTheWorker(t *testing.T) {
	uid, gid := imageUser(t)
	known := workerEnvNames(t)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			objs := render(t, v.dir)
			d := typed[appsv1.Deployment](t, objs, "Deployment")
			pod := d.Spec.Template.Spec
			require.Len(t, pod.Containers, 1)
			c := pod.Containers[0]
			assert.Equal(t, int32(2), *d.Spec.Replicas)

			env := containerEnv(t, objs, pod, c, known)
			cfg, err := worker.LoadConfig(nil, func(k string) string { return env[k] })
			require.NoError(t, err)
			require.NoError(t, cfg.Validate(), "the worker accepts the configuration")
			assert.Equal(t, v.store, cfg.Store.Kind)
			if _, ok := env["TEMPORAL_CONFIG_FILE"]; ok {
				assert.Equal(t, "temporal.prod.example:7233", cfg.Temporal.Address, "the profile's address")
				assert.Equal(t, "prod", cfg.Temporal.Namespace, "the profile's namespace")
			}

			// The bucket is shared with the job managers: an object store,
			// never the pod's own disk or memory.
			bucket, err := url.Parse(cfg.StateBucket)
			require.NoError(t, err)
			assert.Contains(t, []string{"s3", "gs", "azblob"}, bucket.Scheme, "state bucket")

			// Probes on the worker's endpoints, at the port it listens on.
			metricsPort := port(t, cfg.MetricsAddress)
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			assert.Equal(t, metricsPort, ports["metrics"], "container port metrics is FINALIZER_METRICS_ADDRESS's")
			host, _, err := net.SplitHostPort(cfg.MetricsAddress)
			require.NoError(t, err)
			assert.Contains(t, []string{"", "0.0.0.0", "::"}, host, "the kubelet reaches the metrics address on the pod IP")
			for probe, want := range map[*corev1.Probe]string{c.StartupProbe: "/livez", c.ReadinessProbe: "/readyz", c.LivenessProbe: "/livez"} {
				require.NotNil(t, probe, want)
				require.NotNil(t, probe.HTTPGet, want)
				assert.Equal(t, want, probe.HTTPGet.Path)
				assert.Equal(t, metricsPort, resolvePort(t, probe.HTTPGet.Port, ports), want)
			}

			// SIGKILL only after the worker's own drain.
			require.NotNil(t, pod.TerminationGracePeriodSeconds)
			assert.Greater(t, *pod.TerminationGracePeriodSeconds, int64(cfg.ShutdownGrace.Seconds()),
				"terminationGracePeriodSeconds above FINALIZER_SHUTDOWN_GRACE %s", cfg.ShutdownGrace)

			checkSecurity(t, pod, c, uid, gid)
			checkMemoryLimit(t, c, env)
			assert.NotEmpty(t, c.Resources.Requests, "requests")
			assert.NotEmpty(t, c.Resources.Limits, "limits")
			require.NotNil(t, pod.AutomountServiceAccountToken)
			assert.Equal(t, v.store == worker.StoreKubernetes, *pod.AutomountServiceAccountToken,
				"only the Kubernetes store mounts the service account token")
			checkRBAC(t, objs, pod.ServiceAccountName)
			checkMonitoring(t, objs, d, metricsPort)
			checkNetworkPolicy(t, objs, d, metricsPort, cfg)
		})
	}
}

// workerEnvNames are the variables `finalizer-worker -h` lists, i.e. those
// worker/settings.go reads.
func workerEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	var b bytes.Buffer
	worker.Usage(&b)
	names := map[string]bool{}
	for _, n := range regexp.MustCompile(`\b`+flagenv.Prefix+`[A-Z0-9_]+\b`).FindAllString(b.String(), -1) {
		names[n] = true
	}
	require.True(t, names[flagenv.EnvName("shutdown-grace")], "usage lists the variables")
	// The Go runtime's memory limit and the container limit it is made of.
	names["GOMEMLIMIT"], names["CONTAINER_MEMORY_LIMIT_MIB"] = true, true
	// Where Temporal's client configuration file is (components/temporal-profile).
	names["TEMPORAL_CONFIG_FILE"] = true
	return names
}

// secretSettings may come from a Secret only, never from the ConfigMap or
// a literal in the manifest.
var secretSettings = []string{flagenv.EnvName("temporal-api-key"), flagenv.EnvName("zookeeper-digest-password")}

// containerEnv resolves the container's environment as the kubelet would:
// the ConfigMap of envFrom, then env. A Secret's value is a placeholder; a
// file in a mounted Secret is a real file of that name in a temporary
// directory (PEM files a fresh self-signed key pair), so that the worker's
// validation loads it.
func containerEnv(t *testing.T, objs []*unstructured.Unstructured, pod corev1.PodSpec, c corev1.Container, known map[string]bool) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		require.NotNil(t, from.ConfigMapRef, "envFrom only from the ConfigMap")
		assert.Empty(t, from.Prefix)
		cm := typed[corev1.ConfigMap](t, objs, "ConfigMap")
		require.Equal(t, cm.Name, from.ConfigMapRef.Name, "envFrom names the generated ConfigMap")
		for k, v := range cm.Data {
			assert.True(t, known[k], "ConfigMap key %s is a variable the worker reads", k)
			assert.NotContains(t, secretSettings, k, "a secret in the ConfigMap")
			env[k] = v
		}
	}
	secretFiles := secretMounts(t, pod, c)
	for _, e := range c.Env {
		assert.True(t, known[e.Name], "env %s is a variable the worker reads", e.Name)
		switch {
		case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil:
			env[e.Name] = resourceField(t, c, *e.ValueFrom.ResourceFieldRef)
		case e.ValueFrom != nil:
			require.NotNil(t, e.ValueFrom.SecretKeyRef, "env %s: only Secret and resource references", e.Name)
			env[e.Name] = "from-secret-" + e.ValueFrom.SecretKeyRef.Name
		default:
			assert.NotContains(t, secretSettings, e.Name, "a secret as a literal")
			env[e.Name] = expand(e.Value, env)
		}
	}
	for k, v := range env {
		for mount, dir := range secretFiles {
			if rest, ok := strings.CutPrefix(v, mount+"/"); ok {
				env[k] = filepath.Join(dir, rest)
				_, err := os.Stat(env[k])
				assert.NoError(t, err, "%s names a key of the mounted Secret", k)
			}
		}
	}
	return env
}

// expand replaces $(VAR) by a variable defined before, as the kubelet
// does (an undefined one stays as written).
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
	return strconv.FormatInt((limit.Value()+div-1)/div, 10)
}

// profileTOML is the temporal.toml the test mounts: the profile the
// profile variant names.
const profileTOML = `[profile.prod]
address = "temporal.prod.example:7233"
namespace = "prod"
`

// secretMounts maps the mount path of each mounted Secret to a directory
// holding the keys a kubernetes.io/tls Secret with a CA has.
func secretMounts(t *testing.T, pod corev1.PodSpec, c corev1.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		require.GreaterOrEqual(t, i, 0, "volume %s", m.Name)
		vol := pod.Volumes[i]
		require.NotNil(t, vol.Secret, "volume %s: the worker needs no volume but mounted Secrets", m.Name)
		assert.True(t, m.ReadOnly, "volume %s read-only", m.Name)
		certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("temporal.test", nil, nil)
		require.NoError(t, err)
		files := map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM, "ca.crt": certPEM}
		if len(vol.Secret.Items) > 0 {
			// A temporal.toml (the profile the profile variant names) or
			// the API key.
			files = map[string][]byte{}
			for _, it := range vol.Secret.Items {
				switch it.Path {
				case "api-key":
					files[it.Path] = []byte("an-api-key\n")
				default:
					require.Equal(t, ".toml", filepath.Ext(it.Path), "volume %s: temporal.toml or api-key are picked by items", m.Name)
					files[it.Path] = []byte(profileTOML)
				}
			}
		}
		dir := t.TempDir()
		for name, b := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
		}
		out[strings.TrimSuffix(m.MountPath, "/")] = dir
	}
	return out
}

// imageUser is the runtime stage's USER of the Dockerfile the image is
// built from.
func imageUser(t *testing.T) (uid, gid int64) {
	t.Helper()
	b, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	stages := regexp.MustCompile(`(?m)^FROM\s`).Split(string(b), -1)
	m := regexp.MustCompile(`(?m)^USER\s+(\d+):(\d+)\s*$`).FindStringSubmatch(stages[len(stages)-1])
	require.NotNil(t, m, "the runtime stage sets a numeric USER uid:gid (runAsNonRoot needs a number)")
	uid, err = strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	gid, err = strconv.ParseInt(m[2], 10, 64)
	require.NoError(t, err)
	require.NotZero(t, uid, "the image runs as non-root")
	return uid, gid
}

func checkSecurity(t *testing.T, pod corev1.PodSpec, c corev1.Container, uid, gid int64) {
	t.Helper()
	ps, cs := pod.SecurityContext, c.SecurityContext
	require.NotNil(t, ps)
	require.NotNil(t, cs)
	assert.True(t, ps.RunAsNonRoot != nil && *ps.RunAsNonRoot, "runAsNonRoot")
	assert.Equal(t, &uid, ps.RunAsUser, "runAsUser is the image's uid")
	assert.Equal(t, &gid, ps.RunAsGroup, "runAsGroup is the image's gid")
	require.NotNil(t, ps.SeccompProfile)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, ps.SeccompProfile.Type)
	assert.True(t, cs.ReadOnlyRootFilesystem != nil && *cs.ReadOnlyRootFilesystem, "readOnlyRootFilesystem")
	assert.True(t, cs.AllowPrivilegeEscalation != nil && !*cs.AllowPrivilegeEscalation, "allowPrivilegeEscalation false")
	assert.True(t, cs.Privileged == nil || !*cs.Privileged, "not privileged")
	require.NotNil(t, cs.Capabilities)
	assert.Equal(t, []corev1.Capability{"ALL"}, cs.Capabilities.Drop)
	assert.Empty(t, cs.Capabilities.Add)
	assert.Nil(t, cs.RunAsUser, "the pod's user, not another")
	assert.False(t, pod.HostNetwork || pod.HostPID || pod.HostIPC, "no host namespaces")
}

// checkRBAC: the Deployment's service account is the one bound to the
// store's Role, in the same namespace.
func checkRBAC(t *testing.T, objs []*unstructured.Unstructured, serviceAccount string) {
	t.Helper()
	sa := typed[corev1.ServiceAccount](t, objs, "ServiceAccount")
	role := typed[rbacv1.Role](t, objs, "Role")
	rb := typed[rbacv1.RoleBinding](t, objs, "RoleBinding")
	assert.Equal(t, sa.Name, serviceAccount)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, rb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}}, rb.Subjects)
}

// checkMonitoring: the Service selects the worker's pods on the metrics
// port, the ServiceMonitor scrapes that Service port, the PDB covers the
// pods.
func checkMonitoring(t *testing.T, objs []*unstructured.Unstructured, d *appsv1.Deployment, metricsPort int32) {
	t.Helper()
	podLabels := labels.Set(d.Spec.Template.Labels)
	svc := typed[corev1.Service](t, objs, "Service")
	assert.True(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels), "Service selects the pods")
	var svcPort string
	for _, p := range svc.Spec.Ports {
		if resolvePort(t, p.TargetPort, containerPorts(d)) == metricsPort {
			svcPort = p.Name
		}
	}
	require.NotEmpty(t, svcPort, "a Service port targets the metrics port")

	sm := find(t, objs, "ServiceMonitor")
	var spec struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port        string `json:"port"`
			Path        string `json:"path"`
			HonorLabels bool   `json:"honorLabels"`
		} `json:"endpoints"`
	}
	smSpec, found, err := unstructured.NestedMap(sm.Object, "spec")
	require.True(t, found && err == nil, "ServiceMonitor spec: %v", err)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(smSpec, &spec))
	sel, err := metav1.LabelSelectorAsSelector(&spec.Selector)
	require.NoError(t, err)
	assert.True(t, sel.Matches(labels.Set(svc.Labels)), "ServiceMonitor selects the Service")
	require.Len(t, spec.Endpoints, 1)
	assert.Equal(t, svcPort, spec.Endpoints[0].Port)
	assert.Equal(t, "/metrics", spec.Endpoints[0].Path)
	// The alerts group by namespace, the pod's Kubernetes namespace that
	// Prometheus sets, and temporal_namespace, the worker's own label:
	// with honorLabels a series' own labels would win over Prometheus's.
	assert.False(t, spec.Endpoints[0].HonorLabels, "Prometheus owns the namespace label")

	pdb := typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget")
	sel, err = metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	require.NoError(t, err)
	assert.True(t, sel.Matches(podLabels), "PDB covers the pods")
	require.NotNil(t, pdb.Spec.MaxUnavailable)
	assert.Less(t, pdb.Spec.MaxUnavailable.IntValue(), int(*d.Spec.Replicas), "a drain leaves a worker")
}

// checkNetworkPolicy: ingress to the metrics port only; egress to DNS,
// Temporal's port, the object store (HTTPS) and the store's ports.
func checkNetworkPolicy(t *testing.T, objs []*unstructured.Unstructured, d *appsv1.Deployment, metricsPort int32, cfg worker.Config) {
	t.Helper()
	np := typed[networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	require.NoError(t, err)
	assert.True(t, sel.Matches(labels.Set(d.Spec.Template.Labels)), "NetworkPolicy selects the pods")
	assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)

	var in []int32
	for _, r := range np.Spec.Ingress {
		require.NotEmpty(t, r.Ports, "an ingress rule without ports opens every port")
		for _, p := range r.Ports {
			in = append(in, resolvePort(t, *p.Port, containerPorts(d)))
		}
	}
	assert.Equal(t, []int32{metricsPort}, in, "ingress to the metrics port only")

	out := map[int32]bool{}
	for _, r := range np.Spec.Egress {
		require.NotEmpty(t, r.Ports, "an egress rule without ports opens every port")
		for _, p := range r.Ports {
			require.NotNil(t, p.Port)
			out[int32(p.Port.IntValue())] = true
		}
	}
	want := []int32{53, port(t, cfg.Temporal.Address), 443}
	switch cfg.Store.Kind {
	case worker.StoreZooKeeper:
		for _, s := range cfg.Store.ZooKeeper.Servers {
			want = append(want, port(t, s))
		}
	case worker.StoreKubernetes:
		// The API server's usual ports behind the "kubernetes" Service.
		want = append(want, 443, 6443)
	}
	for _, p := range want {
		assert.True(t, out[p], "egress to port %d", p)
	}
}

func containerPorts(d *appsv1.Deployment) map[string]int32 {
	out := map[string]int32{}
	for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
		out[p.Name] = p.ContainerPort
	}
	return out
}

// resolvePort turns a named port into the container's number.
func resolvePort(t *testing.T, p intstr.IntOrString, named map[string]int32) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	n, ok := named[p.StrVal]
	require.True(t, ok, "named port %q exists in the container", p.StrVal)
	return n
}

func port(t *testing.T, hostPort string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(hostPort)
	require.NoError(t, err, hostPort)
	n, err := strconv.ParseInt(p, 10, 32)
	require.NoError(t, err, hostPort)
	return int32(n)
}

// checkMemoryLimit: GOMEMLIMIT as the kubelet resolves it lies between
// 90% and 100% of the container's memory limit. (deploy/helm/chart-test
// also starts a Go process with it, which proves the runtime accepts it.)
func checkMemoryLimit(t *testing.T, c corev1.Container, env map[string]string) {
	t.Helper()
	v, ok := env["GOMEMLIMIT"]
	require.True(t, ok, "GOMEMLIMIT is set")
	got, err := strconv.ParseInt(v, 10, 64)
	require.NoError(t, err, "GOMEMLIMIT=%s is a byte count", v)
	limit := c.Resources.Limits[corev1.ResourceMemory]
	ratio := float64(got) / float64(limit.Value())
	assert.True(t, ratio > 0.9 && ratio < 1, "GOMEMLIMIT=%s is %.3f of the %s limit", v, ratio, limit.String())
}
