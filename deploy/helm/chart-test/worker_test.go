package charttest

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// memoryLimitChild, set in a re-run of this test binary, makes it print
// the memory limit the Go runtime took from GOMEMLIMIT (TestMain).
const memoryLimitChild = "CHARTTEST_MEMORY_LIMIT_CHILD"

// What the API server cannot check: that every value set configures a
// worker that passes its own validation, probes the endpoints it serves,
// outlasts its shutdown grace, runs as the image's user with a Go memory
// limit below the container's, and can reach what its store needs.
func TestChartFitsTheWorker(t *testing.T) {
	for _, s := range valueSets() {
		t.Run(s.name, func(t *testing.T) {
			objs := mustRender(t, s.values(t))
			d := typed[appsv1.Deployment](t, objs, "Deployment")
			pod := d.Spec.Template.Spec
			c := workerContainer(t, pod)

			env := containerEnv(t, objs, pod, c)
			cfg, err := worker.LoadConfig(nil, func(k string) string { return env[k] })
			require.NoError(t, err)
			require.NoError(t, cfg.Validate(), "the worker accepts the configuration")
			assert.Equal(t, s.store, cfg.Store.Kind)
			if _, ok := env["TEMPORAL_CONFIG_FILE"]; ok {
				assert.Equal(t, "temporal.prod.example:7233", cfg.Temporal.Address, "the profile's address")
				assert.Equal(t, "prod", cfg.Temporal.Namespace, "the profile's namespace")
			}

			metricsPort := port(t, cfg.MetricsAddress)
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			assert.Equal(t, metricsPort, ports["metrics"], "container port metrics is FINALIZER_METRICS_ADDRESS's")
			for probe, want := range map[*corev1.Probe]string{c.StartupProbe: "/livez", c.ReadinessProbe: "/readyz", c.LivenessProbe: "/livez"} {
				require.NotNil(t, probe, want)
				require.NotNil(t, probe.HTTPGet, want)
				assert.Equal(t, want, probe.HTTPGet.Path)
				assert.Equal(t, metricsPort, resolvePort(t, probe.HTTPGet.Port, ports), want)
			}

			require.NotNil(t, pod.TerminationGracePeriodSeconds)
			assert.Greater(t, *pod.TerminationGracePeriodSeconds, int64(cfg.ShutdownGrace.Seconds()),
				"terminationGracePeriodSeconds above FINALIZER_SHUTDOWN_GRACE %s", cfg.ShutdownGrace)
			checkSecurity(t, pod, c)
			checkMemoryLimit(t, c, env)
			assert.NotContains(t, c.Image, ":latest")
			assert.True(t, strings.HasSuffix(c.Image, ":0.1.0"), "image %s is the chart's appVersion", c.Image)

			require.NotNil(t, pod.AutomountServiceAccountToken)
			assert.Equal(t, s.store == worker.StoreKubernetes, *pod.AutomountServiceAccountToken,
				"only the Kubernetes store mounts the service account token")
			if s.store == worker.StoreKubernetes {
				checkRBAC(t, objs, pod.ServiceAccountName, cfg.Store.Kubernetes.Namespace)
			}
			if s.store == worker.StoreEmbedded {
				assert.Equal(t, int32(1), *d.Spec.Replicas, "one worker owns the file")
				assert.Equal(t, appsv1.RecreateDeploymentStrategyType, d.Spec.Strategy.Type)
				pvc := typed[corev1.PersistentVolumeClaim](t, objs, "PersistentVolumeClaim")
				var mounted bool
				for _, v := range pod.Volumes {
					if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
						mounted = true
					}
				}
				assert.True(t, mounted, "the claim is the pod's volume")
				assert.True(t, strings.HasPrefix(cfg.Store.Embedded.Path, c.VolumeMounts[0].MountPath+"/"), "the file is on the volume")
			} else {
				pdb := typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget")
				sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
				require.NoError(t, err)
				assert.Less(t, pdb.Spec.MaxUnavailable.IntValue(), int(*d.Spec.Replicas), "a drain leaves a worker")
				assert.True(t, sel.Matches(labels.Set(d.Spec.Template.Labels)), "PDB covers the pods")
			}
		})
	}
}

// checkMemoryLimit: GOMEMLIMIT as the kubelet resolves it is a limit the
// Go runtime accepts (a child process started with it reports it) and
// lies between 90% and 100% of the container's memory limit.
func checkMemoryLimit(t *testing.T, c corev1.Container, env map[string]string) {
	t.Helper()
	v, ok := env["GOMEMLIMIT"]
	require.True(t, ok, "GOMEMLIMIT is set")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), memoryLimitChild+"=1", "GOMEMLIMIT="+v)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "GOMEMLIMIT=%s: %s", v, out)
	got, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	require.NoError(t, err, "%s", out)
	limit := c.Resources.Limits[corev1.ResourceMemory]
	ratio := float64(got) / float64(limit.Value())
	assert.True(t, ratio > 0.9 && ratio < 1, "GOMEMLIMIT=%s is %.3f of the %s limit", v, ratio, limit.String())
}

func checkSecurity(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	ps, cs := pod.SecurityContext, c.SecurityContext
	require.NotNil(t, ps)
	require.NotNil(t, cs)
	assert.True(t, ps.RunAsNonRoot != nil && *ps.RunAsNonRoot, "runAsNonRoot")
	// Unset on OpenShift (the platform assigns one), else non-root.
	if ps.RunAsUser != nil {
		assert.Positive(t, *ps.RunAsUser, "runAsUser is not root")
	}
	require.NotNil(t, ps.SeccompProfile)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, ps.SeccompProfile.Type)
	assert.True(t, cs.ReadOnlyRootFilesystem != nil && *cs.ReadOnlyRootFilesystem, "readOnlyRootFilesystem")
	assert.True(t, cs.AllowPrivilegeEscalation != nil && !*cs.AllowPrivilegeEscalation, "allowPrivilegeEscalation false")
	require.NotNil(t, cs.Capabilities)
	assert.Equal(t, []corev1.Capability{"ALL"}, cs.Capabilities.Drop)
}

// checkRBAC: the pods' service account is bound to the store's Role in the
// namespace of the job ConfigMaps.
func checkRBAC(t *testing.T, objs []*unstructured.Unstructured, serviceAccount, storeNS string) {
	t.Helper()
	if storeNS == "" {
		storeNS = namespace
	}
	sa := typed[corev1.ServiceAccount](t, objs, "ServiceAccount")
	role := typed[rbacv1.Role](t, objs, "Role")
	rb := typed[rbacv1.RoleBinding](t, objs, "RoleBinding")
	assert.Equal(t, sa.Name, serviceAccount)
	assert.Equal(t, storeNS, role.Namespace, "the Role is where the ConfigMaps are")
	assert.Equal(t, storeNS, rb.Namespace, "the RoleBinding is where the ConfigMaps are")
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, rb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}}, rb.Subjects)
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"},
		Verbs: []string{"get", "list", "create", "update"}}}, role.Rules, "least privilege")
}

// imageUID is the image's numeric user (image_test.go builds it so).
const imageUID = 65532

// workerContainer is the pod's worker container (extraContainers adds
// others beside it).
func workerContainer(t *testing.T, pod corev1.PodSpec) corev1.Container {
	t.Helper()
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == "worker" })
	require.GreaterOrEqual(t, i, 0, "a container named worker")
	return pod.Containers[i]
}

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
