package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.LatestRequest;
import io.github.checkpointfinalizer.flink.wire.RestorePoint;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** What the plugin's scenarios share: the harness's servers, MiniClusters, Temporal and waiting. */
abstract class ItBase {
    static final int RETAINED = 2;
    static final Duration INTERVAL = Duration.ofMillis(200);
    static ItEnvironment env;
    static WorkflowServiceStubs service;
    static WorkflowClient temporal;

    @BeforeAll
    static void connect() {
        env = ItEnvironment.fromEnv();
        service = WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder().setTarget(env.temporalAddress()).build());
        temporal = WorkflowClient.newInstance(service,
                WorkflowClientOptions.newBuilder().setNamespace(env.namespace()).build());
    }

    @AfterAll
    static void close() {
        if (service != null) {
            service.shutdownNow();
        }
    }

    /**
     * The Flink configuration of a cluster with the plugin whose HA data lives under haRoot: the
     * ZooKeeper delegate and the worker on ZooKeeper unless a test class says otherwise.
     */
    Configuration configuration(String haRoot) {
        return env.flinkConfiguration(haRoot, RETAINED);
    }

    /** The finalizer's cluster the configuration's worker serves. */
    String cluster() {
        return env.cluster();
    }

    /** Flink's own HA type that the plugin delegates to, for a cluster without the plugin. */
    String stockHaType() {
        return "zookeeper";
    }

    MiniCluster start(String haRoot) throws Exception {
        return start(configuration(haRoot));
    }

    MiniCluster start(Configuration conf) throws Exception {
        MiniClusterConfiguration mc = new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(4).withRandomPorts().build();
        MiniCluster cluster = new MiniCluster(mc) {
            @Override
            public CompletableFuture<Void> closeAsync() {
                try {
                    awaitJobCleanup(conf);
                } catch (Exception e) {
                    throw new IllegalStateException("waiting for the ended jobs' cleanup before closing", e);
                }
                return super.closeAsync();
            }
        };
        cluster.start();
        return cluster;
    }

    /**
     * Waits, before a MiniCluster of this configuration closes, until Flink cleaned up the jobs
     * that ended, as a real cluster is only stopped then. Nothing to wait for by default.
     */
    void awaitJobCleanup(Configuration conf) throws Exception {}

    RestorePoint latest(JobID jobId) throws Exception {
        try (FinalizerClient c = FinalizerClient.connect(configuration("/unused"))) {
            return c.latest(new LatestRequest(cluster(), jobId.toHexString()), Duration.ofMinutes(1));
        }
    }

    RestorePoint latestQuietly(JobID jobId) {
        try {
            return latest(jobId);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    List<Long> dirs(String job) {
        try {
            return env.checkpointDirectories(cluster(), job);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    List<WorkflowExecutionMetadata> executions(String query) {
        return temporal.listExecutions(query).collect(Collectors.toList());
    }

    /** A report's file in the build directory of the Flink line the tests run on. */
    static Path reportFile(String name) {
        return Path.of(System.getProperty("finalizer.it.reports", "target"), name);
    }

    /** Whether the condition held within the timeout. */
    static boolean within(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        if (!within(timeout, condition)) {
            throw new AssertionError("timed out after " + timeout + " waiting until " + what);
        }
    }

    /** What Flink's stock store references for the job, read through Flink's own classes as a recovering JobMaster would. */
    static List<Long> flinksReferences(Configuration conf, JobID jobId) throws Exception {
        ExecutorService io = Executors.newSingleThreadExecutor();
        HighAvailabilityServices ha = HighAvailabilityServicesUtils.createAvailableOrEmbeddedServices(conf, io, e -> { });
        try {
            CompletedCheckpointStore store = FlinkApis.recoveredStore(ha.getCheckpointRecoveryFactory(), jobId, 100, io);
            List<Long> ids = new ArrayList<>();
            for (CompletedCheckpoint c : store.getAllCheckpoints()) {
                ids.add(c.getCheckpointID());
            }
            store.shutdown(JobStatus.SUSPENDED, new CheckpointsCleaner());
            return ids;
        } finally {
            ha.close();
            io.shutdownNow();
        }
    }
}
