package io.github.checkpointfinalizer.flink.cluster;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The real-cluster test's job (flink/cluster): the keyed counter and committing sink of the
 * MiniCluster tests' CheckingJob, for a job that runs in a TaskManager process, so its controls
 * and committed output are files the Go harness reads. A source emits (n mod 4, n) for n = 0, 1,
 * ... with its offset in operator state; a keyed counter (keyed state) maps each to (key, count);
 * a sink stages each checkpoint's records in operator state and commits them when Flink notifies
 * that checkpoint complete (or a restore brings them back), as a two-phase-commit sink does.
 * Committed output holds every (key, count) exactly once unless a restore went to another
 * checkpoint than the one whose records were committed.
 *
 * <p>Arguments: {@code --dir DIR --interval MILLIS [--retention RETAIN_ON_CANCELLATION|...]
 * [--state-backend hashmap|rocksdb-incremental] [--restart-attempts N]}; the retention, the state
 * backend and the restart strategy (fixed delay, 1000 attempts by default) are the job's own
 * settings, in its code, as a user sets them. Files under DIR:
 *
 * <ul>
 *   <li>{@code committed/<checkpoint ID>}: the records that checkpoint committed, a "key count"
 *       line each; a commit again (after a restore) writes the same content.
 *   <li>{@code emitted}: how many elements the source emitted in all, written when it ends.
 *   <li>{@code release}, by the harness: the source ends once it exists, so the job finishes.
 *   <li>{@code hold}, by the harness: while it exists the sink's snapshot waits, so no checkpoint
 *       completes (a cancel "before the next checkpoint" is then certain, not a race).
 * </ul>
 */
public final class FileCheckingJob {
    static final int KEYS = 4;

    private FileCheckingJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> flags = flags(args);
        String dir = required(flags, "dir");
        Configuration conf = new Configuration();
        // A failover of the cluster is no reason for the job to fail for good, unless a scenario
        // bounds its restarts.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS,
                Integer.parseInt(flags.getOrDefault("restart-attempts", "1000")));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        if (flags.containsKey("retention")) {
            conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.valueOf(flags.get("retention")));
        }
        if ("rocksdb-incremental".equals(flags.get("state-backend"))) {
            conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        } else if (flags.containsKey("state-backend") && !"hashmap".equals(flags.get("state-backend"))) {
            throw new IllegalArgumentException("--state-backend hashmap or rocksdb-incremental, not " + flags.get("state-backend"));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(Long.parseLong(required(flags, "interval")));
        env.setParallelism(2);
        env.addSource(new CountingSource(dir)).setParallelism(1).uid("source")
                .keyBy(e -> e.f0)
                .map(new KeyedCounter()).uid("counter")
                .addSink(new CommittingSink(dir)).setParallelism(1).uid("sink");
        env.execute("file-checking-job");
    }

    private static Map<String, String> flags(String[] args) {
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            flags.put(args[i].substring(2), args[i + 1]);
        }
        return flags;
    }

    private static String required(Map<String, String> flags, String name) {
        String v = flags.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return v;
    }

    /** Writes content to path atomically: a reader sees the old file or the whole new one. */
    static void writeAtomically(Path path, String content) throws IOException {
        Files.createDirectories(path.getParent());
        Path tmp = Files.createTempFile(path.getParent(), path.getFileName().toString(), ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Emits (n mod KEYS, n) until the harness releases it, its offset in operator state. */
    static final class CountingSource extends LegacyFunctions.Source<Tuple2<Integer, Long>> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private final String dir;
        private volatile boolean running = true;
        private long next;
        private transient ListState<Long> offset;

        CountingSource(String dir) {
            this.dir = dir;
        }

        @Override
        public void run(SourceContext<Tuple2<Integer, Long>> ctx) throws Exception {
            Path release = Path.of(dir, "release");
            while (running && !Files.exists(release)) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(Tuple2.of((int) (next % KEYS), next));
                    next++;
                }
                Thread.sleep(2);
            }
            if (running) {
                // Under the lock: the count is the offset no later snapshot moves.
                synchronized (ctx.getCheckpointLock()) {
                    writeAtomically(Path.of(dir, "emitted"), Long.toString(next));
                }
            }
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            offset.update(List.of(next));
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            offset = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("offset", Long.class));
            for (Long n : offset.get()) {
                next = n;
            }
        }
    }

    /** Counts each key's elements in keyed state. */
    static final class KeyedCounter extends RichMapFunction<Tuple2<Integer, Long>, Tuple2<Integer, Long>> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
        }

        @Override
        public Tuple2<Integer, Long> map(Tuple2<Integer, Long> e) throws Exception {
            long c = count.value() == null ? 1 : count.value() + 1;
            count.update(c);
            return Tuple2.of(e.f0, c);
        }
    }

    /**
     * Stages the records of each checkpoint in operator state and commits them to a file of that
     * checkpoint when it is notified complete, or when a restore brings them back (they belong to
     * the restored checkpoint, which completed).
     */
    static final class CommittingSink extends LegacyFunctions.Sink<Tuple2<Integer, Long>>
            implements CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final String dir;
        private transient List<Tuple2<Integer, Long>> pending;
        private transient TreeMap<Long, List<Tuple2<Integer, Long>>> staged;
        private transient ListState<Tuple2<Long, List<Tuple2<Integer, Long>>>> state;

        CommittingSink(String dir) {
            this.dir = dir;
        }

        @Override
        public void invoke(Tuple2<Integer, Long> value, Context context) {
            pending.add(value);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            Path hold = Path.of(dir, "hold");
            while (Files.exists(hold)) {
                Thread.sleep(50);
            }
            staged.put(context.getCheckpointId(), pending);
            pending = new ArrayList<>();
            List<Tuple2<Long, List<Tuple2<Integer, Long>>>> all = new ArrayList<>();
            staged.forEach((id, records) -> all.add(Tuple2.of(id, records)));
            state.update(all);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws IOException {
            commitUpTo(checkpointId);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            pending = new ArrayList<>();
            staged = new TreeMap<>();
            state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("staged",
                    TypeInformation.of(new TypeHint<Tuple2<Long, List<Tuple2<Integer, Long>>>>() {})));
            for (Tuple2<Long, List<Tuple2<Integer, Long>>> t : state.get()) {
                staged.put(t.f0, new ArrayList<>(t.f1));
            }
            if (context.isRestored()) {
                commitUpTo(Long.MAX_VALUE);
            }
        }

        private void commitUpTo(long checkpointId) throws IOException {
            while (!staged.isEmpty() && staged.firstKey() <= checkpointId) {
                Map.Entry<Long, List<Tuple2<Integer, Long>>> batch = staged.pollFirstEntry();
                StringBuilder lines = new StringBuilder();
                for (Tuple2<Integer, Long> r : batch.getValue()) {
                    lines.append(r.f0).append(' ').append(r.f1).append('\n');
                }
                writeAtomically(Path.of(dir, "committed", Long.toString(batch.getKey())), lines.toString());
            }
        }
    }
}
