package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryFactory;

import java.util.List;
import java.util.concurrent.Executor;

/**
 * Flink 2.x's checkpoint recovery with the completed-checkpoint store replaced: the checkpoint ID
 * counter stays the delegate's, so IDs keep rising across failovers exactly as without the plugin,
 * only never below the job's watermark in the finalizer ({@link FlooredCheckpointIDCounter}).
 */
final class FinalizerCheckpointRecovery implements CheckpointRecoveryFactory {
    private final CheckpointRecoveryFactory delegate;
    private final CheckpointRecovery recovery;

    FinalizerCheckpointRecovery(CheckpointRecoveryFactory delegate, CheckpointRecovery recovery) {
        this.delegate = delegate;
        this.recovery = recovery;
    }

    /** Called once per JobMaster leadership, before the job's execution graph exists. */
    @Override
    public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(
            JobID jobId, int maxNumberOfCheckpointsToRetain, SharedStateRegistryFactory registries, Executor ioExecutor,
            RecoveryClaimMode started) throws Exception {
        return recovery.create(jobId, maxNumberOfCheckpointsToRetain, new SharedStateOwnership() {
            @Override
            public SharedStateRegistry registry(Executor deleteExecutor, List<CompletedCheckpoint> recovered) {
                return registries.create(deleteExecutor, recovered, mode(recovered, started));
            }

            @Override
            public void register(CompletedCheckpoint checkpoint, SharedStateRegistry registry) {
                checkpoint.registerSharedStatesAfterRestored(registry, mode(List.of(checkpoint), started));
            }

            @Override
            public CompletedCheckpointStore flinksStore(JobID job, Executor io) throws Exception {
                return delegate.createRecoveredCompletedCheckpointStore(job, 1, SharedStateRegistry.DEFAULT_FACTORY, io, started);
            }
        }, ioExecutor);
    }

    private static RecoveryClaimMode mode(List<CompletedCheckpoint> recovered, RecoveryClaimMode started) {
        return SharedStateOwnership.owned(recovered, started == RecoveryClaimMode.LEGACY) ? RecoveryClaimMode.CLAIM : started;
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(JobID jobId) throws Exception {
        return recovery.counter(jobId, delegate.createCheckpointIDCounter(jobId));
    }
}
