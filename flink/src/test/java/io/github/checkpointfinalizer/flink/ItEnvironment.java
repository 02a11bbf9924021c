package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The real servers and worker the Go harness ({@code flink/plugin_test.go}) started for these
 * tests: a missing variable fails the test, never skips it.
 */
record ItEnvironment(String temporalAddress, String namespace, String taskQueue, String zookeeper, Path bucket,
        String cluster) {

    static ItEnvironment fromEnv() {
        Map<String, String> env = System.getenv();
        List<String> missing = Stream.of("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TASK_QUEUE", "ZOOKEEPER", "BUCKET",
                        "CLUSTER")
                .map(k -> "FINALIZER_IT_" + k).filter(k -> env.get(k) == null).collect(Collectors.toList());
        if (!missing.isEmpty()) {
            throw new IllegalStateException("run these tests through the Go harness (go test ./flink), which starts"
                    + " the servers and the worker; missing " + missing);
        }
        return new ItEnvironment(env.get("FINALIZER_IT_TEMPORAL_ADDRESS"), env.get("FINALIZER_IT_TEMPORAL_NAMESPACE"),
                env.get("FINALIZER_IT_TASK_QUEUE"), env.get("FINALIZER_IT_ZOOKEEPER"),
                Path.of(env.get("FINALIZER_IT_BUCKET")), env.get("FINALIZER_IT_CLUSTER"));
    }

    /** Flink's configuration of a cluster using the plugin: only configuration, as a user sets it. */
    Configuration flinkConfiguration(String haRoot, int retained) {
        return flinkConfiguration(haRoot, retained, cluster, taskQueue);
    }

    /** The same for a given cluster and the worker of a task queue that serves it. */
    Configuration flinkConfiguration(String haRoot, int retained, String cluster, String taskQueue) {
        Configuration c = new Configuration();
        c.set(HighAvailabilityOptions.HA_MODE, FinalizerHaServicesFactory.class.getName());
        c.set(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM, zookeeper);
        c.set(HighAvailabilityOptions.HA_ZOOKEEPER_ROOT, haRoot);
        c.set(HighAvailabilityOptions.HA_CLUSTER_ID, cluster);
        c.set(HighAvailabilityOptions.HA_STORAGE_PATH, uri("flink/" + cluster + "/ha"));
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, uri(checkpointsKey(cluster)));
        c.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, uri("flink/" + cluster + "/savepoints"));
        c.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, retained);
        c.set(FinalizerOptions.TEMPORAL_ADDRESS, temporalAddress);
        c.set(FinalizerOptions.TEMPORAL_NAMESPACE, namespace);
        c.set(FinalizerOptions.TASK_QUEUE, taskQueue);
        c.set(FinalizerOptions.STATE_BUCKET, "file://" + bucket);
        return c;
    }

    /** The bucket key of a cluster's state.checkpoints.dir. */
    static String checkpointsKey(String cluster) {
        return "flink/" + cluster + "/checkpoints";
    }

    String uri(String key) {
        return "file://" + bucket.resolve(key);
    }

    /** The job's chk-N directories in the bucket now, by N. */
    List<Long> checkpointDirectories(String job) throws Exception {
        return checkpointDirectories(cluster, job);
    }

    /** A job's chk-N directories of a cluster in the bucket now, by N. */
    List<Long> checkpointDirectories(String cluster, String job) throws Exception {
        Path dir = bucket.resolve(checkpointsKey(cluster)).resolve(job);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("chk-"))
                    .map(n -> Long.parseLong(n.substring(4))).sorted().collect(Collectors.toList());
        }
    }
}
