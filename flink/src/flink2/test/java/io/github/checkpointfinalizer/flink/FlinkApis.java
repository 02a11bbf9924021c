package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.streaming.api.functions.sink.legacy.RichSinkFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichSourceFunction;

import java.util.concurrent.Executor;

/** What the tests use of Flink 2.x that Flink 1.20 names or places differently. */
final class FlinkApis {
    private FlinkApis() {}

    /** A source function (in 2.x the legacy API). */
    abstract static class Source<T> extends RichSourceFunction<T> {
        private static final long serialVersionUID = 1L;
    }

    /** A sink function (in 2.x the legacy API). */
    abstract static class Sink<T> extends RichSinkFunction<T> {
        private static final long serialVersionUID = 1L;
    }

    /** A restore from path in LEGACY mode (2.x's RecoveryClaimMode). */
    static SavepointRestoreSettings legacyRestore(String path) {
        return SavepointRestoreSettings.forPath(path, false, RecoveryClaimMode.LEGACY);
    }

    /** The job's completed-checkpoint store as a JobMaster started in NO_CLAIM mode recovers it. */
    static CompletedCheckpointStore recoveredStore(CheckpointRecoveryFactory factory, JobID jobId, int retained, Executor io)
            throws Exception {
        return factory.createRecoveredCompletedCheckpointStore(jobId, retained, SharedStateRegistry.DEFAULT_FACTORY, io,
                RecoveryClaimMode.NO_CLAIM);
    }
}
