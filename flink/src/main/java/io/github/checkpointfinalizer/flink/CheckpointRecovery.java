package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.RestorePoint;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.state.SharedStateRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * What recovering a job's completed-checkpoint store does, whatever Flink's version: claim a new
 * epoch, recover the finalizer's restore point (or adopt Flink's own store's newest checkpoint),
 * and build the store. The per-version {@code FinalizerCheckpointRecovery} adapts Flink's
 * interface to it.
 */
final class CheckpointRecovery {
    private final FinalizerClient client;
    private final FinalizerSettings settings;
    /** Each job's watermark as its newest claim read it: its checkpoint IDs stay above. */
    private final Map<JobID, Long> watermarks = new ConcurrentHashMap<>();

    CheckpointRecovery(FinalizerClient client, FinalizerSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    /**
     * Called once per JobMaster leadership, before the job's execution graph exists: claims a new
     * epoch and recovers the finalizer's restore point.
     */
    CompletedCheckpointStore create(
            JobID jobId, int maxNumberOfCheckpointsToRetain, SharedStateOwnership ownership, Executor ioExecutor)
            throws Exception {
        JobClaim.Recovered recovered = JobClaim.claim(jobId, client, settings, ownership);
        watermarks.put(jobId, recovered.restorePoint().watermark());
        List<CompletedCheckpoint> checkpoints = recovered.checkpoints();
        if (RestorePoint.NONE.equals(recovered.restorePoint().state())) {
            Optional<CompletedCheckpoint> flinks = latestOfFlinksStore(ownership, jobId, ioExecutor);
            if (flinks.isPresent()) {
                recovered.claim().adopt(flinks.get());
                checkpoints = new ArrayList<>(List.of(flinks.get()));
            }
        }
        SharedStateRegistry registry = ownership.registry(ioExecutor, checkpoints);
        return new FinalizerCompletedCheckpointStore(
                recovered.claim(), registry, settings, maxNumberOfCheckpointsToRetain, checkpoints, ioExecutor);
    }

    /** Flink's checkpoint ID counter for the job, kept above its watermark. */
    CheckpointIDCounter counter(JobID jobId, CheckpointIDCounter flinks) {
        return new FlooredCheckpointIDCounter(flinks, () -> watermarks.getOrDefault(jobId, 0L));
    }

    /**
     * Migration: the newest checkpoint Flink's own HA store holds for the job (a job that ran
     * without the plugin), read through Flink's own classes. The delegate's store is only read:
     * suspending it releases its locks and deletes nothing; its entries are never read again.
     */
    private static Optional<CompletedCheckpoint> latestOfFlinksStore(
            SharedStateOwnership ownership, JobID jobId, Executor ioExecutor) throws Exception {
        CompletedCheckpointStore flinks = ownership.flinksStore(jobId, ioExecutor);
        try {
            return Optional.ofNullable(flinks.getLatestCheckpoint());
        } finally {
            flinks.shutdown(JobStatus.SUSPENDED, new CheckpointsCleaner());
        }
    }
}
