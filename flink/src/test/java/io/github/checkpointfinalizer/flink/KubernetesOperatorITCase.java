package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.kubernetes.configuration.KubernetesConfigOptions;
import org.apache.flink.kubernetes.highavailability.KubernetesHAServicesFactory;
import org.apache.flink.kubernetes.kubeclient.FlinkKubeClient;
import org.apache.flink.kubernetes.kubeclient.FlinkKubeClientFactory;
import org.apache.flink.kubernetes.kubeclient.resources.KubernetesConfigMap;
import org.apache.flink.kubernetes.utils.Constants;
import org.apache.flink.kubernetes.utils.KubernetesUtils;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Flink Kubernetes Operator's sequences on MiniClusters configured as the operator configures
 * a FlinkDeployment with the plugin's operator entry point ({@link KubernetesHAServicesFactory}):
 * Flink's Kubernetes HA on the harness's real API server, the worker on its Kubernetes store.
 * The operator's decisions themselves (release 1.15.0) are reproduced in {@code
 * flink/operator}; this runs what they lead to.
 */
class KubernetesOperatorITCase extends ItBase {

    /** A FlinkDeployment's configuration as the operator hands it to Flink. */
    @Override
    Configuration configuration(String haRoot) {
        Configuration c = KubernetesDelegateITCase.kubernetes(haRoot);
        c.set(HighAvailabilityOptions.HA_MODE, KubernetesHAServicesFactory.class.getName());
        // FlinkConfigBuilder.build: the HA cluster ID is the FlinkDeployment's name, as is
        // kubernetes.cluster-id.
        c.set(HighAvailabilityOptions.HA_CLUSTER_ID, c.get(KubernetesConfigOptions.CLUSTER_ID));
        return c;
    }

    @Override
    String cluster() {
        return KubernetesDelegateITCase.kubeCluster();
    }

    @Override
    void awaitJobCleanup(Configuration conf) throws Exception {
        KubernetesDelegateITCase.awaitNoJobGraph(conf);
    }

