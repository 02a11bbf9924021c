package operator_test

import (
	"context"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/docblock"
	"github.com/checkpoint-finalizer/finalizer/internal/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

func TestMain(m *testing.M) { kubetest.Main(m, kubetest.Options{}) }

// pluginFactory is the plugin's entry point for a delegate of the user's
// choice (docs/flink.md, "Installing it").
const pluginFactory = "io.github.checkpointfinalizer.flink.FinalizerHaServicesFactory"

// TestOperatorTakesThePluginsHATypeForKubernetesHA: which
// high-availability.type the operator treats as Kubernetes HA, and what
// Flink makes of the same value.
func TestOperatorTakesThePluginsHATypeForKubernetesHA(t *testing.T) {
	for _, c := range []struct {
		haType     string
		flink      haMode
		kubernetes bool
		zookeeper  bool
	}{
		{"", modeNone, false, false},
		{"kubernetes", modeKubernetes, true, false},
		{"KUBERNETES", modeKubernetes, true, false},
		{"zookeeper", modeZooKeeper, false, true},
		// Flink's own factory by name: Flink loads it as a factory class.
		{kubernetesHaServicesFactory, modeFactoryClass, true, false},
		// The plugin's operator entry point: the operator compares without
		// case and takes it for Kubernetes HA; Flink loads it by its exact
		// name, a class of the plugin's, not Flink's factory.
		{pluginHAType, modeFactoryClass, true, false},
		// The plugin's general entry point is not recognised: with it the
		// operator finds no HA metadata without looking, cancels for every
		// last-state upgrade and refuses to recover a lost JobManager
		// Deployment. Pinned, so that an operator release that changes it
		// is noticed.
		{pluginFactory, modeFactoryClass, false, false},
	} {
		assert.Equal(t, c.flink, flinkHAMode(c.haType), "Flink's mode of %q", c.haType)
		assert.Equal(t, c.flink != modeNone, haActivated(c.haType), "HA activated by %q", c.haType)
		assert.Equal(t, c.kubernetes, isKubernetesHAActivated(c.haType), "operator %s: Kubernetes HA by %q", operatorRelease, c.haType)
		assert.Equal(t, c.zookeeper, isZookeeperHAActivated(c.haType), "operator %s: ZooKeeper HA by %q", operatorRelease, c.haType)
	}
	// Class names are case-sensitive in the JVM: a distinct class, which
	// Flink's lib/ order cannot shadow and which fails loudly when its jar
	// is missing.
	assert.NotEqual(t, kubernetesHaServicesFactory, pluginHAType)

	// The plugin ships that class.
	pkg, class := path.Split(strings.ReplaceAll(pluginHAType, ".", "/"))
	src, err := os.ReadFile(docblock.Path("flink/src/main/java/" + pkg + class + ".java"))
	require.NoError(t, err, "the plugin's source of %s", pluginHAType)
	assert.Contains(t, string(src), "package "+strings.ReplaceAll(strings.TrimSuffix(pkg, "/"), "/", ".")+";")
	assert.Contains(t, string(src), "public final class "+class+" implements HighAvailabilityServicesFactory")
}

// pluginRun writes what a JobManager running the plugin over Flink's
// Kubernetes HA (finalizer.high-availability.delegate: kubernetes) leaves in
// its namespace while the job runs, and what survives a JobManager that is
// gone without cleaning up (the operator deleting its Deployment for a
// last-state upgrade, a crash): Flink's two ConfigMaps, named and labelled
// as flink-kubernetes 1.20's KubernetesLeaderElectionHaServices and
// KubernetesUtils.createConfigMapIfItDoesNotExist write them. The plugin
// replaces only the completed-checkpoint store, so the job's ConfigMap holds
// the checkpoint ID counter (FinalizerCheckpointRecovery keeps the
// delegate's counter) and never a "checkpointID-" key (CheckpointRecovery
// only reads the delegate's store, to migrate a stock job). stock adds the
// key stock Kubernetes HA writes for a completed checkpoint.
func pluginRun(t *testing.T, c corev1client.CoreV1Interface, namespace, clusterID, jobID string, stock bool) {
	t.Helper()
	ctx := t.Context()
	haLabels := map[string]string{labelApp: clusterID, labelType: labelTypeNative, labelConfigMapType: configMapTypeHA}
	leader := map[string]string{
		// KubernetesLeaderElector.LEADER_ANNOTATION_KEY: the election record.
		"control-plane.alpha.kubernetes.io/leader": `{"holderIdentity":"5f0c6a0e-1b7e-4d4e-9a51-1b1d4c1f2a3b","leaseDurationSeconds":15,"acquireTime":"2026-12-05T02:00:00Z","renewTime":"2026-12-05T02:10:00Z","leaderTransitions":0}`,
	}
	leaderValue := "0b7a8c2e-4f4e-4b8e-8f1c-2d8a1f6b9e10,pekko.tcp://flink@" + clusterID + ".jm:6123/user/rpc/"
	cluster := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: clusterID + "-cluster-config-map", Labels: haLabels, Annotations: leader},
		Data: map[string]string{
			// KubernetesUtils.createSingleLeaderKey of each component.
			"org.apache.flink.k8s.leader.dispatcher":      leaderValue + "dispatcher_0",
			"org.apache.flink.k8s.leader.resourcemanager": leaderValue + "resourcemanager_0",
			"org.apache.flink.k8s.leader.restserver":      "0b7a8c2e-4f4e-4b8e-8f1c-2d8a1f6b9e10,http://" + clusterID + "-rest:8081",
			"org.apache.flink.k8s.leader.job-" + jobID:    leaderValue + "jobmanager_1",
			// Flink's job graph store: a state handle, its data in HA storage.
			jobGraphKeyPrefix + jobID: "rO0ABXNyADtvcmcuYXBhY2hlLmZsaW5rLnJ1bnRpbWUuc3RhdGUuUmV0cmlldmFibGVTdHJlYW1TdGF0ZUhhbmRsZQ==",
		},
	}
	job := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: clusterID + "-" + jobID + "-config-map", Labels: haLabels},
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

