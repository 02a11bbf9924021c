package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.RestorePoint;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
        List<CompletedCheckpoint> checkpoints = recovered.checkpoints();
        if (RestorePoint.NONE.equals(recovered.restorePoint().state())) {
            Optional<CompletedCheckpoint> flinks = latestOfFlinksStore(jobId, ioExecutor, restoreMode);
            if (flinks.isPresent()) {
                recovered.claim().adopt(flinks.get());
                checkpoints = new ArrayList<>(List.of(flinks.get()));
            }
        }
        SharedStateRegistry registry = sharedStateRegistryFactory.create(
                ioExecutor, checkpoints, JobClaim.ownership(checkpoints, restoreMode));
        recovered.claim().registry(registry);
        return new FinalizerCompletedCheckpointStore(
                recovered.claim(), settings, maxNumberOfCheckpointsToRetain, checkpoints);
    }

    /**
     * Migration: the newest checkpoint Flink's own HA store holds for the job (a job that ran
     * without the plugin), read through Flink's own classes. The delegate's store is only read:
     * suspending it releases its locks and deletes nothing; its entries are never read again.
     */
    private Optional<CompletedCheckpoint> latestOfFlinksStore(JobID jobId, Executor ioExecutor, RestoreMode restoreMode)
            throws Exception {
        CompletedCheckpointStore flinks = delegate.createRecoveredCompletedCheckpointStore(
                jobId, 1, SharedStateRegistry.DEFAULT_FACTORY, ioExecutor, restoreMode);
        try {
            return Optional.ofNullable(flinks.getLatestCheckpoint());
        } finally {
            flinks.shutdown(JobStatus.SUSPENDED, new CheckpointsCleaner());
        }
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(JobID jobId) throws Exception {
        return delegate.createCheckpointIDCounter(jobId);
    }
}
