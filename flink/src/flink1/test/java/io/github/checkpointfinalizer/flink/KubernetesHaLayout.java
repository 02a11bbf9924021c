package io.github.checkpointfinalizer.flink;

import org.apache.flink.kubernetes.utils.Constants;

import java.util.Map;

/**
 * Flink 1.20's Kubernetes HA layout: job graphs under jobGraph- keys; HA ConfigMaps labelled with
 * the cluster and configmap-type high-availability.
 */
final class KubernetesHaLayout {
    /** The key prefix of a job's graph in the cluster's ConfigMap. */
    static final String JOB_KEY_PREFIX = Constants.JOB_GRAPH_STORE_KEY_PREFIX;

    private KubernetesHaLayout() {}

    /**
     * The labels of an HA ConfigMap: the cluster's (app and type, which the operator selects by) and
     * configmap-type high-availability.
     */
    static Map<String, String> haConfigMapLabels(String clusterId) {
        return Map.of(Constants.LABEL_APP_KEY, clusterId, Constants.LABEL_TYPE_KEY, Constants.LABEL_TYPE_NATIVE_TYPE,
                Constants.LABEL_CONFIGMAP_TYPE_KEY, Constants.LABEL_CONFIGMAP_TYPE_HIGH_AVAILABILITY);
    }
}
