package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryFactory;

import java.util.concurrent.Executor;

/**
 * Flink's checkpoint recovery with the completed-checkpoint store replaced: the checkpoint ID
 * counter stays the delegate's (ZooKeeper's or Kubernetes'), so IDs keep rising across
 * failovers exactly as they do without the plugin.
 */
final class FinalizerCheckpointRecovery implements CheckpointRecoveryFactory {
    private final CheckpointRecoveryFactory delegate;
    private final FinalizerClient client;
    private final FinalizerSettings settings;

    FinalizerCheckpointRecovery(CheckpointRecoveryFactory delegate, FinalizerClient client, FinalizerSettings settings) {
        this.delegate = delegate;
        this.client = client;
        this.settings = settings;
    }

    /**
     * Called once per JobMaster leadership, before the job's execution graph exists: claims a new
     * epoch and recovers the finalizer's restore point.
     */
    @Override
    public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(
            JobID jobId,
            int maxNumberOfCheckpointsToRetain,
            SharedStateRegistryFactory sharedStateRegistryFactory,
            Executor ioExecutor,
            RestoreMode restoreMode)
            throws Exception {
        JobClaim.Recovered recovered = JobClaim.claim(jobId, client, settings, restoreMode);
        SharedStateRegistry registry =
                sharedStateRegistryFactory.create(ioExecutor, recovered.checkpoints(), restoreMode);
        recovered.claim().registry(registry);
        return new FinalizerCompletedCheckpointStore(
                recovered.claim(), settings, maxNumberOfCheckpointsToRetain, recovered.checkpoints());
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(JobID jobId) throws Exception {
        return delegate.createCheckpointIDCounter(jobId);
    }
}
