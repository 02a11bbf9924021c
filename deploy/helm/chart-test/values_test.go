package charttest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// valueSet is one way an operator installs the chart: values as a -f file
// would give them (YAML, so numbers are float64 as in Helm).
type valueSet struct {
	name  string
	store worker.StoreKind
	yaml  string
	// kinds the release must contain beyond the ones every release has.
	kinds []string
}

// bucket is an object store both the job managers and the worker reach.
const bucket = "stateBucket: s3://flink-checkpoints?region=eu-west-1\n"

func valueSets() []valueSet {
	return []valueSet{
		{name: "embedded", store: worker.StoreEmbedded, kinds: []string{"PersistentVolumeClaim"}, yaml: bucket + `
replicas: 1
store: {kind: embedded}
`},
		{name: "zookeeper", store: worker.StoreZooKeeper, kinds: []string{"PodDisruptionBudget"}, yaml: bucket + `
store:
  kind: zookeeper
  zookeeper:
    servers: [zk-0.zk:2181, zk-1.zk:2181, zk-2.zk:2182]
    digest: {user: finalizer, passwordSecret: {name: zk-digest}}
config: {FINALIZER_RECONCILE_MIN_GRACE: 30m}
`},
		{name: "zookeeper+monitoring", store: worker.StoreZooKeeper,
			kinds: []string{"PodDisruptionBudget", "ServiceMonitor", "PrometheusRule"}, yaml: bucket + `
store: {kind: zookeeper, zookeeper: {servers: ["zk:2181"]}}
serviceMonitor: {enabled: true, labels: {release: prometheus}}
prometheusRule: {enabled: true, labels: {release: prometheus}}
`},
		// Temporal Cloud: an API key from a Secret turns TLS on.
		{name: "kubernetes+temporal-cloud", store: worker.StoreKubernetes,
			kinds: []string{"Role", "RoleBinding", "PodDisruptionBudget"}, yaml: bucket + `
store: {kind: kubernetes}
temporal:
  address: finalizer.a1b2c.tmprl.cloud:7233
  namespace: finalizer.a1b2c
  apiKeySecret: {name: temporal-cloud}
`},
		{name: "kubernetes+mtls+store-namespace", store: worker.StoreKubernetes,
			kinds: []string{"Role", "RoleBinding", "PodDisruptionBudget"}, yaml: bucket + `
replicas: 3
store: {kind: kubernetes, kubernetes: {namespace: ` + storeNamespace + `}}
temporal:
  tls: {secretName: temporal-tls, serverName: temporal.internal}
`},
		// The connection from a temporal.toml profile only.
		{name: "zookeeper+temporal-profile", store: worker.StoreZooKeeper, kinds: []string{"PodDisruptionBudget"}, yaml: bucket + `
store: {kind: zookeeper, zookeeper: {servers: ["zk:2181"]}}
temporal:
  address: ""
  namespace: ""
  profile: {name: prod, secretName: temporal-config}
`},
		// The Web UI beside the workers, in front of the same frontend
		// over the same mTLS Secret.
		{name: "zookeeper+mtls+ui", store: worker.StoreZooKeeper, kinds: []string{"PodDisruptionBudget"}, yaml: bucket + `
store: {kind: zookeeper, zookeeper: {servers: ["zk:2181"]}}
temporal:
  tls: {secretName: temporal-tls, serverName: temporal.internal}
ui: {enabled: true}
`},
		// OpenShift's restricted-v2: the platform assigns the uid, group
		// and fsGroup, so no pod names any of them, the Web UI's neither.
		{name: "openshift+ui", store: worker.StoreKubernetes,
			kinds: []string{"Role", "RoleBinding", "PodDisruptionBudget"}, yaml: bucket + openshiftValues + `
store: {kind: kubernetes}
temporal:
  tls: {secretName: temporal-tls, serverName: temporal.internal}
ui: {enabled: true}
`},
		// Every secret the chart takes, each from a Secret: the worker's
		// as mounted files, the bucket's as the SDK's variables and key file.
		{name: "zookeeper+secrets", store: worker.StoreZooKeeper, kinds: []string{"PodDisruptionBudget"}, yaml: secretsValues},
		// Every value a platform adds to the pod.
		{name: "zookeeper+extras", store: worker.StoreZooKeeper, kinds: []string{"PodDisruptionBudget"}, yaml: bucket + extrasValues},
	}
}

// secretsValues name every Secret the chart reads.
const secretsValues = `stateBucket: gs://flink-checkpoints
store:
  kind: zookeeper
  zookeeper:
    servers: ["zk:2181"]
    digest: {user: finalizer, passwordSecret: {name: zk-digest, key: pw}}
temporal:
  apiKeySecret: {name: temporal-cloud, key: token}
bucketCredentials:
  secretName: bucket-env
  gcsKeySecret: {name: gcs-sa, key: sa.json}
`

// openshiftValues leave the user, group and fsGroup to the platform.
const openshiftValues = `
podSecurityContext: {runAsUser: null, runAsGroup: null, fsGroup: null}
`

// extrasValues use every value that adds to the pod.
const extrasValues = `
store: {kind: zookeeper, zookeeper: {servers: ["zk:2181"]}}
podSecurityContext: {runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001}
securityContext: {runAsNonRoot: true}
topologySpreadConstraints:
  - {maxSkew: 2, topologyKey: topology.kubernetes.io/region, whenUnsatisfiable: DoNotSchedule}
extraEnv:
  - {name: HTTPS_PROXY, value: "http://proxy.example:3128"}
  - name: NO_PROXY
    valueFrom: {configMapKeyRef: {name: proxy, key: no-proxy}}
envFrom:
  - secretRef: {name: bucket-credentials}
extraVolumes:
  - {name: tmp, emptyDir: {medium: Memory, sizeLimit: 16Mi}}
extraVolumeMounts:
  - {name: tmp, mountPath: /tmp}
extraContainers:
  - name: proxy
    image: registry.example.com/proxy:1.0
    securityContext: {runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
`

func (s valueSet) values(t *testing.T) map[string]any {
	t.Helper()
	return parseValues(t, s.yaml)
}

func parseValues(t *testing.T, y string) map[string]any {
	t.Helper()
	vals := map[string]any{}
	require.NoError(t, yaml.Unmarshal([]byte(y), &vals))
	return vals
}
