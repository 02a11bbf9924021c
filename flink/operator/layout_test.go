package operator_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// haLayout is how one Flink line's Kubernetes HA names, labels and keys
// what it keeps, read from that line's flink-kubernetes
// (org.apache.flink.kubernetes: utils/KubernetesUtils, utils/Constants,
// highavailability/KubernetesLeaderElectionHaServices,
// kubeclient/resources/KubernetesLeaderElector). The plugin runs Flink's
// own Kubernetes HA services as its delegate, so a plugin run and a stock
// run of the same line write the same ConfigMaps, labels and keys, but for
// the completed checkpoints.
type haLayout struct {
	flink string
	// labels is what KubernetesUtils.getConfigMapLabels gives the leader
	// elector and createConfigMapIfItDoesNotExist for an HA ConfigMap.
	labels func(clusterID string) map[string]string
	// jobKeyPrefix keys a job's graph in the cluster's ConfigMap.
	jobKeyPrefix string
}

var (
	// flink120 is flink-kubernetes 1.20.1 (the newest of the 1.20 line on
	// Maven Central, and the one operator 1.15.0 bundles):
	// getConfigMapLabels(clusterId, LABEL_CONFIGMAP_TYPE_HIGH_AVAILABILITY)
	// adds configmap-type; KubernetesJobGraphStoreUtil keys "jobGraph-".
	flink120 = haLayout{
		flink: "1.20",
		labels: func(clusterID string) map[string]string {
			return map[string]string{labelApp: clusterID, labelType: labelTypeNative, labelConfigMapType: configMapTypeHA}
		},
		jobKeyPrefix: jobGraphKeyPrefix,
	}
	// flink2 is flink-kubernetes 2.3.0 (2.2.0 the same):
	// getConfigMapLabels(clusterId) is the common labels alone, no
	// configmap-type; KubernetesExecutionPlanStoreUtil keys "executionPlan-".
	flink2 = haLayout{
		flink: "2.3",
		labels: func(clusterID string) map[string]string {
			return map[string]string{labelApp: clusterID, labelType: labelTypeNative}
		},
		jobKeyPrefix: executionPlanKeyPrefix,
	}
	layouts = []haLayout{flink120, flink2}
)

// haRun writes what a JobManager of the layout's Flink line leaves in its
// namespace while the job runs, and what survives a JobManager that is gone
// without cleaning up (the operator deleting its Deployment for a last-state
// upgrade, a crash): Flink's two ConfigMaps, the cluster's (leader
// election, job graphs) and the job's, named as
// KubernetesLeaderElectionHaServices names them. With the plugin
// (stock false) the job's ConfigMap holds the checkpoint ID counter
// (FinalizerCheckpointRecovery keeps the delegate's counter) and never a
// "checkpointID-" key (CheckpointRecovery only reads the delegate's store,
// to migrate a stock job); stock Kubernetes HA also keeps its completed
// checkpoint there.
func haRun(t *testing.T, c corev1client.CoreV1Interface, namespace, clusterID, jobID string, layout haLayout, stock bool) {
	t.Helper()
	ctx := t.Context()
	leader := map[string]string{
		// KubernetesLeaderElector.LEADER_ANNOTATION_KEY: the election record.
		"control-plane.alpha.kubernetes.io/leader": `{"holderIdentity":"5f0c6a0e-1b7e-4d4e-9a51-1b1d4c1f2a3b","leaseDurationSeconds":15,"acquireTime":"2026-12-05T02:00:00Z","renewTime":"2026-12-05T02:10:00Z","leaderTransitions":0}`,
	}
	leaderValue := "0b7a8c2e-4f4e-4b8e-8f1c-2d8a1f6b9e10,pekko.tcp://flink@" + clusterID + ".jm:6123/user/rpc/"
	cluster := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: clusterID + "-cluster-config-map", Labels: layout.labels(clusterID), Annotations: leader},
		Data: map[string]string{
			// KubernetesUtils.createSingleLeaderKey of each component.
			"org.apache.flink.k8s.leader.dispatcher":      leaderValue + "dispatcher_0",
			"org.apache.flink.k8s.leader.resourcemanager": leaderValue + "resourcemanager_0",
			"org.apache.flink.k8s.leader.restserver":      "0b7a8c2e-4f4e-4b8e-8f1c-2d8a1f6b9e10,http://" + clusterID + "-rest:8081",
			"org.apache.flink.k8s.leader.job-" + jobID:    leaderValue + "jobmanager_1",
			// Flink's job graph store: a state handle, its data in HA storage.
			layout.jobKeyPrefix + jobID: "rO0ABXNyADtvcmcuYXBhY2hlLmZsaW5rLnJ1bnRpbWUuc3RhdGUuUmV0cmlldmFibGVTdHJlYW1TdGF0ZUhhbmRsZQ==",
		},
	}
	job := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: clusterID + "-" + jobID + "-config-map", Labels: layout.labels(clusterID)},
		Data:       map[string]string{checkpointCounterKey: "8"},
	}
	if stock {
		job.Data[checkpointIDKeyPrefix+"0000000000000000007"] = "rO0ABXNyAEBvcmcuYXBhY2hlLmZsaW5rLnJ1bnRpbWUuc3RhdGUuUmV0cmlldmFibGVTdHJlYW1TdGF0ZUhhbmRsZQ=="
	}
	for _, cm := range []*corev1.ConfigMap{cluster, job} {
		_, err := c.ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{})
		require.NoError(t, err, "create %s", cm.Name)
	}
}
