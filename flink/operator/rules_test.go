// Package operator_test holds the Flink Kubernetes Operator's decisions
// about HA, written down from its source, and runs them against a real
// kube-apiserver holding what a run of the plugin leaves there: which
// high-availability.type it takes for Kubernetes HA, whether it finds HA
// metadata (and so upgrades with last-state, recovers a lost JobManager
// Deployment, rolls back, restarts an unhealthy job), and what it deletes.
// It also installs the operator's FlinkDeployment CRD and dry-runs the
// FlinkDeployment of docs/flink.md against it.
//
// The operator's jars are not on Maven Central, so its rules cannot be
// called; they are reproduced here from the release named by
// operatorRelease, each with the file it comes from. When a new operator
// release changes one of those files, move the rules and the vendored CRD
// (testdata/README.md) to it together.
package operator_test

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// operatorRelease is the Flink Kubernetes Operator release (tag
// release-1.15.0 of apache/flink-kubernetes-operator) whose rules follow.
const operatorRelease = "1.15.0"

// The rules come from these files of that release (paths in the operator's
// repository; each rule below names its file by its short name):
//   - FlinkUtils: flink-kubernetes-operator/src/main/java/org/apache/flink/kubernetes/operator/utils/FlinkUtils.java
//   - AbstractFlinkService: .../operator/service/AbstractFlinkService.java
//   - AbstractJobReconciler, ApplicationReconciler, AbstractFlinkResourceReconciler:
//     .../operator/reconciler/deployment/
//   - the CRD: helm/flink-kubernetes-operator/crds/flinkdeployments.flink.apache.org-v1.yml

// Flink's names, as flink-kubernetes spells them
// (org.apache.flink.kubernetes.utils.Constants, KubernetesUtils) and as the
// operator reads them through the same classes of the flink-kubernetes it
// bundles (1.20.1 in operator 1.15.0, for every Flink version it deploys).
// The two lines' differences are in haLayout.
const (
	kubernetesHaServicesFactory = "org.apache.flink.kubernetes.highavailability.KubernetesHaServicesFactory"
	labelApp                    = "app"
	labelType                   = "type"
	labelTypeNative             = "flink-native-kubernetes"
	labelComponent              = "component"
	labelConfigMapType          = "configmap-type"    // 1.20 only
	configMapTypeHA             = "high-availability" // 1.20 only
	jobGraphKeyPrefix           = "jobGraph-"
	executionPlanKeyPrefix      = "executionPlan-" // Flink 2.x's job graph store
	checkpointIDKeyPrefix       = "checkpointID-"
	checkpointCounterKey        = "counter"
	// ConfigMapStore.LABEL_COMPONENT_AUTOSCALER: the operator's autoscaler
	// state, which its HA rules leave out.
	componentAutoscaler = "autoscaler"
)

// pluginHAType is the high-availability.type of docs/flink.md's
// FlinkDeployment: the plugin's factory under a name the operator takes
// for Kubernetes HA (see isKubernetesHAActivated) and Flink loads as a
// class of its own.
const pluginHAType = "org.apache.flink.kubernetes.highavailability.KubernetesHAServicesFactory"

// haMode is Flink's HighAvailabilityMode.
type haMode string

const (
	modeNone         haMode = "NONE"
	modeZooKeeper    haMode = "ZOOKEEPER"
	modeKubernetes   haMode = "KUBERNETES"
	modeFactoryClass haMode = "FACTORY_CLASS"
)

// flinkHAMode is HighAvailabilityMode.fromConfig of Flink 1.20 and 2.x
// (flink-runtime, org/apache/flink/runtime/jobmanager/HighAvailabilityMode),
// which the operator links too: the name of a mode in any case, "standalone"
// for NONE, anything else a factory class that Flink loads by that exact,
// case-sensitive name. ("" stands for the key being unset; the option's
// default is NONE.)
func flinkHAMode(haType string) haMode {
	if haType == "" || strings.EqualFold(haType, "standalone") {
		return modeNone
	}
	switch m := haMode(strings.ToUpper(haType)); m {
	case modeNone, modeZooKeeper, modeKubernetes, modeFactoryClass:
		return m
	}
	return modeFactoryClass
}

// haActivated is HighAvailabilityMode.isHighAvailabilityModeActivated:
// every mode but NONE. The operator asks it before recovering a missing
// JobManager Deployment (AbstractFlinkResourceReconciler.shouldRecoverDeployment)
// and to validate last-state upgrades.
func haActivated(haType string) bool { return flinkHAMode(haType) != modeNone }

// isKubernetesHAActivated is FlinkUtils.isKubernetesHAActivated (FlinkUtils):
// "kubernetes" or the canonical name of Flink's KubernetesHaServicesFactory,
// both compared with String.equalsIgnoreCase. Everything about Kubernetes HA
// metadata in the operator goes through it.
func isKubernetesHAActivated(haType string) bool {
	if haType == "" {
		haType = string(modeNone)
	}
	return strings.EqualFold(haType, kubernetesHaServicesFactory) || strings.EqualFold(haType, "kubernetes")
}

