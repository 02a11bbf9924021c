package operator_test

import (
	"context"
	"os"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/checks/docblock"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
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

// sequence is what the operator's rules conclude and leave at each step of
// a last-state upgrade of a running FlinkDeployment, then a stateless
// upgrade or its deletion, for one cluster.
type sequence struct {
	// found is the view before the upgrade; upgrade the way it is done.
	found   operatorView
	upgrade upgrade
	// kept is, after submitApplicationCluster deleted the job graph, each HA
	// ConfigMap (by its name without the cluster ID) with its keys, but for
	// completed checkpoints (found.atLeastOneCheckpoint shows them).
	kept map[string][]string
	// foundAfterUpgrade is the view the new JobManager's deployment meets.
	foundAfterUpgrade operatorView
	// leftAfterDeletion is the HA ConfigMaps left once the operator deleted
	// the cluster with its HA data.
	leftAfterDeletion []string
}

// operate runs the operator's rules through that sequence on what the API
// server holds of clusterID, configured with haType.
func operate(t *testing.T, c corev1client.CoreV1Interface, namespace, clusterID, haType string) sequence {
	t.Helper()
	ctx := t.Context()
	var s sequence
	var err error
	s.found, err = view(ctx, c, namespace, clusterID, haType)
	require.NoError(t, err)
	s.upgrade = lastStateUpgrade(kindDeployment, s.found, false, "")
	require.NoError(t, deleteJobGraph(ctx, c, namespace, clusterID))
	listed, err := haConfigMaps(ctx, c, namespace, clusterID)
	require.NoError(t, err)
	s.kept = map[string][]string{}
	for _, cm := range listed {
		var keys []string
		for k := range cm.Data {
			if !strings.HasPrefix(k, checkpointIDKeyPrefix) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		s.kept[strings.TrimPrefix(cm.Name, clusterID)] = keys
	}
	s.foundAfterUpgrade, err = view(ctx, c, namespace, clusterID, haType)
	require.NoError(t, err)
	require.NoError(t, deleteHAMetadata(ctx, c, namespace, clusterID))
	listed, err = haConfigMaps(ctx, c, namespace, clusterID)
	require.NoError(t, err)
	s.leftAfterDeletion = names(listed)
	return s
}

// TestOperatorFindsHAMetadataOfAPluginRun runs the operator's HA rules
// against the API server holding what a plugin run left on each Flink line
// (1.20 and 2.x, whose ConfigMaps differ in labels and job graph keys),
// beside what stock Kubernetes HA of the same line leaves, the finalizer's
// own records (the worker on the Kubernetes store, in the same namespace)
// and the operator's autoscaler state, through the sequences the operator
// drives: a last-state upgrade, then a stateless upgrade or the
// FlinkDeployment's deletion. Stock is the yardstick: the plugin gets
// every decision stock gets.
func TestOperatorFindsHAMetadataOfAPluginRun(t *testing.T) {
	for _, layout := range layouts {
		t.Run("flink-"+layout.flink, func(t *testing.T) { operatorOnLayout(t, layout) })
	}
}

func operatorOnLayout(t *testing.T, layout haLayout) {
	srv := kubetest.Shared(t)
	c := srv.Admin(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := srv.Namespace(t, "operator")
	const clusterID = "orders" // the FlinkDeployment's name: the operator's kubernetes.cluster-id and high-availability.cluster-id
	const stockID = "orders-stock"
	const jobID = "3f1e2d4c5b6a79880f1e2d3c4b5a6978"
	haRun(t, c, ns, clusterID, jobID, layout, false)
	haRun(t, c, ns, stockID, jobID, layout, true)
	haRun(t, c, ns, "orders-other", jobID, layout, false)

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
		"the operator's HA ConfigMaps: Flink's two, neither the finalizer's nor the autoscaler's (selected by app and type, which Flink %s writes)", layout.flink)

	// The same ConfigMaps under the plugin's general entry point: nothing
	// found without looking, every last-state upgrade a cancel.
	general, err := view(ctx, c, ns, clusterID, pluginFactory)
	require.NoError(t, err)
	assert.Equal(t, operatorView{}, general)
	assert.Equal(t, lastStateUsingCancel, lastStateUpgrade(kindDeployment, general, false, ""))

	plugin := operate(t, c, ns, clusterID, pluginHAType)
	stock := operate(t, c, ns, stockID, "kubernetes")

	// Stock Kubernetes HA: found with its checkpoint; the upgrade keeps the
	// job ID; the job graph goes, leader entries and the counter stay; the
	// deletion leaves nothing.
	assert.Equal(t, sequence{
		found:   operatorView{haMetadataAvailable: true, atLeastOneCheckpoint: true},
		upgrade: lastStateUsingHaMeta,
		kept: map[string][]string{
			"-cluster-config-map": {
				"org.apache.flink.k8s.leader.dispatcher", "org.apache.flink.k8s.leader.job-" + jobID,
				"org.apache.flink.k8s.leader.resourcemanager", "org.apache.flink.k8s.leader.restserver",
			},
			"-" + jobID + "-config-map": {checkpointCounterKey},
		},
		foundAfterUpgrade: operatorView{haMetadataAvailable: true, atLeastOneCheckpoint: true},
		leftAfterDeletion: []string{},
	}, stock, "stock Flink %s under operator %s", layout.flink, operatorRelease)

	// The plugin gets every decision stock gets. The one difference: Flink's
	// ConfigMap holds no completed checkpoint, so the operator sets no dummy
	// savepoint path (KUBERNETES_OPERATOR_LAST_STATE) for a last-state
	// deployment; the job restores from the finalizer instead.
	want := stock
	want.found.atLeastOneCheckpoint = false
	want.foundAfterUpgrade.atLeastOneCheckpoint = false
	assert.Equal(t, want, plugin, "the plugin on Flink %s under operator %s, against stock", layout.flink, operatorRelease)

	// After the deletion nothing is left to restore from HA: a JobManager
	// Deployment lost now needs a manual restore, as with stock. The
	// finalizer's records are not the operator's to delete (the job's
	// retirement, when Flink cancels it, settles them), nor is the
	// autoscaler's state.
	v, err := view(ctx, c, ns, clusterID, pluginHAType)
	require.NoError(t, err)
	assert.Equal(t, operatorView{}, v)
	_, err = c.ConfigMaps(ns).Get(ctx, "autoscaler-"+clusterID, metav1.GetOptions{})
	require.NoError(t, err, "the autoscaler's state is left alone")
	requirePublished(t, store, finalizerJob, 7)
	other, err := haConfigMaps(ctx, c, ns, "orders-other")
	require.NoError(t, err)
	assert.Len(t, other, 2, "another cluster's HA data is left alone")

	// A job ConfigMap on its way out (held by a finalizer, its deletion
	// timestamp set by the API server) is no HA metadata.
	haRun(t, c, ns, "orders-deleting", jobID, layout, false)
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
