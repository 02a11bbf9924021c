package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stateful streaming job whose output the test can check for exactly-once: a source of
 * {@code elements} numbers with its offset in operator state, a keyed counter (keyed state), and
 * a sink that commits a checkpoint's records only when Flink notifies that checkpoint complete,
 * as a two-phase-commit sink does. Committed output holds every (key, count) exactly once unless
 * a restore went to another checkpoint than the one whose records were committed.
 *
 * <p>The MiniClusters run in the test's JVM: a run's controls and committed output live in
 * {@link #RUNS}, by run name.
 */
final class CheckingJob {
    static final int KEYS = 4;
    static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

    /** One run's controls and what it committed. */
    static final class Run {
        final long elements;
        /** The source ends once it emitted everything and this is set. */
        volatile boolean released;
        /** While set, the sink's snapshots wait: no checkpoint completes (a cancel interrupts them). */
        volatile boolean holdSnapshots;
        /** Throw once in the counter after this many published checkpoints (0: never). */
        final int failAfterPublished;
        final AtomicBoolean failed = new AtomicBoolean();
        final AtomicInteger published = new AtomicInteger();
        final AtomicInteger emitted = new AtomicInteger();
        /** How often the source was restored (each failover restores it once). */
        final AtomicInteger restores = new AtomicInteger();
        /** From the sink's snapshot of a checkpoint to Flink's notification that it completed, in ms. */
        final List<Long> completionMillis = java.util.Collections.synchronizedList(new ArrayList<>());
        /** Committed records by the checkpoint that committed them (a commit is idempotent). */
        final Map<Long, List<Tuple2<Integer, Long>>> committed = new ConcurrentHashMap<>();

        Run(long elements, int failAfterPublished) {
            this.elements = elements;
            this.failAfterPublished = failAfterPublished;
        }

        /** Every committed record, each occurrence. */
        List<Tuple2<Integer, Long>> output() {
            List<Tuple2<Integer, Long>> all = new ArrayList<>();
            committed.values().forEach(all::addAll);
            return all;
        }

        /** What is wrong with the committed output, or null when it is exact. */
        String outputProblem() {
            Map<Tuple2<Integer, Long>, Integer> seen = new HashMap<>();
            for (Tuple2<Integer, Long> r : output()) {
                seen.merge(r, 1, Integer::sum);
            }
            List<String> problems = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                long n = elements / KEYS + (k < elements % KEYS ? 1 : 0);
                for (long c = 1; c <= n; c++) {
                    int times = seen.getOrDefault(Tuple2.of(k, c), 0);
                    if (times != 1) {
                        problems.add("key " + k + " count " + c + " committed " + times + " times");
                    }
                }
            }
            long expected = elements;
            if (seen.values().stream().mapToLong(Integer::longValue).sum() != expected || !problems.isEmpty()) {
                return output().size() + " records committed for " + expected + " expected; "
                        + problems.subList(0, Math.min(10, problems.size()));
            }
            return null;
        }
    }

    private CheckingJob() {}

    /** The job graph of a run, with a fixed job ID (a recovering cluster finds it by that ID). */
    static JobGraph graph(String run, JobID jobId, Duration checkpointInterval) {
        return graph(run, jobId, checkpointInterval, new Configuration());
    }

    /** The same with the job's own configuration (its state backend, for one). */
    static JobGraph graph(String run, JobID jobId, Duration checkpointInterval, Configuration job) {
        Configuration conf = new Configuration(job);
        if (!job.contains(RestartStrategyOptions.RESTART_STRATEGY)) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1000);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(checkpointInterval.toMillis());
        env.setParallelism(2);
        env.addSource(new CountingSource(run)).setParallelism(1).uid("source")
                .keyBy(e -> e.f0)
                .map(new KeyedCounter(run)).uid("counter")
                .addSink(new CommittingSink(run)).setParallelism(1).uid("sink");
        JobGraph graph = env.getStreamGraph().getJobGraph();
        graph.setJobID(jobId);
        return graph;
    }

    /** Emits 0..elements-1 as (n mod KEYS, n), its offset in operator state. */
    static final class CountingSource extends FlinkApis.Source<Tuple2<Integer, Long>> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private final String run;
        private volatile boolean running = true;
        private long next;
        private transient ListState<Long> offset;

        CountingSource(String run) {
            this.run = run;
        }

        @Override
        public void run(SourceContext<Tuple2<Integer, Long>> ctx) throws Exception {
            Run r = RUNS.get(run);
            while (running && next < r.elements) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(Tuple2.of((int) (next % KEYS), next));
                    next++;
                }
                r.emitted.incrementAndGet();
                Thread.sleep(2);
            }
            while (running && !r.released) {
                Thread.sleep(20);
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
            if (context.isRestored()) {
                RUNS.get(run).restores.incrementAndGet();
            }
        }
    }

    /** Counts each key's elements in keyed state; fails once when the run asks for it. */
    static final class KeyedCounter extends RichMapFunction<Tuple2<Integer, Long>, Tuple2<Integer, Long>> {
        private static final long serialVersionUID = 1L;
        private final String run;
        private transient ValueState<Long> count;

        KeyedCounter(String run) {
            this.run = run;
        }

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
        }

        @Override
        public Tuple2<Integer, Long> map(Tuple2<Integer, Long> e) throws Exception {
            Run r = RUNS.get(run);
            if (r.failAfterPublished > 0 && r.published.get() >= r.failAfterPublished && r.failed.compareAndSet(false, true)) {
                throw new RuntimeException("injected task failure after " + r.published.get() + " published checkpoints");
            }
            long c = count.value() == null ? 1 : count.value() + 1;
            count.update(c);
            return Tuple2.of(e.f0, c);
        }
    }

    /**
     * Stages the records of each checkpoint in operator state and commits them when that
     * checkpoint is notified complete, or when a restore brings them back (they belong to the
     * restored checkpoint, which completed).
     */
    static final class CommittingSink extends FlinkApis.Sink<Tuple2<Integer, Long>>
            implements CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final String run;
        private transient List<Tuple2<Integer, Long>> pending;
        private transient TreeMap<Long, List<Tuple2<Integer, Long>>> staged;
        private transient ListState<Tuple2<Long, List<Tuple2<Integer, Long>>>> state;
        private transient Map<Long, Long> snapshotNanos;

        CommittingSink(String run) {
            this.run = run;
        }

        @Override
        public void invoke(Tuple2<Integer, Long> value, Context context) {
            pending.add(value);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            while (RUNS.get(run).holdSnapshots) {
                Thread.sleep(20);
            }
            snapshotNanos.put(context.getCheckpointId(), System.nanoTime());
            staged.put(context.getCheckpointId(), pending);
            pending = new ArrayList<>();
            List<Tuple2<Long, List<Tuple2<Integer, Long>>>> all = new ArrayList<>();
            staged.forEach((id, records) -> all.add(Tuple2.of(id, records)));
            state.update(all);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Run r = RUNS.get(run);
            r.published.incrementAndGet();
            Long at = snapshotNanos.remove(checkpointId);
            if (at != null) {
                r.completionMillis.add((System.nanoTime() - at) / 1_000_000);
            }
            commitUpTo(checkpointId);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            pending = new ArrayList<>();
            staged = new TreeMap<>();
            snapshotNanos = new ConcurrentHashMap<>();
            state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("staged",
                    org.apache.flink.api.common.typeinfo.TypeInformation.of(
                            new org.apache.flink.api.common.typeinfo.TypeHint<Tuple2<Long, List<Tuple2<Integer, Long>>>>() {})));
            for (Tuple2<Long, List<Tuple2<Integer, Long>>> t : state.get()) {
                staged.put(t.f0, new ArrayList<>(t.f1));
            }
            if (context.isRestored()) {
                commitUpTo(Long.MAX_VALUE);
            }
        }

        private void commitUpTo(long checkpointId) {
            Run r = RUNS.get(run);
            while (!staged.isEmpty() && staged.firstKey() <= checkpointId) {
                Map.Entry<Long, List<Tuple2<Integer, Long>>> batch = staged.pollFirstEntry();
                r.committed.put(batch.getKey(), batch.getValue());
            }
        }
    }
}
