package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.ClaimRequest;
import io.github.checkpointfinalizer.flink.wire.FinalizeResult;
import io.github.checkpointfinalizer.flink.wire.Phase;
import io.github.checkpointfinalizer.flink.wire.RestorePoint;

import io.temporal.client.WorkflowExecutionMetadata;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plugin on real MiniClusters, configured only through Flink configuration, against the real
 * worker on ZooKeeper (on which Flink's own leader election runs too) and the Temporal dev server.
 */
class FinalizerPluginITCase extends ItBase {
    /** Scenario 1: every completed checkpoint is published through the finalizer; retention keeps N. */
    @Test
    void normalRun() throws Exception {
        String run = "normal-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(3000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        try (MiniCluster cluster = start("/" + run)) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("5 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 5);

            // Retention while the job runs: the finalizer deletes what it subsumes. Every
            // directory of now is gone once 2N+2 newer checkpoints were published, and there are
            // never many at once (retention runs beside the checkpoints, not in their path).
            String job = jobId.toHexString();
            List<Long> now = dirs(job);
            long newest = now.isEmpty() ? 0 : now.get(now.size() - 1);
            await("2N+2 checkpoints above " + now, Duration.ofMinutes(1),
                    () -> latestQuietly(jobId).latest().checkpoint() > newest + 2 * RETAINED + 2);
            await("the directories of " + now + " deleted", Duration.ofSeconds(30), () -> {
                List<Long> later = dirs(job);
                return now.stream().noneMatch(later::contains);
            });
            int most = 0;
            for (int i = 0; i < 20; i++) {
                most = Math.max(most, dirs(job).size());
                Thread.sleep(100);
            }
            assertTrue(most <= 3 * RETAINED + 2, "checkpoint directories seen at once: " + most);

            await("every element emitted", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            int notified = r.published.get();
            RestorePoint rp = latest(jobId);
            assertEquals(RestorePoint.RESOLVED, rp.state(), "the store's restore point: " + rp);
            assertTrue(rp.latest().checkpoint() >= notified, "restore point " + rp.latest().checkpoint()
                    + " is at least the " + notified + "th notified checkpoint");
            assertTrue(dirs(jobId.toHexString()).contains(rp.latest().checkpoint()),
                    "the restore point's directory exists");

            r.released = true;
            JobResult result = cluster.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertNull(r.outputProblem(), "exactly-once output");
        Map<Phase, Integer> phases = finalizations(jobId);
        assertEquals(Map.of(Phase.Published, phases.getOrDefault(Phase.Published, 0)), phases,
                "every finalization of the job ended Published");
        assertTrue(phases.get(Phase.Published) >= r.published.get(), "each notified checkpoint was Published: " + phases
                + " for " + r.published.get() + " notified");
        assertTrue(retired(jobId), "the finished job was retired");
    }

    /** Scenario 2: a task failure restores from the finalizer's latest checkpoint; output exact. */
    @Test
    void taskFailover() throws Exception {
        String run = "task-failover-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(3000, 3);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        try (MiniCluster cluster = start("/" + run)) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("every element emitted after the injected failure", Duration.ofMinutes(2),
                    () -> r.failed.get() && r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = cluster.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertTrue(r.failed.get(), "the failure was injected");
        assertNull(r.outputProblem(), "exactly-once output across the task failover");
    }

    /**
     * Scenario 3: the first cluster stops abruptly mid-run; a second with the same HA configuration
     * recovers the job from Flink's job graph store and its state from the finalizer's restore
     * point, under a new epoch.
     */
    @Test
    void jobManagerFailover() throws Exception {
        String run = "jm-failover-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        MiniCluster first = start("/" + run);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
        } finally {
            // Not a cancellation: the job stays in the job graph store, as after a crash.
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        long before = latest(jobId).epoch();
        assertFalse(r.emitted.get() >= r.elements, "the first cluster stopped mid-run");
        try (MiniCluster second = start("/" + run)) {
            await("the second cluster's leader claimed above epoch " + before, Duration.ofMinutes(2),
                    () -> latestQuietly(jobId).epoch() > before);
            await("every element emitted on the second cluster", Duration.ofMinutes(2),
                    () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertNull(r.outputProblem(), "exactly-once output across the job manager failover");
        Map<Long, Long> byEpoch = epochsOfFinalizations(jobId);
        assertTrue(byEpoch.keySet().size() >= 2, "checkpoints finalized under both leaders' epochs: " + byEpoch);
    }

    /**
     * Scenario 5: a job with retained checkpoints is canceled and submitted again under the same
     * job ID (as Flink's application mode does), restoring from its newest retained checkpoint
     * with {@code -s} (Flink's default NO_CLAIM mode). The new incarnation claims at once, above
     * the old epochs; output is exact across both; nothing the old incarnation retained is deleted.
     */
    @Test
    void cancelAndResubmit() throws Exception {
        String run = "resubmit-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        String job = jobId.toHexString();
        Configuration retainOnCancel = new Configuration();
        retainOnCancel.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        try (MiniCluster first = start("/" + run)) {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL, retainOnCancel)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            first.cancelJob(jobId).get(1, TimeUnit.MINUTES);
            first.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            // Asked of the cluster, not read off the JobResult, whose status accessor differs
            // between Flink 2.2 and 2.3.
            assertEquals(org.apache.flink.api.common.JobStatus.CANCELED, first.getJobStatus(jobId).get(1, TimeUnit.MINUTES));
        }
        assertFalse(r.emitted.get() >= r.elements, "the job was canceled mid-run");
        assertTrue(retired(jobId), "the canceled job was retired");
        Map<Long, Long> oldEpochs = epochsOfFinalizations(jobId);
        long newestPublished = executions("FinalizeCheckpoint", jobId).stream()
                .mapToLong(m -> Long.parseLong(m.getExecution().getWorkflowId().split("/")[4])).max().orElseThrow();
        List<Long> retainedDirs = dirs(job).stream().filter(n -> Files.exists(metadata(job, n))).collect(Collectors.toList());
        assertTrue(retainedDirs.contains(newestPublished), "the newest published checkpoint " + newestPublished
                + " is retained: " + retainedDirs);
        assertEquals(RestorePoint.NONE, latest(jobId).state(), "a retired job has no restore point");

        JobGraph again = CheckingJob.graph(run, jobId, INTERVAL, retainOnCancel);
        again.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(
                metadata(job, newestPublished).getParent().toUri().toString(), false));
        try (MiniCluster second = start("/" + run)) {
            submitOnceFree(second, again);
            await("every element emitted by the resubmitted job", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the resubmitted job finished: " + result.getSerializedThrowable());
        }
        assertNull(r.outputProblem(), "exactly-once output across the cancel and the resubmission");
        long oldTop = oldEpochs.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        Map<Long, Long> newEpochs = new TreeMap<>(epochsOfFinalizations(jobId));
        newEpochs.keySet().removeAll(oldEpochs.keySet());
        assertFalse(newEpochs.isEmpty(), "the resubmitted job finalized checkpoints: " + epochsOfFinalizations(jobId));
        assertTrue(newEpochs.keySet().stream().allMatch(e -> e > oldTop), "the new incarnation's epochs " + newEpochs.keySet()
                + " continue above the old ones " + oldEpochs.keySet());
        for (long n : retainedDirs) {
            assertTrue(Files.exists(metadata(job, n)), "checkpoint " + n + " the canceled job retained still exists");
        }
    }

    /**
     * The job's own retention survives a JobManager failover: a job that sets
     * RETAIN_ON_CANCELLATION in its code (the cluster keeps Flink's default, no externalized
     * checkpoints) is recovered by a new leader and canceled before that leader completes a
     * checkpoint. Stock Flink keeps the recovered checkpoint, whose properties it stored with the
     * reference; the plugin must decide the retirement from the same properties, never the
     * cluster's default.
     */
    @Test
    void jobsOwnRetentionAfterFailover() throws Exception {
        String run = "own-retention-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(100_000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        Configuration retainOnCancel = new Configuration();
        retainOnCancel.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        MiniCluster first = start("/" + run);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL, retainOnCancel)).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            r.holdSnapshots = true;
        } finally {
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        long before = latest(jobId).epoch();
        try (MiniCluster second = start("/" + run)) {
            await("the second cluster's leader recovered the job", Duration.ofMinutes(2),
                    () -> latestQuietly(jobId).epoch() > before && r.restores.get() >= 1);
            second.cancelJob(jobId).get(1, TimeUnit.MINUTES);
            second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            // Asked of the cluster, not read off the JobResult, whose status accessor differs
            // between Flink 2.2 and 2.3.
            assertEquals(org.apache.flink.api.common.JobStatus.CANCELED, second.getJobStatus(jobId).get(1, TimeUnit.MINUTES));
        }
        List<String> retirements = retireInputs(jobId);
        assertFalse(retirements.isEmpty(), "the canceled job was retired");
        for (String input : retirements) {
            assertFalse(input.contains("\"discardCheckpoints\":true"),
                    "RETAIN_ON_CANCELLATION set by the job retains its checkpoints on cancel: " + input);
        }
    }

    /**
     * A finalization that ends Discarded with its data kept (the finalizer's guard keeps a
     * directory it may not decide: here another claim of the same epoch number stands, as an
     * impersonator's would) never leads Flink to delete that directory.
     */
    @Test
    void dataTheFinalizerKeepsIsNotDeletedByFlink() throws Exception {
        String run = "kept-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(100_000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        String job = jobId.toHexString();
        try (MiniCluster cluster = start("/" + run)) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("2 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 2);
            try (FinalizerClient intruder = FinalizerClient.connect(configuration("/unused"))) {
                long standing = latest(jobId).epoch();
                intruder.claim(new ClaimRequest(cluster(), job, standing + 1, "intruder"), Duration.ofMinutes(1));
            }
            long[] kept = new long[1];
            await("a finalization of the job ended Discarded with its data kept", Duration.ofMinutes(2), () -> {
                for (WorkflowExecutionMetadata m : executions("WorkflowType = 'FinalizeCheckpoint' AND CheckpointJob = '"
                        + job + "' AND FinalizationPhase = 'Discarded'")) {
                    FinalizeResult res = temporal.newUntypedWorkflowStub(m.getExecution().getWorkflowId())
                            .getResult(FinalizeResult.class);
                    if (res.reason().contains("its data stays")) {
                        kept[0] = Long.parseLong(m.getExecution().getWorkflowId().split("/")[4]);
                        return true;
                    }
                }
                return false;
            });
            int restores = r.restores.get();
            await("Flink failed over after the checkpoint's failure", Duration.ofMinutes(1), () -> r.restores.get() > restores);
            // Flink deletes a checkpoint it failed to store at once, on its I/O executor.
            Thread.sleep(2000);
            assertTrue(Files.exists(metadata(job, kept[0])), "checkpoint " + kept[0]
                    + " the finalizer kept is still there: " + dirs(job));
            cluster.cancelJob(jobId).get(1, TimeUnit.MINUTES);
            cluster.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
        }
    }

    /** The inputs of the job's RetireJob executions, as JSON. */
    private List<String> retireInputs(JobID jobId) {
        List<String> inputs = new ArrayList<>();
        temporal.listExecutions("WorkflowType = 'RetireJob'").forEach(m -> {
            String id = m.getExecution().getWorkflowId();
            if (id.startsWith("retire/" + cluster() + "/" + jobId.toHexString() + "/")) {
                inputs.add(temporal.fetchHistory(id).getEvents().get(0).getWorkflowExecutionStartedEventAttributes()
                        .getInput().getPayloads(0).getData().toStringUtf8());
            }
        });
        return inputs;
    }

    /**
     * Scenario 5 from scratch: resubmitted without {@code -s}, Flink's checkpoint IDs start over
     * at 1, below what the retired incarnation published; the plugin keeps them above it, so the
     * new incarnation's first checkpoint is already published and none is refused.
     */
    @Test
    void resubmitFromScratch() throws Exception {
        String run = "scratch-" + UUID.randomUUID();
        CheckingJob.Run old = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, old);
        JobID jobId = new JobID();
        try (MiniCluster first = start("/" + run)) {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("5 checkpoints published", Duration.ofMinutes(2), () -> old.published.get() >= 5);
            first.cancelJob(jobId).get(1, TimeUnit.MINUTES);
            first.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
        }
        Map<Long, Long> oldEpochs = epochsOfFinalizations(jobId);
        long oldTop = checkpointsOfFinalizations(jobId).values().stream().flatMap(List::stream)
                .mapToLong(Long::longValue).max().orElseThrow();

        String again = run + "-again";
        CheckingJob.Run fresh = new CheckingJob.Run(2000, 0);
        CheckingJob.RUNS.put(again, fresh);
        try (MiniCluster second = start("/" + run)) {
            second.submitJob(CheckingJob.graph(again, jobId, INTERVAL)).get();
            await("every element emitted by the resubmitted job, 3 checkpoints published", Duration.ofMinutes(2),
                    () -> fresh.emitted.get() >= fresh.elements && fresh.published.get() >= 3);
            fresh.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the resubmitted job finished: " + result.getSerializedThrowable());
        }
        assertNull(fresh.outputProblem(), "exactly-once output of the resubmitted job");
        Map<Long, List<Long>> byEpoch = checkpointsOfFinalizations(jobId);
        byEpoch.keySet().removeAll(oldEpochs.keySet());
        List<Long> ids = byEpoch.values().stream().flatMap(List::stream).sorted().collect(Collectors.toList());
        assertFalse(ids.isEmpty(), "the new incarnation finalized checkpoints");
        assertTrue(ids.get(0) > oldTop, "the new incarnation's checkpoints " + ids + " lie above the old ones (up to "
                + oldTop + ")");
        Map<Phase, Integer> phases = finalizations(jobId);
        assertEquals(Map.of(Phase.Published, phases.getOrDefault(Phase.Published, 0)), phases,
                "every finalization of both incarnations ended Published");
        assertEquals(0, fresh.restores.get(), "the resubmitted job never failed over");
    }

    /** The checkpoint IDs the job's finalizations were started for, by epoch. */
    private Map<Long, List<Long>> checkpointsOfFinalizations(JobID jobId) {
        Map<Long, List<Long>> byEpoch = new TreeMap<>();
        for (WorkflowExecutionMetadata m : executions("FinalizeCheckpoint", jobId)) {
            String[] id = m.getExecution().getWorkflowId().split("/");
            byEpoch.computeIfAbsent(Long.parseLong(id[3]), e -> new ArrayList<>()).add(Long.parseLong(id[4]));
        }
        return byEpoch;
    }

    private Path metadata(String job, long checkpoint) {
        return env.bucket().resolve(ItEnvironment.checkpointsKey(cluster())).resolve(job)
                .resolve("chk-" + checkpoint).resolve("_metadata");
    }

    /**
     * Scenario 7: a job that ran on Flink's own HA services (the delegate's type) switches to the plugin: the first
     * recovery with the plugin reads Flink's newest completed checkpoint from the old store,
     * the finalizer adopts it, and the job continues from it; output exact.
     */
    @Test
    void migrationFromFlinksOwnHa() throws Exception {
        String run = "migration-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        Configuration stock = configuration("/" + run);
        stock.set(HighAvailabilityOptions.HA_MODE, stockHaType());
        MiniCluster first = start(stock);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("3 checkpoints completed on Flink's own HA", Duration.ofMinutes(2), () -> r.published.get() >= 3);
        } finally {
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        int completedOnStock = r.published.get();
        assertEquals(RestorePoint.NONE, latest(jobId).state(), "the finalizer knew nothing of the job");
        assertFalse(r.emitted.get() >= r.elements, "the stock cluster stopped mid-run");
        try (MiniCluster second = start("/" + run)) {
            await("every element emitted with the plugin", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        assertNull(r.outputProblem(), "exactly-once output across the switch to the plugin");
        long adopted = executions("FinalizeCheckpoint", jobId).stream()
                .mapToLong(m -> Long.parseLong(m.getExecution().getWorkflowId().split("/")[4])).min().orElseThrow();
        assertTrue(adopted >= completedOnStock, "the first checkpoint the finalizer published, " + adopted
                + ", is the stock store's newest (at least the " + completedOnStock + "th)");
    }

    private List<WorkflowExecutionMetadata> executions(String type, JobID jobId) {
        return temporal.listExecutions("WorkflowType = '" + type + "' AND CheckpointJob = '" + jobId.toHexString() + "'")
                .collect(Collectors.toList());
    }

    /** How the job's finalizations ended, by phase (every one must have ended). */
    private Map<Phase, Integer> finalizations(JobID jobId) throws Exception {
        Map<Phase, Integer> phases = new TreeMap<>();
        for (WorkflowExecutionMetadata m : executions("FinalizeCheckpoint", jobId)) {
            FinalizeResult res = temporal.newUntypedWorkflowStub(m.getExecution().getWorkflowId())
                    .getResult(30, TimeUnit.SECONDS, FinalizeResult.class);
            phases.merge(res.phase(), 1, Integer::sum);
        }
        return phases;
    }

    private Map<Long, Long> epochsOfFinalizations(JobID jobId) {
        Map<Long, Long> byEpoch = new TreeMap<>();
        for (WorkflowExecutionMetadata m : executions("FinalizeCheckpoint", jobId)) {
            String[] id = m.getExecution().getWorkflowId().split("/");
            byEpoch.merge(Long.parseLong(id[3]), 1L, Long::sum);
        }
        return byEpoch;
    }

    private boolean retired(JobID jobId) {
        List<String> ids = new ArrayList<>();
        temporal.listExecutions("WorkflowType = 'RetireJob'").forEach(m -> ids.add(m.getExecution().getWorkflowId()));
        return ids.stream().anyMatch(id -> id.startsWith("retire/" + cluster() + "/" + jobId.toHexString() + "/"));
    }


    /**
     * Submits graph once the cluster takes it. Flink 2.x cleans a canceled job's application record
     * up asynchronously, after the job's result is known: a MiniCluster closed before that cleanup
     * ended leaves the record for the next cluster's dispatcher, which cleans it up after its start,
     * and until it has, a submission under the same job ID is refused as a duplicate. The record is
     * in Flink's own application store, which the plugin forwards to Flink's HA services unchanged.
     */
    private static void submitOnceFree(MiniCluster cluster, JobGraph graph) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try {
                cluster.submitJob(graph).get();
                return;
            } catch (ExecutionException e) {
                if (!refusedAsDuplicate(e) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    private static boolean refusedAsDuplicate(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().startsWith("Duplicate")) {
                return true;
            }
        }
        return false;
    }
}
