package io.github.checkpointfinalizer.flink;

import org.apache.flink.kubernetes.utils.Constants;

import java.util.Map;

/**
 * Flink 2.x's Kubernetes HA layout: job graphs became execution plans (executionPlan- keys); HA
 * ConfigMaps carry only the cluster's labels (2.x dropped configmap-type).
 */
final class KubernetesHaLayout {
    /** The key prefix of a job's execution plan in the cluster's ConfigMap. */
    static final String JOB_KEY_PREFIX = Constants.EXECUTION_PLAN_STORE_KEY_PREFIX;

    private KubernetesHaLayout() {}

    /** The labels of an HA ConfigMap: the cluster's only (Flink 2.x writes no configmap-type label). */
    static Map<String, String> haConfigMapLabels(String clusterId) {
        return Map.of(Constants.LABEL_APP_KEY, clusterId, Constants.LABEL_TYPE_KEY, Constants.LABEL_TYPE_NATIVE_TYPE);
    }
}
