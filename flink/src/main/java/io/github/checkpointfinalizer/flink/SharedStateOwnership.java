package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.state.SharedStateRegistry;

import java.util.List;
import java.util.concurrent.Executor;

/**
 * How recovered checkpoints' shared state is owned, and Flink's own store of a job: what the
 * recovery needs of Flink's interfaces whose claim-mode type differs between versions ({@code
 * RestoreMode} in 1.20, {@code RecoveryClaimMode} in 2.x).
 *
 * <p>A checkpoint the finalizer published as a checkpoint lies in this job's own directory and
 * is this job's: CLAIM, so its shared files go once no newer checkpoint uses them. Not so when
 * the job was started in LEGACY mode: its checkpoints may use files of the snapshot it was
 * restored from, which are the user's, and stock Flink keeps whatever the recovered checkpoints
 * created. Anything published as a savepoint (an adopted one) keeps the mode the job was started
 * with too: under NO_CLAIM, Flink then never deletes its files. Under NO_CLAIM the job's own
 * checkpoints use none of the restored snapshot's files (Flink's first checkpoint after such a
 * restore is a full one), so CLAIM is safe for them, where stock Flink never deletes them.
 */
interface SharedStateOwnership {
    /** A registry holding the recovered checkpoints' shared state. */
    SharedStateRegistry registry(Executor deleteExecutor, List<CompletedCheckpoint> recovered);

    /** Registers one more recovered checkpoint's shared state. */
    void register(CompletedCheckpoint checkpoint, SharedStateRegistry registry);

    /** Flink's own store of the job, built by the delegate's recovery (read for migration). */
    CompletedCheckpointStore flinksStore(JobID jobId, Executor ioExecutor) throws Exception;

    /**
     * Whether the recovered checkpoints' shared files are all this job's own: every one a
     * checkpoint, none of a job started in LEGACY mode.
     */
    static boolean owned(List<CompletedCheckpoint> recovered, boolean startedLegacy) {
        return !startedLegacy && recovered.stream().noneMatch(c -> c.getProperties().isSavepoint());
    }
}