    /**
     * A last-state upgrade as the operator performs it when it finds HA metadata
     * (lastStateUsingHaMeta): the JobManager's Deployment is deleted without cancelling the job
     * and without touching the HA ConfigMaps; before deploying again the operator deletes the job
     * graph keys from them (FlinkUtils.deleteJobGraphInKubernetesHA) and submits the job under the
     * same cluster ID and job ID, without a savepoint path (it sets its dummy one only where
     * Flink's ConfigMap holds a checkpoint, which the plugin's never does). The job resumes from
     * the newest published checkpoint, under a new epoch, nothing retired; output exact.
     */
    @Test
    void lastStateUpgradeKeepsTheJobAndResumesFromTheNewestPublishedCheckpoint() throws Exception {
        String run = "operator-last-state-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        Configuration conf = configuration("/" + run);
        String clusterId = conf.get(KubernetesConfigOptions.CLUSTER_ID);
        String clusterConfigMap = clusterId + "-cluster-config-map";
        String jobConfigMap = clusterId + "-" + jobId + "-config-map";

        MiniCluster first = start(conf);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
        } finally {
            // The JobManager Deployment deleted: no cancel, HA data kept.
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        assertFalse(r.emitted.get() >= r.elements, "the first cluster stopped mid-run");
        long newest = latest(jobId).latest().checkpoint();
        long epoch = latest(jobId).epoch();

        try (FlinkKubeClient kube = FlinkKubeClientFactory.getInstance().fromConfiguration(conf, "test")) {
            // What the operator's rules read (flink/operator models the same): the job's own
            // ConfigMap under the cluster's labels, so HA metadata is available; no checkpoint key.
            KubernetesConfigMap job = kube.getConfigMap(jobConfigMap).orElseThrow(
                    () -> new AssertionError("the job's HA ConfigMap " + jobConfigMap + " is left"));
            assertEquals(KubernetesHaLayout.haConfigMapLabels(clusterId), job.getLabels(), "the labels the operator selects by");
            assertTrue(job.getData().containsKey(Constants.CHECKPOINT_COUNTER_KEY), "the checkpoint ID counter: " + job.getData());
            assertTrue(job.getData().keySet().stream().noneMatch(k -> k.startsWith(Constants.CHECKPOINT_ID_KEY_PREFIX)),
                    "no completed checkpoint in Flink's ConfigMap: " + job.getData().keySet());
            // The operator's submitApplicationCluster: the job graph goes, the rest stays.
            AtomicReference<Boolean> hadJobGraph = new AtomicReference<>(false);
            assertTrue(kube.checkAndUpdateConfigMap(clusterConfigMap, cm -> {
                hadJobGraph.set(cm.getData().keySet().removeIf(k -> k.startsWith(KubernetesHaLayout.JOB_KEY_PREFIX)));
                return Optional.of(cm);
            }).get(1, TimeUnit.MINUTES), "the job graph deleted from " + clusterConfigMap);
            assertTrue(hadJobGraph.get(), "the job's graph was in " + clusterConfigMap);
        }

        try (MiniCluster second = start(conf)) {
            second.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("the new JobManager claimed above epoch " + epoch, Duration.ofMinutes(2),
                    () -> latestQuietly(jobId).epoch() > epoch);
            AtomicReference<RestoredCheckpointStats> restored = new AtomicReference<>();
            await("the job restored a checkpoint", Duration.ofMinutes(2), () -> {
                restored.set(second.getExecutionGraph(jobId).join().getCheckpointStatsSnapshot().getLatestRestoredCheckpoint());
                return restored.get() != null;
            });
            assertEquals(newest, restored.get().getCheckpointId(), "restored from the newest published checkpoint");
            assertFalse(retired(jobId), "the upgrade retired nothing: the same job goes on");
            await("every element emitted after the upgrade", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertNull(r.outputProblem(), "exactly-once output across the last-state upgrade");
        assertTrue(retired(jobId), "the finished job was retired");
        try (FlinkKubeClient kube = FlinkKubeClientFactory.getInstance().fromConfiguration(conf, "test")) {
            assertEquals(Optional.empty(), kube.getConfigMap(jobConfigMap).map(KubernetesConfigMap::getName),
                    "the finished job's HA ConfigMap is gone: a new deployment of the name finds no HA metadata of it");
        }
    }

    /**
     * A stateless upgrade, or the FlinkDeployment's deletion, as the operator performs it
     * (SuspendMode.STATELESS): it sends Flink a cancel, deletes the JobManager Deployment without
     * waiting for the cancel to finish, and deletes the cluster's HA ConfigMaps by label
     * (FlinkUtils.deleteKubernetesHAMetadata); a stateless upgrade then deploys a new job ID under
     * the same name. Both ends of the race are run: the canceled job's cleanup ran before its
     * JobManager went (the job is retired), and the JobManager went first (the job stays open in
     * the finalizer with its restore point: the manual step docs/flink.md names). Either way the
     * new deployment recovers no job graph and its job starts from scratch.
     */
    @Test
    void statelessUpgradeLeavesNoJobGraphBehind() throws Exception {
        String run = "operator-stateless-" + UUID.randomUUID();
        Configuration conf = configuration("/" + run);

        // The cancel's cleanup runs before the JobManager goes.
        CheckingJob.Run canceled = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run + "-canceled", canceled);
        JobID canceledJob = new JobID();
        MiniCluster first = start(conf);
        try {
            first.submitJob(CheckingJob.graph(run + "-canceled", canceledJob, INTERVAL)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> canceled.published.get() >= 3);
            first.cancelJob(canceledJob).get(1, TimeUnit.MINUTES);
            first.requestJobResult(canceledJob).get(2, TimeUnit.MINUTES);
            KubernetesDelegateITCase.awaitNoJobGraph(conf);
            await("the canceled job retired", Duration.ofMinutes(1), () -> retired(canceledJob));
        } finally {
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        operatorDeletesHaData(conf);

        // The JobManager goes before the cancel is processed.
        CheckingJob.Run killed = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run + "-killed", killed);
        JobID killedJob = new JobID();
        MiniCluster second = start(conf);
        try {
            second.submitJob(CheckingJob.graph(run + "-killed", killedJob, INTERVAL)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> killed.published.get() >= 3);
        } finally {
            second.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        operatorDeletesHaData(conf);
        assertFalse(retired(killedJob), "a job whose JobManager went first is not retired");
        assertTrue(latest(killedJob).latest().checkpoint() >= 3, "its restore point stays for the manual step: " + latest(killedJob));

        // The next deployment of the name: a new job ID, nothing recovered, a fresh start.
        CheckingJob.Run fresh = new CheckingJob.Run(2000, 0);
        CheckingJob.RUNS.put(run + "-fresh", fresh);
        JobID freshJob = new JobID();
        try (MiniCluster third = start(conf)) {
            third.submitJob(CheckingJob.graph(run + "-fresh", freshJob, INTERVAL)).get();
            await("every element emitted, 3 checkpoints published", Duration.ofMinutes(2),
                    () -> fresh.emitted.get() >= fresh.elements && fresh.published.get() >= 3);
            assertEquals(java.util.List.of(freshJob), third.listJobs().get(1, TimeUnit.MINUTES).stream()
                    .map(j -> j.getJobId()).collect(java.util.stream.Collectors.toList()), "no job graph recovered");
            assertNull(third.getExecutionGraph(freshJob).join().getCheckpointStatsSnapshot().getLatestRestoredCheckpoint(),
                    "the new job restored nothing");
            fresh.released = true;
            JobResult result = third.requestJobResult(freshJob).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertNull(fresh.outputProblem(), "exactly-once output of the new deployment's job");
        assertEquals(0, fresh.restores.get(), "the new job never restored");
    }

    /**
     * FlinkUtils.deleteKubernetesHAMetadata of operator 1.15.0: every ConfigMap under the
     * cluster's common labels but the autoscaler's, through the same fabric8 filter.
     */
    private static void operatorDeletesHaData(Configuration conf) {
        try (var client = FlinkKubeClientFactory.getInstance().createFabric8ioKubernetesClient(conf)) {
            client.configMaps().inNamespace(conf.get(KubernetesConfigOptions.NAMESPACE)).withNewFilter()
                    .withLabels(KubernetesUtils.getCommonLabels(conf.get(KubernetesConfigOptions.CLUSTER_ID)))
                    .withoutLabel(Constants.LABEL_COMPONENT_KEY, "autoscaler")
                    .endFilter().delete();
        }
        try (FlinkKubeClient kube = FlinkKubeClientFactory.getInstance().fromConfiguration(conf, "test")) {
            String configMap = conf.get(KubernetesConfigOptions.CLUSTER_ID) + "-cluster-config-map";
            assertEquals(Optional.empty(), kube.getConfigMap(configMap).map(KubernetesConfigMap::getName), "HA data deleted");
        }
    }

    private boolean retired(JobID jobId) {
        return temporal.listExecutions("WorkflowType = 'RetireJob'").anyMatch(m -> m.getExecution().getWorkflowId()
                .startsWith("retire/" + cluster() + "/" + jobId.toHexString() + "/"));
    }

    /**
     * The operator entry point fixes the delegate: another one set explicitly is refused, with
     * the other settings' errors, before anything connects.
     */
    @Test
    void theOperatorEntryPointRefusesAnotherDelegate() {
        Configuration c = configuration("/unused-" + UUID.randomUUID());
        c.set(FinalizerOptions.DELEGATE, "zookeeper");
        c.set(FinalizerOptions.STATE_BUCKET, "");
        IllegalConfigurationException e = assertThrows(IllegalConfigurationException.class,
                () -> new KubernetesHAServicesFactory().createHAServices(c, Runnable::run));
        assertTrue(e.getMessage().contains("finalizer.high-availability.delegate \"zookeeper\" must be kubernetes or unset"
                + " with high-availability.type: " + KubernetesHAServicesFactory.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains(FinalizerOptions.STATE_BUCKET.key()), "every error at once: " + e.getMessage());
    }
}