// TestOperatorFindsHAMetadataOfAPluginRun runs the operator's HA rules
// against the API server holding what a plugin run left, beside the
// finalizer's own records (the worker on the Kubernetes store, in the same
// namespace) and the operator's autoscaler state, through the sequences the
// operator drives: a last-state upgrade, then a stateless upgrade or the
// FlinkDeployment's deletion.
func TestOperatorFindsHAMetadataOfAPluginRun(t *testing.T) {
	srv := kubetest.Shared(t)
	c := srv.Admin(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := srv.Namespace(t, "operator")
	const clusterID = "orders" // the FlinkDeployment's name: the operator's kubernetes.cluster-id and high-availability.cluster-id
	const jobID = "3f1e2d4c5b6a79880f1e2d3c4b5a6978"
	pluginRun(t, c, ns, clusterID, jobID, false)

	// The worker's records of the job: the real Kubernetes store, as the
	// worker serves finalizer.cluster (the same name by default).
	store, err := kubernetes.New(kubernetes.Config{Namespace: ns, REST: srv.AdminConfig()})
	require.NoError(t, err)
	defer store.Close()
	finalizerJob := stores.JobID{Cluster: clusterID, Job: jobID}
	require.NoError(t, store.ClaimEpoch(ctx, finalizerJob, 1, "flink-5f0c6a0e-1b7e-4d4e-9a51-1b1d4c1f2a3b"))
	require.NoError(t, store.Publish(ctx, stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: finalizerJob, Checkpoint: 7}, Epoch: 1,
		Reference: stores.Reference{Handle: "flink/orders/checkpoints/" + jobID + "/chk-7/_metadata", Token: "t7", Attempt: 1},
	}))
	// The operator's autoscaler keeps its state under the cluster's labels
	// too; the HA rules leave it out.
	_, err = c.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:   "autoscaler-" + clusterID,
		Labels: map[string]string{labelApp: clusterID, labelType: labelTypeNative, labelComponent: componentAutoscaler},
	}, Data: map[string]string{"scalingHistory": "{}"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	listed, err := haConfigMaps(ctx, c, ns, clusterID)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{clusterID + "-cluster-config-map", clusterID + "-" + jobID + "-config-map"}, names(listed),
		"the operator's HA ConfigMaps: Flink's two, neither the finalizer's nor the autoscaler's")

	v, err := view(ctx, c, ns, clusterID, pluginHAType)
	require.NoError(t, err)
	assert.True(t, v.haMetadataAvailable, "HA metadata available: last-state upgrades, JobManager Deployment recovery, rollback and unhealthy-job restarts proceed")
	assert.Equal(t, lastStateUsingHaMeta, lastStateUpgrade(v), "a last-state upgrade keeps the job ID and cancels nothing")
	// Pinned divergence from stock: Flink's ConfigMap holds no completed
	// checkpoint, so the operator sets no dummy savepoint path for a
	// last-state deployment; the job restores from the finalizer.
	assert.False(t, v.atLeastOneCheckpoint, "no checkpointID- key: no KUBERNETES_OPERATOR_LAST_STATE savepoint path")

	// The same ConfigMaps under the plugin's general entry point: nothing
	// found without looking, every last-state upgrade a cancel.
	general, err := view(ctx, c, ns, clusterID, pluginFactory)
	require.NoError(t, err)
	assert.Equal(t, operatorView{}, general)
	assert.Equal(t, lastStateUsingCancel, lastStateUpgrade(general))

	// Stock Kubernetes HA, for comparison: the rules see its checkpoint.
	pluginRun(t, c, ns, "orders-stock", jobID, true)
	stock, err := view(ctx, c, ns, "orders-stock", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, operatorView{haMetadataAvailable: true, atLeastOneCheckpoint: true}, stock)

	// A job ConfigMap on its way out (held by a finalizer, its deletion
	// timestamp set by the API server) is no HA metadata.
	pluginRun(t, c, ns, "orders-deleting", jobID, false)
	going := "orders-deleting-" + jobID + "-config-map"
	held, err := c.ConfigMaps(ns).Get(ctx, going, metav1.GetOptions{})
	require.NoError(t, err)
	held.Finalizers = []string{"example.com/hold"}
	_, err = c.ConfigMaps(ns).Update(ctx, held, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, c.ConfigMaps(ns).Delete(ctx, going, metav1.DeleteOptions{}))
	deleting, err := view(ctx, c, ns, "orders-deleting", pluginHAType)
	require.NoError(t, err)
	assert.False(t, deleting.haMetadataAvailable, "a ConfigMap marked for deletion does not count")
	held, err = c.ConfigMaps(ns).Get(ctx, going, metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, held.DeletionTimestamp)
	held.Finalizers = nil
	_, err = c.ConfigMaps(ns).Update(ctx, held, metav1.UpdateOptions{})
	require.NoError(t, err)

	// A last-state upgrade: the operator deletes the JobManager Deployment
	// keeping the HA ConfigMaps, then submitApplicationCluster deletes the
	// job graph and deploys under the same job ID. The new JobManager finds
	// the job's counter and, through the plugin, its newest published
	// checkpoint.
	require.NoError(t, deleteJobGraph(ctx, c, ns, clusterID))
	cm, err := c.ConfigMaps(ns).Get(ctx, clusterID+"-cluster-config-map", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, cm.Data, jobGraphKeyPrefix+jobID, "the job graph went")
	assert.Contains(t, cm.Data, "org.apache.flink.k8s.leader.dispatcher", "leader entries stay")
	jobCM, err := c.ConfigMaps(ns).Get(ctx, clusterID+"-"+jobID+"-config-map", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "8", jobCM.Data[checkpointCounterKey], "the checkpoint ID counter stays")
	v, err = view(ctx, c, ns, clusterID, pluginHAType)
	require.NoError(t, err)
	assert.True(t, v.haMetadataAvailable, "still available after the job graph went")
	requirePublished(t, store, finalizerJob, 7)

	// A stateless upgrade or the FlinkDeployment's deletion: the operator
	// deletes the HA data with the cluster. Flink's ConfigMaps go, so no job
	// graph is left for a new deployment of the same name; the finalizer's
	// records are not the operator's to delete (the job's retirement, when
	// Flink cancels it, settles them).
	require.NoError(t, deleteHAMetadata(ctx, c, ns, clusterID))
	listed, err = haConfigMaps(ctx, c, ns, clusterID)
	require.NoError(t, err)
	assert.Empty(t, names(listed))
	v, err = view(ctx, c, ns, clusterID, pluginHAType)
	require.NoError(t, err)
	assert.Equal(t, operatorView{}, v, "after the deletion nothing is left to restore from HA: a JobManager Deployment lost now needs a manual restore, as with stock")
	_, err = c.ConfigMaps(ns).Get(ctx, "autoscaler-"+clusterID, metav1.GetOptions{})
	require.NoError(t, err, "the autoscaler's state is left alone")
	requirePublished(t, store, finalizerJob, 7)
	stockLeft, err := haConfigMaps(ctx, c, ns, "orders-stock")
	require.NoError(t, err)
	assert.Len(t, stockLeft, 2, "another cluster's HA data is left alone")
}

// requirePublished checks that the worker's store still holds the job's
// reference to checkpoint id.
func requirePublished(t *testing.T, store *kubernetes.Store, job stores.JobID, id uint64) {
	t.Helper()
	list, err := store.List(t.Context(), job)
	require.NoError(t, err)
	require.Len(t, list, 1, "the finalizer's reference")
	assert.Equal(t, id, list[0].Checkpoint)
}

func names(cms []corev1.ConfigMap) []string {
	out := make([]string, 0, len(cms))
	for _, cm := range cms {
		out = append(out, cm.Name)
	}
	return out
}
