package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 4, the seed's failure side by side: the same job under the same faults, once with the
 * plugin (the faults between the worker and ZooKeeper) and once on Flink's stock ZooKeeper HA
 * (the same faults between Flink and ZooKeeper). Each fault round drops the reply of a write
 * (the write lands, the writer cannot know) and then partitions the writer from ZooKeeper for
 * longer than the plugin waits for a finalization, so a checkpoint's outcome stays unknown past
 * {@code finalizer.publish-wait} and Flink fails over while it is unresolved. The report goes to
 * target/side-by-side.md; only the plugin's row is asserted.
 */
class SideBySideITCase extends ItBase {
    private static final int ROUNDS = 3;
    private static final Duration PARTITION = Duration.ofSeconds(3);

    /** What one world came to once the faults healed. */
    record Outcome(String world, int failovers, int completed, String output, String settled, int referenced,
            int dangling, int leaked, int stuck, String manual) {
        String row() {
            return "| " + world + " | " + failovers + " | " + completed + " | " + output + " | " + settled + " | "
                    + referenced + " | " + dangling + " | " + leaked + " | " + stuck + " | " + manual + " |";
        }
    }

    @Test
    void ambiguousWritesSideBySide() throws Exception {
        FaultWorld faults = FaultWorld.fromEnv();
        String root = "/side-by-side-" + UUID.randomUUID();

        Configuration plugin = env.flinkConfiguration(root + "-plugin", RETAINED, faults.cluster(), faults.taskQueue());
        plugin.set(FinalizerOptions.PUBLISH_WAIT, Duration.ofSeconds(2));
        Outcome ours = run("plugin (faults worker-ZooKeeper)", plugin, faults.cluster(), faults, FaultWorld.WORKER,
                job -> faults.references(FaultWorld.FAULTED_STORE, job.toHexString()));

        String stockCluster = "c3";
        Configuration stock = env.flinkConfiguration(root + "-stock", RETAINED, stockCluster, "unused");
        stock.set(HighAvailabilityOptions.HA_MODE, "zookeeper");
        stock.set(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM, faults.flinkZooKeeperProxy());
        Configuration stockDirect = new Configuration(stock);
        stockDirect.set(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM, env.zookeeper());
        Outcome theirs = run("stock ZooKeeper HA (faults Flink-ZooKeeper)", stock, stockCluster, faults, FaultWorld.FLINK,
                job -> flinksReferences(stockDirect, job));

        String table = "| world | failovers | checkpoints completed | output | retention settled after catching up | references | dangling | leaked | stuck | manual steps |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n" + ours.row() + "\n" + theirs.row() + "\n";
        Files.writeString(reportFile("side-by-side.md"), table);
        System.out.println(table);

        assertEquals("exact", ours.output(), "the plugin's output");
        assertEquals(0, ours.dangling(), "references to missing state with the plugin");
        assertEquals(0, ours.leaked(), "checkpoint directories nothing references with the plugin");
        assertEquals(0, ours.stuck(), "finalizations still Verifying once the faults healed");
        assertEquals("none", ours.manual());
        assertTrue(ours.failovers() > 0, "the faults made Flink fail over with the plugin too");
    }

    /**
     * What the plugin adds to a checkpoint's completion: from the sink's snapshot to Flink's
     * notification, the same job on the plugin and on stock ZooKeeper HA, no faults. A report
     * (target/completion-latency.md), not an assertion: timings are no test's verdict.
     */
    @Test
    void completionLatencySideBySide() throws Exception {
        String root = "/latency-" + UUID.randomUUID();
        Configuration plugin = env.flinkConfiguration(root + "-plugin", RETAINED);
        Configuration stock = env.flinkConfiguration(root + "-stock", RETAINED, "c3", "unused");
        stock.set(HighAvailabilityOptions.HA_MODE, "zookeeper");
        StringBuilder report = new StringBuilder("| world | checkpoints | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n");
        for (Object[] world : new Object[][] {{"plugin", plugin}, {"stock ZooKeeper HA", stock}}) {
            String run = "latency-" + UUID.randomUUID();
            CheckingJob.Run r = new CheckingJob.Run(Long.MAX_VALUE, 0);
            CheckingJob.RUNS.put(run, r);
            JobID jobId = new JobID();
            try (MiniCluster cluster = start((Configuration) world[1])) {
                cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
                await(world[0] + ": 60 checkpoints completed", Duration.ofMinutes(3), () -> r.completionMillis.size() >= 60);
                cluster.cancelJob(jobId).get();
            }
            List<Long> ms = new ArrayList<>(r.completionMillis).subList(10, 60); // the first ones warm up
            ms.sort(Long::compare);
            report.append("| ").append(world[0]).append(" | ").append(ms.size()).append(" | ").append(ms.get(ms.size() / 2))
                    .append(" | ").append(ms.get((int) Math.ceil(ms.size() * 0.99) - 1)).append(" | ")
                    .append(ms.get(ms.size() - 1)).append(" |\n");
        }
        Files.writeString(reportFile("completion-latency.md"), report);
        System.out.println(report);
    }

