package charttest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values that cannot run are refused at render time (helm install and
// helm template alike), and the message names the value to fix.
func TestChartRefusesBadValues(t *testing.T) {
	zk := bucket + "store: {kind: zookeeper, zookeeper: {servers: [\"zk:2181\"]}}\n"
	cases := []struct {
		name, yaml string
		want       []string // each in Helm's error
	}{
		{"no store", bucket, []string{"store.kind: choose the HA reference store"}},
		{"an unknown store", bucket + "store: {kind: etcd}", []string{"/store/kind", "must be one of"}},
		{"no bucket", "store: {kind: kubernetes}", []string{"stateBucket: the bucket"}},
		{"the pod's own disk as bucket", "stateBucket: file:///tmp/x\nstore: {kind: kubernetes}", []string{"stateBucket: \"file:///tmp/x\""}},
		{"embedded store on two replicas", bucket + "store: {kind: embedded}\nreplicas: 2", []string{"replicas: the embedded store", "got 2"}},
		{"zookeeper without servers", bucket + "store: {kind: zookeeper}", []string{"store.zookeeper.servers"}},
		{"a zookeeper server without port", bucket + "store: {kind: zookeeper, zookeeper: {servers: [zk]}}", []string{"/store/zookeeper/servers/0"}},
		{"digest user without password", bucket + "store: {kind: zookeeper, zookeeper: {servers: [\"zk:2181\"], digest: {user: u}}}", []string{"store.zookeeper.digest: set user and passwordSecret.name together"}},
		{"image latest", zk + "image: {tag: latest}", []string{"image.tag: \"latest\""}},
		{"a malformed digest", zk + "image: {digest: sha256:abc}", []string{"/image/digest"}},
		{"no Temporal address", zk + "temporal: {address: \"\"}", []string{"temporal.address: set Temporal's frontend"}},
		{"a profile without its Secret", zk + "temporal: {profile: {name: prod}}", []string{"temporal.profile.name: also set temporal.profile.secretName"}},
		{"no memory limit", zk + "resources: {limits: {memory: null}}", []string{"resources.limits.memory"}},
		{"a PDB that blocks drains", zk + "podDisruptionBudget: {maxUnavailable: 0}", []string{"podDisruptionBudget.maxUnavailable"}},
		{"a secret in config", zk + "config: {FINALIZER_TEMPORAL_API_KEY: k}", []string{"config.FINALIZER_TEMPORAL_API_KEY: a secret never goes into a ConfigMap"}},
		{"config overriding a value", zk + "config: {FINALIZER_STORE: embedded}", []string{"config.FINALIZER_STORE: the chart sets this variable"}},
		{"config that is not the worker's", zk + "config: {GOGC: \"50\"}", []string{"'GOGC' does not match pattern '^FINALIZER_"}},
		{"a misspelt value", zk + "replica: 3", []string{"replica"}},
		{"an egress rule without ports", zk + "networkPolicy: {extraEgress: [{to: [{ipBlock: {cidr: 10.0.0.0/8}}]}]}", []string{"networkPolicy.extraEgress[0]"}},
		{"no service account to use", zk + "serviceAccount: {create: false}", []string{"serviceAccount.name"}},
		{"a log level the worker refuses", zk + "logLevel: verbose", []string{"/logLevel"}},
		{"an optional API key", zk + "temporal: {apiKeySecret: {name: k, optional: true}}", []string{"temporal.apiKeySecret.optional"}},
		{"bucket credentials in the URL's user info", "stateBucket: s3://AKIA:s3cr3t@bucket\nstore: {kind: kubernetes}", []string{"stateBucket: the URL carries user info"}},
		{"a SAS token in the bucket URL", "stateBucket: azblob://bucket?sv=2022&sig=abc\nstore: {kind: kubernetes}", []string{"stateBucket: the URL's query parameter sig"}},
		{"a bucket key as a literal", zk + "extraEnv: [{name: AWS_SECRET_ACCESS_KEY, value: s3cr3t}]", []string{"extraEnv[0]: AWS_SECRET_ACCESS_KEY is a secret"}},
		{"root", zk + "podSecurityContext: {runAsUser: 0}", []string{"podSecurityContext.runAsUser: 0 is root"}},
		{"root allowed", zk + "podSecurityContext: {runAsNonRoot: false}", []string{"podSecurityContext.runAsNonRoot"}},
		{"unconfined seccomp", zk + "podSecurityContext: {seccompProfile: {type: Unconfined}}", []string{"podSecurityContext.seccompProfile.type: \"Unconfined\""}},
		{"a uid that is not a number", zk + "podSecurityContext: {runAsUser: nobody}", []string{"/podSecurityContext/runAsUser"}},
		{"a privileged worker", zk + "securityContext: {privileged: true}", []string{"securityContext.privileged"}},
		{"privilege escalation", zk + "securityContext: {allowPrivilegeEscalation: true}", []string{"securityContext.allowPrivilegeEscalation"}},
		{"a writable root filesystem", zk + "securityContext: {readOnlyRootFilesystem: false}", []string{"securityContext.readOnlyRootFilesystem"}},
		{"a capability kept", zk + "securityContext: {capabilities: {drop: [NET_RAW]}}", []string{"securityContext.capabilities.drop"}},
		{"a capability added", zk + "securityContext: {capabilities: {add: [NET_ADMIN]}}", []string{"securityContext.capabilities.add"}},
		{"a container as root", zk + "securityContext: {runAsUser: 0}", []string{"securityContext.runAsUser: 0 is root"}},
		{"a spread without key", zk + "topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}]", []string{"/topologySpreadConstraints/0", "topologyKey"}},
		{"extraEnv overriding the chart", zk + "extraEnv: [{name: FINALIZER_STORE, value: embedded}]", []string{"extraEnv[0]: FINALIZER_STORE is set by the chart"}},
		{"extraEnv overriding GOMEMLIMIT", zk + "extraEnv: [{name: GOMEMLIMIT, value: 1GiB}]", []string{"extraEnv[0]: GOMEMLIMIT is set by the chart"}},
		{"a secret as a literal", zk + "extraEnv: [{name: FINALIZER_TEMPORAL_API_KEY, value: k}]", []string{"extraEnv[0]: FINALIZER_TEMPORAL_API_KEY is a secret"}},
		{"extraEnv without name", zk + "extraEnv: [{value: x}]", []string{"/extraEnv/0", "name"}},
		{"a volume name the chart uses", zk + "extraVolumes: [{name: temporal-tls, emptyDir: {}}]", []string{"extraVolumes[0]: temporal-tls is a volume name the chart uses"}},
		{"a mount without path", zk + "extraVolumeMounts: [{name: tmp}]", []string{"/extraVolumeMounts/0", "mountPath"}},
		{"a sidecar named worker", zk + "extraContainers: [{name: worker, image: x:1}]", []string{"extraContainers[0]: worker is the chart's container"}},
		{"a sidecar without image", zk + "extraContainers: [{name: proxy}]", []string{"/extraContainers/0", "image"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderChart(parseValues(t, tc.yaml))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			t.Log(err)
		})
	}
}
