package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our outage is a slow checkpoint, never a stuck or dead JobManager: the worker (paused, as a
 * crashed or partitioned worker looks to Temporal) or Temporal (black-holed between Flink and
 * Temporal) away for longer than every bound of the plugin, while the job checkpoints and while
 * it fails over. Throughout, the JobMaster answers (its job status within seconds) and the job,
 * under a bounded restart strategy, never fails; once we are back it checkpoints again and
 * recovers by itself, output exact. The report (target/outage.md) gives what each run measured.
 */
class OutageITCase extends ItBase {
    /** Longer than the plugin's call timeout below, and than several restart delays. */
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final List<String> REPORT = new ArrayList<>();
    private static FaultWorld faults;

    @BeforeAll
    static void faults() {
        faults = FaultWorld.fromEnv();
    }

    @AfterAll
    static void report() throws Exception {
        String table = "| scenario | job status answers (slowest) | restarts | checkpoints before / after | output |\n"
                + "|---|---|---|---|---|\n" + String.join("\n", REPORT) + "\n";
        Files.writeString(reportFile("outage.md"), table);
        System.out.println(table);
    }

    @Test
    void workerAwayWhileCheckpointing() throws Exception {
        whileCheckpointing("worker away while checkpointing", false, () -> faults.worker("pause"), () -> faults.worker("resume"));
    }

    @Test
    void temporalAwayWhileCheckpointing() throws Exception {
        whileCheckpointing("Temporal away while checkpointing", true,
                () -> faults.temporal("partition"), () -> faults.temporal("heal"));
    }

    /**
     * A JobManager failover while the worker is away: the new leader's JobMaster waits for its
     * claim, off the main thread, while the job is INITIALIZING; it never fails the Dispatcher.
     */
    @Test
    void workerAwayDuringFailover() throws Exception {
        String run = "outage-failover-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(4000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        Configuration conf = configuration(run, false);
        MiniCluster first = start(conf);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL, boundedRestarts())).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            faults.worker("pause");
        } finally {
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        int before = r.published.get();
        Duration slowest;
        try (MiniCluster second = start(conf)) {
            try {
                await("the second cluster recovered the job from Flink's job graph store", Duration.ofMinutes(1),
                        () -> second.getJobStatus(jobId).handle((s, e) -> e == null).join());
                slowest = answersThroughout(second, jobId, OUTAGE);
            } finally {
                faults.worker("resume");
            }
            finish(second, r, jobId);
        }
        REPORT.add(row("worker away during a JobManager failover", slowest, r, before));
        assertNull(r.outputProblem(), "exactly-once output across the failover and the outage");
    }

    private void whileCheckpointing(String scenario, boolean viaTemporalProxy, Step away, Step back) throws Exception {
        String run = "outage-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(6000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        int before;
        Duration slowest;
        try (MiniCluster cluster = start(configuration(run, viaTemporalProxy))) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL, boundedRestarts())).get();
            await("3 checkpoints published", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            before = r.published.get();
            int restores = r.restores.get();
            away.run();
            try {
                slowest = answersThroughout(cluster, jobId, OUTAGE);
                // The checkpoint in flight failed within the outage, as against an unavailable
                // checkpoint storage: its wait, the workflow start included, is bounded.
                assertTrue(r.restores.get() > restores, "the checkpoint in flight failed during the outage");
            } finally {
                back.run();
            }
            await("checkpoints published again once we are back", Duration.ofMinutes(3),
                    () -> r.published.get() >= before + 3);
            finish(cluster, r, jobId);
        }
        REPORT.add(row(scenario, slowest, r, before));
        assertNull(r.outputProblem(), "exactly-once output across the outage");
    }

    /**
     * Asks the job's status every second for the whole outage: each answer must come within
     * {@link #ANSWER} (the JobMaster's main thread is free) and never say FAILED.
     *
     * @return the slowest answer, for the report
     */
    private static Duration answersThroughout(MiniCluster cluster, JobID jobId, Duration outage) throws Exception {
        Duration slowest = Duration.ZERO;
        for (long end = System.nanoTime() + outage.toNanos(); System.nanoTime() < end; ) {
            long asked = System.nanoTime();
            JobStatus status = cluster.getJobStatus(jobId).get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - asked);
            slowest = took.compareTo(slowest) > 0 ? took : slowest;
            assertTrue(status == JobStatus.RUNNING || status == JobStatus.RESTARTING || status == JobStatus.INITIALIZING
                    || status == JobStatus.CREATED, "the job is not failed by our outage: " + status);
            Thread.sleep(1000);
        }
        return slowest;
    }

    private static void finish(MiniCluster cluster, CheckingJob.Run r, JobID jobId) throws Exception {
        await("every element emitted", Duration.ofMinutes(3), () -> r.emitted.get() >= r.elements);
        r.released = true;
        JobResult result = cluster.requestJobResult(jobId).get(3, TimeUnit.MINUTES);
        assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
    }

    /** The faulted worker's cluster; Temporal reached directly or through the harness's proxy. */
    private Configuration configuration(String run, boolean viaTemporalProxy) {
        Configuration c = env.flinkConfiguration("/" + run, RETAINED, faults.cluster(), faults.taskQueue());
        c.set(FinalizerOptions.PUBLISH_WAIT, Duration.ofSeconds(2));
        // Shorter than the outage: every try the plugin makes runs out while we are away.
        c.set(FinalizerOptions.CALL_TIMEOUT, Duration.ofSeconds(5));
        if (viaTemporalProxy) {
            c.set(FinalizerOptions.TEMPORAL_ADDRESS, faults.temporalProxy());
        }
        return c;
    }

    /** A restart strategy a user would set: three attempts, then the job fails. */
    private static Configuration boundedRestarts() {
        Configuration job = new Configuration();
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        return job;
    }

    private static String row(String scenario, Duration slowest, CheckingJob.Run r, int before) {
        return "| " + scenario + " | " + slowest.toMillis() + " ms | " + r.restores.get() + " | " + before + " / "
                + r.published.get() + " | " + (r.outputProblem() == null ? "exact" : r.outputProblem()) + " |";
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }
}
