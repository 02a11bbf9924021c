package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

import java.io.DataInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
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
        Files.writeString(reportFile("incremental.md"), table);
        System.out.println(table);

        assertTrue(ours.used() > 0, "the referenced checkpoints use shared files");
        assertEquals(0, ours.missing(), "files the plugin's referenced checkpoints use and that are gone");
        assertEquals(0, ours.unreferenced(), "shared files written after the recovery that no referenced checkpoint uses");
        assertEquals("exact", ours.output());
    }

    /**
     * Restore modes are registered as stock Flink registers them. A job restored with {@code -s}
     * in LEGACY mode from another job's retained incremental checkpoint shares that checkpoint's
     * files, which it does not own: stock Flink never deletes them, also after a JobManager
     * failover (its SharedStateRegistry keeps whatever the recovered checkpoints created under
     * LEGACY). Here the job fails over once its own checkpoints have subsumed the restored one,
     * then RocksDB compacts the restored files away: none of them may be gone.
     */
    @Test
    void legacyRestoreKeepsTheRestoredFilesAcrossAFailover() throws Exception {
        String run = "legacy-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(1_000_000, 0);
        CheckingJob.RUNS.put(run, r);
        Configuration conf = env.flinkConfiguration("/" + run, RETAINED);
        Configuration state = incremental();
        // Until the failover RocksDB keeps every file (the recovered checkpoints use the restored
        // ones), after it it compacts them away (nothing uses them any more).
        state.set(RocksDBOptions.OPTIONS_FACTORY, Compaction.class.getName());
        Compaction.on = false;
        state.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        JobID first = new JobID();
        try (MiniCluster cluster = start(conf)) {
            cluster.submitJob(CheckingJob.graph(run, first, INTERVAL, state)).get();
            await("the first job: 6 incremental checkpoints completed", Duration.ofMinutes(2), () -> r.published.get() >= 6);
            cluster.cancelJob(first).get(1, TimeUnit.MINUTES);
            cluster.requestJobResult(first).get(2, TimeUnit.MINUTES);
        }
        String job = first.toHexString();
        Path retainedDir = dirs(job).stream().map(n -> checkpointDir(cluster(), job, n)).filter(d -> Files.exists(d.resolve("_metadata")))
                .reduce((older, newer) -> newer).orElseThrow();
        Set<Path> restored = sharedFiles(retainedDir);
        assertTrue(restored.size() > 0, "the retained checkpoint " + retainedDir + " uses shared files");

        JobID second = new JobID();
        JobGraph legacy = CheckingJob.graph(run, second, INTERVAL, state);
        legacy.setSavepointRestoreSettings(FlinkApis.legacyRestore(retainedDir.toUri().toString()));
        int before = r.published.get();
        MiniCluster cluster = start(conf);
        try {
            cluster.submitJob(legacy).get();
            await("the LEGACY restore subsumed by the job's own checkpoints", Duration.ofMinutes(2),
                    () -> r.published.get() >= before + RETAINED);
        } finally {
            cluster.closeAsyncWithoutCleaningHighAvailabilityData().get(1, TimeUnit.MINUTES);
        }
        int restores = r.restores.get();
        int atFailover = r.published.get();
        Compaction.on = true;
        List<Path> missing;
        FaultWorld harness = FaultWorld.fromEnv();
        References refs = id -> harness.references(FaultWorld.MAIN_STORE, id);
        String legacyJob = second.toHexString();
        assertTrue(usedNow(env.cluster(), legacyJob, refs).stream().anyMatch(restored::contains),
                "the checkpoints the failover recovers use files of the checkpoint restored in LEGACY mode");
        try (MiniCluster recovered = start(conf)) {
            await("recovered after the failover, 3 more checkpoints completed", Duration.ofMinutes(2),
                    () -> r.restores.get() > restores && r.published.get() >= atFailover + 3);
            await("RocksDB compacted the restored files away: no referenced checkpoint uses them", Duration.ofMinutes(2),
                    () -> usedNow(env.cluster(), legacyJob, refs).stream().noneMatch(restored::contains));
            int compacted = r.published.get();
            // Flink's registry deletes what no kept checkpoint uses on its I/O executor.
            await("3 more checkpoints completed", Duration.ofMinutes(1), () -> r.published.get() >= compacted + 3);
            Thread.sleep(2000);
            missing = restored.stream().filter(p -> !Files.exists(p)).collect(Collectors.toList());
            recovered.cancelJob(second).get(1, TimeUnit.MINUTES);
            recovered.requestJobResult(second).get(2, TimeUnit.MINUTES);
        }
        assertEquals(List.of(), missing, "files of " + retainedDir + ", restored in LEGACY mode, deleted");
    }

    /**
     * RocksDB's compaction as the test switches it, read whenever a state backend is built (a
     * restore builds one): off, every file stays; on, every two level-0 files compact.
     */
    public static final class Compaction implements RocksDBOptionsFactory {
        private static final long serialVersionUID = 1L;
        static volatile boolean on = true;

        @Override
        public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
            return current;
        }

        @Override
        public ColumnFamilyOptions createColumnOptions(ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
            return current.setDisableAutoCompactions(!on).setLevel0FileNumCompactionTrigger(2);
        }
    }

    /** A job configuration of incremental RocksDB, every state file a file of the shared directory. */
    private static Configuration incremental() {
        Configuration state = new Configuration();
        state.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        state.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        // Every state file a file, none inlined into _metadata: the shared directory fills.
        state.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        return state;
    }

    private Outcome run(String world, Configuration conf, String cluster, References refs) throws Exception {
        String run = "incremental-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(5000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        String job = jobId.toHexString();
        Configuration state = incremental();

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
            try {
                files.addAll(sharedFiles(checkpointDir(cluster, job, id)));
            } catch (java.nio.file.NoSuchFileException gone) {
                if (refs.of(job).contains(id)) {
                    throw new AssertionError("checkpoint " + id + " is referenced but its metadata is gone", gone);
                }
            }
        }
        return files;
    }

    private Path checkpointDir(String cluster, String job, long checkpoint) {
        return env.bucket().resolve(ItEnvironment.checkpointsKey(cluster)).resolve(job).resolve("chk-" + checkpoint);
    }

    /** The shared files the checkpoint in dir uses, read from its _metadata with Flink's own loader. */
    private Set<Path> sharedFiles(Path dir) throws Exception {
        CheckpointMetadata md;
        try (DataInputStream in = new DataInputStream(Files.newInputStream(dir.resolve("_metadata")))) {
            md = Checkpoints.loadCheckpointMetadata(in, getClass().getClassLoader(), dir.toString());
        }
        Set<Path> files = new TreeSet<>();
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
