package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.configuration.KubernetesConfigOptions;
import org.apache.flink.kubernetes.kubeclient.FlinkKubeClient;
import org.apache.flink.kubernetes.kubeclient.FlinkKubeClientFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * The same scenarios with Flink's Kubernetes HA services as the delegate (leader election, job
 * graphs and checkpoint IDs in ConfigMaps of the real kube-apiserver the Go harness started)
 * and a worker on the Kubernetes store of the same API server. Migration reads Flink's stock
 * Kubernetes HA store.
 */
class KubernetesDelegateITCase extends FinalizerPluginITCase {

    @Override
    Configuration configuration(String haRoot) {
        Configuration c = kubernetes(haRoot);
        c.set(FinalizerOptions.DELEGATE, "kubernetes");
        return c;
    }

    /**
     * A cluster with the plugin over Flink's Kubernetes HA services on the harness's API server,
     * served by the worker on the Kubernetes store; the entry point is the caller's to choose.
     */
    static Configuration kubernetes(String haRoot) {
        String kubeconfig = System.getenv("FINALIZER_IT_KUBECONFIG");
        if (kubeconfig == null) {
            throw new IllegalStateException("run these tests through the Go harness (go test ./flink)");
        }
        String cluster = kubeCluster();
        Configuration c = env.flinkConfiguration(haRoot, RETAINED, cluster, System.getenv("FINALIZER_IT_KUBE_TASK_QUEUE"));
        c.set(FinalizerOptions.CLUSTER, cluster);
        c.set(KubernetesConfigOptions.KUBE_CONFIG_FILE, kubeconfig);
        c.set(KubernetesConfigOptions.NAMESPACE, "default");
        // Flink names its HA ConfigMaps after its cluster ID: one per HA root keeps tests apart.
        c.set(KubernetesConfigOptions.CLUSTER_ID, "flink-" + UUID.nameUUIDFromBytes(
                haRoot.getBytes(StandardCharsets.UTF_8)).toString().substring(0, 8));
        return c;
    }

    static String kubeCluster() {
        return System.getenv("FINALIZER_IT_KUBE_CLUSTER");
    }

    @Override
    String cluster() {
        return kubeCluster();
    }

    /**
     * Flink's Kubernetes HA removes an ended job's graph only while its dispatcher leads: a close
     * racing that cleanup leaves the cleanup's retry on a stopped executor, and the close never
     * completes. Waits until no job graph is left in the cluster's ConfigMap.
     */
    @Override
    void awaitJobCleanup(Configuration conf) throws Exception {
        awaitNoJobGraph(conf);
    }

    static void awaitNoJobGraph(Configuration conf) throws Exception {
        String configMap = conf.get(KubernetesConfigOptions.CLUSTER_ID) + "-cluster-config-map";
        try (FlinkKubeClient kube = FlinkKubeClientFactory.getInstance().fromConfiguration(conf, "test")) {
            await("no job graph left in " + configMap, Duration.ofMinutes(1), () -> kube.getConfigMap(configMap)
                    .map(cm -> cm.getData().keySet().stream().noneMatch(k -> k.startsWith(KubernetesHaLayout.JOB_KEY_PREFIX)))
                    .orElse(true));
        }
    }

    @Override
    String stockHaType() {
        return "kubernetes";
    }
}