// isZookeeperHAActivated is FlinkUtils.isZookeeperHAActivated (FlinkUtils).
func isZookeeperHAActivated(haType string) bool { return flinkHAMode(haType) == modeZooKeeper }

// haConfigMapSelector is FlinkUtils.getFlinkKubernetesHaConfigmaps
// (FlinkUtils): KubernetesUtils.getCommonLabels(clusterId), that is app and
// type, without the autoscaler's ConfigMaps.
func haConfigMapSelector(clusterID string) string {
	req := func(key string, op selection.Operator, value string) labels.Requirement {
		r, err := labels.NewRequirement(key, op, []string{value})
		if err != nil {
			panic(err)
		}
		return *r
	}
	return labels.NewSelector().Add(
		req(labelApp, selection.Equals, clusterID),
		req(labelType, selection.Equals, labelTypeNative),
		req(labelComponent, selection.NotEquals, componentAutoscaler),
	).String()
}

// haConfigMaps lists what the operator takes for the cluster's HA
// ConfigMaps.
func haConfigMaps(ctx context.Context, c corev1client.CoreV1Interface, namespace, clusterID string) ([]corev1.ConfigMap, error) {
	list, err := c.ConfigMaps(namespace).List(ctx, metav1.ListOptions{LabelSelector: haConfigMapSelector(clusterID)})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// isValidHaConfigMap is FlinkUtils.isValidHaConfigMap (FlinkUtils): not
// being deleted, and a job's ConfigMap ("<cluster>-<job>-config-map") or a
// pre-1.15 leader ConfigMap; the cluster's own "-cluster-config-map" (leader
// election, job graphs) does not count.
func isValidHaConfigMap(cm corev1.ConfigMap) bool {
	if cm.DeletionTimestamp != nil {
		return false
	}
	if strings.HasSuffix(cm.Name, "-config-map") {
		return !strings.HasSuffix(cm.Name, "-cluster-config-map")
	}
	return strings.HasSuffix(cm.Name, "-jobmanager-leader")
}

// checkpointExists is FlinkUtils.checkpointExists (FlinkUtils): a key of
// Flink's own completed-checkpoint store.
func checkpointExists(cm corev1.ConfigMap) bool {
	for k := range cm.Data {
		if strings.HasPrefix(k, checkpointIDKeyPrefix) {
			return true
		}
	}
	return false
}

// operatorView is what the operator concludes about one FlinkDeployment's
// HA from its high-availability.type and the API server.
type operatorView struct {
	// haMetadataAvailable is AbstractFlinkService.isHaMetadataAvailable
	// (AbstractFlinkService): false without looking unless Kubernetes (or
	// ZooKeeper) HA is recognised. Last-state upgrades without a cancel,
	// recovery of a missing JobManager Deployment, rollback and restarts of
	// an unhealthy job all need it.
	haMetadataAvailable bool
	// atLeastOneCheckpoint is AbstractFlinkService.atLeastOneCheckpoint
	// (AbstractFlinkService): with it, ApplicationReconciler.deploy (ApplicationReconciler)
	// sets execution.savepoint.path to the dummy KUBERNETES_OPERATOR_LAST_STATE
	// for a last-state deployment, so that a job whose HA data vanished
	// fails instead of starting empty.
	atLeastOneCheckpoint bool
}

func view(ctx context.Context, c corev1client.CoreV1Interface, namespace, clusterID, haType string) (operatorView, error) {
	if !isKubernetesHAActivated(haType) {
		// ZooKeeper's rules need a ZooKeeper; the plugin's FlinkDeployment
		// names no ZooKeeper, so only the "neither" branch matters here.
		return operatorView{}, nil
	}
	cms, err := haConfigMaps(ctx, c, namespace, clusterID)
	if err != nil {
		return operatorView{}, err
	}
	var v operatorView
	for _, cm := range cms {
		if isValidHaConfigMap(cm) {
			v.haMetadataAvailable = true
			if checkpointExists(cm) {
				v.atLeastOneCheckpoint = true
			}
		}
	}
	return v, nil
}

// upgrade is the way AbstractJobReconciler.getJobUpgrade (AbstractJobReconciler)
// performs a last-state upgrade of a running, cancellable job whose
// checkpoint age is not limited.
type upgrade string

const (
	// lastStateUsingHaMeta: delete the JobManager Deployment, keep the HA
	// data, deploy again under the same job ID.
	lastStateUsingHaMeta upgrade = "last-state from HA metadata"
	// lastStateUsingCancel: cancel the job, restore its newest retained
	// checkpoint under a new job ID.
	lastStateUsingCancel upgrade = "last-state by cancel"
	// savepointUpgrade: stop the job with a savepoint, restore it.
	savepointUpgrade upgrade = "savepoint"
)

// resourceKind is the operator's resource a job belongs to.
type resourceKind string

const (
	kindDeployment resourceKind = "FlinkDeployment"
	kindSessionJob resourceKind = "FlinkSessionJob"
)

// lastStateUpgrade is getJobUpgrade's last-state branch (AbstractJobReconciler)
// with the operator's default kubernetes.operator.job.upgrade.last-state.job-cancel.enabled
// (false):
//   - a changed flinkVersion: a savepoint when a savepoint directory is set,
//     else a cancel ("Using savepoint to upgrade Flink version" / "Using
//     last-state upgrade with cancellation to upgrade Flink version");
//   - otherwise allowLastStateCancel: a FlinkSessionJob always cancels
//     (it returns true before asking for HA metadata); a FlinkDeployment
//     cancels only without HA metadata ("HA metadata is not available,
//     cancel will be used instead of last-state").
func lastStateUpgrade(kind resourceKind, v operatorView, versionChanged bool, savepointDir string) upgrade {
	if versionChanged {
		if strings.TrimSpace(savepointDir) != "" {
			return savepointUpgrade
		}
		return lastStateUsingCancel
	}
	if kind == kindSessionJob || !v.haMetadataAvailable {
		return lastStateUsingCancel
	}
	return lastStateUsingHaMeta
}

// deleteJobGraph is FlinkUtils.deleteJobGraphInKubernetesHA (FlinkUtils),
// run by AbstractFlinkService.submitApplicationCluster before every
// application deployment, last-state ones included: the job graph keys of
// every HA ConfigMap go, so that a changed job takes effect. isJobGraphKey
// takes Flink 1.x's "jobGraph-" and 2.x's "executionPlan-" (the operator
// knows the latter since its release 1.12).
func deleteJobGraph(ctx context.Context, c corev1client.CoreV1Interface, namespace, clusterID string) error {
	cms, err := haConfigMaps(ctx, c, namespace, clusterID)
	if err != nil {
		return err
	}
	for _, cm := range cms {
		changed := false
		for k := range cm.Data {
			if strings.HasPrefix(k, jobGraphKeyPrefix) || strings.HasPrefix(k, executionPlanKeyPrefix) {
				delete(cm.Data, k)
				changed = true
			}
		}
		if changed {
			if _, err := c.ConfigMaps(namespace).Update(ctx, &cm, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteHAMetadata is FlinkUtils.deleteKubernetesHAMetadata (FlinkUtils),
// run by AbstractFlinkService.deleteHAData when the operator deletes a
// cluster with its HA data: a stateless upgrade, a deleted FlinkDeployment.
func deleteHAMetadata(ctx context.Context, c corev1client.CoreV1Interface, namespace, clusterID string) error {
	return c.ConfigMaps(namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: haConfigMapSelector(clusterID)})
}

// validate is the part of the operator's admission check
// (DefaultValidator, flink-kubernetes-operator/src/main/java/org/apache/flink/kubernetes/operator/validation/DefaultValidator.java)
// that a FlinkDeployment's configuration and job decide: validateFlinkDeploymentConfig,
// validateJobSpec and validateJmReplicas. The CRD checks the rest of the shape.
func validate(conf map[string]string, upgradeMode string, jmReplicas int64) []string {
	var errs []string
	// FORBIDDEN_CONF_KEYS: the operator sets them from the resource.
	for _, k := range []string{"kubernetes.namespace", "kubernetes.cluster-id", "high-availability.cluster-id"} {
		if _, ok := conf[k]; ok {
			errs = append(errs, "Forbidden Flink config key: "+k)
		}
	}
	ha := haActivated(conf["high-availability.type"])
	if conf["kubernetes.operator.deployment.rollback.enabled"] == "true" && !ha {
		errs = append(errs, "HA must be enabled for rollback support.")
	}
	// CheckpointingOptions of Flink 1.20, which the operator links: the new
	// keys with the deprecated ones as fallbacks.
	dir := func(key, deprecated string) string {
		if v, ok := conf[key]; ok {
			return v
		}
		return conf[deprecated]
	}
	if upgradeMode != "stateless" && strings.TrimSpace(dir("execution.checkpointing.dir", "state.checkpoints.dir")) == "" {
		errs = append(errs, "Checkpoint directory[execution.checkpointing.dir] must be defined for last-state and savepoint upgrade modes")
	}
	if upgradeMode == "savepoint" && strings.TrimSpace(dir("execution.checkpointing.savepoint-dir", "state.savepoints.dir")) == "" {
		errs = append(errs, "Job could not be upgraded with savepoint while config key[execution.checkpointing.savepoint-dir] is not set")
	}
	if jmReplicas > 1 && !ha {
		errs = append(errs, "High availability should be enabled when starting standby JobManagers.")
	}
	return errs
}
