package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 6: incremental RocksDB checkpoints over several subsumptions and a recovery. The
 * shared files are Flink's to delete (its SharedStateRegistry, driven by the plugin's retained
 * checkpoints); the checkpoints' own directories are the finalizer's. Once retention settles,
 * every file a referenced checkpoint uses exists, and no shared file remains that none uses.
 */
class IncrementalRocksDbITCase extends ItBase {

    interface References {
        List<Long> of(String job) throws Exception;
    }

    /** One world's shared files once retention settled after a recovery. */
    record Outcome(String world, int referenced, int used, int missing, int shared, int leftByCrash, int unreferenced,
            String output) {
        String row() {
            return "| " + world + " | " + referenced + " | " + used + " | " + missing + " | " + shared + " | "
                    + leftByCrash + " | " + unreferenced + " | " + output + " |";
        }
    }

    @Test
    void sharedFilesFollowTheFinalizersRetention() throws Exception {
        FaultWorld harness = FaultWorld.fromEnv();
        String root = "/incremental-" + UUID.randomUUID();
        Outcome ours = run("plugin", env.flinkConfiguration(root + "-plugin", RETAINED), env.cluster(),
                job -> harness.references(FaultWorld.MAIN_STORE, job));
        String table = "| world | references | shared files they use | of those missing | shared files | unreferenced, written before the crash | unreferenced for good, written after | output |\n"
                + "|---|---|---|---|---|---|---|---|\n" + ours.row() + "\n";
        Files.writeString(Path.of("target", "incremental.md"), table);
        System.out.println(table);

        assertTrue(ours.used() > 0, "the referenced checkpoints use shared files");
        assertEquals(0, ours.missing(), "files the plugin's referenced checkpoints use and that are gone");
        assertEquals(0, ours.unreferenced(), "shared files written after the recovery that no referenced checkpoint uses");
        assertEquals("exact", ours.output());
    }

    private Outcome run(String world, Configuration conf, String cluster, References refs) throws Exception {
        String run = "incremental-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(5000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        String job = jobId.toHexString();
        Configuration state = new Configuration();
        state.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        state.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        // Every state file a file, none inlined into _metadata: the shared directory fills.
        state.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);

        MiniCluster first = start(conf);
        try {
            first.submitJob(CheckingJob.graph(run, jobId, INTERVAL, state)).get();
            await(world + ": 6 incremental checkpoints completed", Duration.ofMinutes(2), () -> r.published.get() >= 6);
        } finally {
            first.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        int completedBefore = r.published.get();
        long crashed = System.currentTimeMillis();
        Outcome outcome;
        try (MiniCluster second = start(conf)) {
            await(world + ": recovered, every element emitted and 6 more checkpoints completed", Duration.ofMinutes(2),
                    () -> r.emitted.get() >= r.elements && r.published.get() >= completedBefore + 6);
            List<Long> ids = refs.of(job);
            Set<Path> used = used(cluster, job, ids, refs);
            List<Path> missing = used.stream().filter(p -> !Files.exists(p)).collect(Collectors.toList());
            missing.removeIf(p -> !usedNow(cluster, job, refs).contains(p)); // subsumed meanwhile

            // A shared file nobody references twice, two seconds apart, is left behind for good
            // (one an in-flight checkpoint uploads is referenced within a checkpoint interval).
            Set<Path> unused = shared(cluster, job);
            int shared = unused.size();
            unused.removeAll(used);
            Thread.sleep(2000);
            Set<Path> stillUnused = shared(cluster, job);
            stillUnused.removeAll(usedNow(cluster, job, refs));
            unused.retainAll(stillUnused);
            // What the crashed JobMaster was writing (its checkpoint in flight) nobody will
            // reference; Flink's own stores leave it too.
            int leftByCrash = 0;
            for (Iterator<Path> it = unused.iterator(); it.hasNext(); ) {
                if (Files.getLastModifiedTime(it.next()).toMillis() <= crashed) {
                    it.remove();
                    leftByCrash++;
                }
            }
            r.released = true;
            JobResult result = second.requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), world + ": the job finished: " + result.getSerializedThrowable());
            outcome = new Outcome(world, ids.size(), used.size(), missing.size(), shared, leftByCrash, unused.size(), null);
        }
        String problem = r.outputProblem();
        return new Outcome(outcome.world(), outcome.referenced(), outcome.used(), outcome.missing(), outcome.shared(),
                outcome.leftByCrash(), outcome.unreferenced(), problem == null ? "exact" : problem.substring(0, Math.min(120, problem.length())));
    }

    private Set<Path> usedNow(String cluster, String job, References refs) {
        try {
            return used(cluster, job, refs.of(job), refs);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The shared files the checkpoints use, read from their _metadata with Flink's own loader. A
     * checkpoint whose metadata is gone must have been subsumed in between: it is skipped only if
     * the store no longer references it.
     */
    private Set<Path> used(String cluster, String job, List<Long> checkpoints, References refs) throws Exception {
        Set<Path> files = new TreeSet<>();
        for (long id : checkpoints) {
            Path dir = env.bucket().resolve(ItEnvironment.checkpointsKey(cluster)).resolve(job).resolve("chk-" + id);
            CheckpointMetadata md;
            try (DataInputStream in = new DataInputStream(Files.newInputStream(dir.resolve("_metadata")))) {
                md = Checkpoints.loadCheckpointMetadata(in, getClass().getClassLoader(), dir.toString());
            } catch (java.nio.file.NoSuchFileException gone) {
                if (refs.of(job).contains(id)) {
                    throw new AssertionError("checkpoint " + id + " is referenced but its metadata is gone", gone);
                }
                continue;
            }
            for (OperatorState op : md.getOperatorStates()) {
                for (OperatorSubtaskState st : op.getStates()) {
                    for (KeyedStateHandle k : st.getManagedKeyedState()) {
                        if (k instanceof IncrementalRemoteKeyedStateHandle inc) {
                            for (HandleAndLocalPath h : inc.getSharedState()) {
                                files.add(path(h.getHandle()));
                            }
                        }
                    }
                }
            }
        }
        return files;
    }

    private static Path path(StreamStateHandle h) {
        if (!(h instanceof FileStateHandle f)) {
            throw new IllegalStateException("a shared state handle that is not a file: " + h);
        }
        return Path.of(f.getFilePath().toUri().getPath());
    }

    /** The files in the job's shared directory now. */
    private Set<Path> shared(String cluster, String job) throws Exception {
        Path dir = env.bucket().resolve(ItEnvironment.checkpointsKey(cluster)).resolve(job).resolve("shared");
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