    interface References {
        List<Long> of(JobID job) throws Exception;
    }

    private Outcome run(String world, Configuration conf, String cluster, FaultWorld faults, String proxy, References refs)
            throws Exception {
        String run = "side-by-side-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(6000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        String job = jobId.toHexString();
        String manual = "none";
        String output;
        int dangling = 0;
        int leaked = 0;
        int stuck = 0;
        String settled = "-";
        List<Long> referenced = List.of();
        MiniCluster cluster0 = start(conf);
        try {
            cluster0.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await(world + ": 3 checkpoints completed", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            for (int i = 0; i < ROUNDS; i++) {
                faults.fault(proxy, "drop-write-reply");
                Thread.sleep(400);
                faults.fault(proxy, "partition");
                Thread.sleep(PARTITION.toMillis());
                faults.fault(proxy, "heal");
                Thread.sleep(1500);
            }
            // What happens next is the world's outcome, not the test's failure: a job that does
            // not recover is reported as needing a human.
            if (!within(Duration.ofMinutes(3), () -> r.emitted.get() >= r.elements)) {
                manual = "job did not recover within 3 min of the faults healing";
            } else {
                long healed = System.nanoTime(); // and the job caught up
                // Retention settles: at most N references and the newest; checkpoints go on meanwhile.
                settled = "more than 90 s";
                while (System.nanoTime() - healed < TimeUnit.SECONDS.toNanos(90)) {
                    if (refs.of(jobId).size() <= RETAINED + 1) {
                        settled = (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed) / 100) / 10.0 + " s";
                        break;
                    }
                    Thread.sleep(200);
                }
                referenced = refs.of(jobId);
                // Dangling: still referenced after its metadata was seen missing (a subsumed
                // checkpoint loses its reference before its files).
                List<Long> missing = new ArrayList<>(referenced);
                missing.removeIf(id -> Files.exists(env.bucket().resolve(ItEnvironment.checkpointsKey(cluster))
                        .resolve(job).resolve("chk-" + id).resolve("_metadata")));
                missing.retainAll(refs.of(jobId));
                dangling = missing.size();
                leaked = leaked(cluster, job, referenced);
                // A verify that failed through the partitions backs off (up to minutes): stuck is
                // what is still Verifying well after the faults healed, not at this moment.
                String verifying = "WorkflowType = 'FinalizeCheckpoint' AND CheckpointJob = '" + job
                        + "' AND FinalizationPhase = 'Verifying' AND ExecutionStatus = 'Running'";
                within(Duration.ofMinutes(2), () -> executions(verifying).isEmpty());
                stuck = executions(verifying).size();
                r.released = true;
                try {
                    JobResult result = cluster0.requestJobResult(jobId).get(3, TimeUnit.MINUTES);
                    if (!result.isSuccess()) {
                        manual = "job failed: " + result.getSerializedThrowable().map(Throwable::getMessage).orElse("?");
                    }
                } catch (TimeoutException e) {
                    manual = "job did not finish within 3 min of its source ending";
                }
            }
        } finally {
            try {
                cluster0.closeAsync().get(2, TimeUnit.MINUTES);
            } catch (TimeoutException e) {
                manual = manual + "; the cluster did not shut down within 2 min";
            }
        }
        String problem = r.outputProblem();
        output = problem == null ? "exact" : problem.substring(0, Math.min(120, problem.length()));
        return new Outcome(world, r.restores.get(), r.published.get(), output, settled, referenced.size(), dangling, leaked,
                stuck, manual);
    }

    /**
     * Directories below the newest reference that nothing references and that stay so: a
     * subsumed checkpoint's directory awaiting its deletion goes within a second, a leaked one
     * never does. Directories above the newest reference are checkpoints in flight.
     */
    private int leaked(String cluster, String job, List<Long> referenced) throws Exception {
        long newest = referenced.stream().mapToLong(Long::longValue).max().orElse(Long.MAX_VALUE);
        List<Long> first = new ArrayList<>(env.checkpointDirectories(cluster, job));
        first.removeIf(id -> id >= newest || referenced.contains(id));
        Thread.sleep(2000);
        List<Long> later = env.checkpointDirectories(cluster, job);
        first.retainAll(later);
        return first.size();
    }
}
