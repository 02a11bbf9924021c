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
import java.util.function.BooleanSupplier;

/**
 * What recovering a job's completed-checkpoint store does, whatever Flink's version: claim a new
 * epoch, recover the finalizer's restore point (or adopt Flink's own store's newest checkpoint),
 * and build the store. The per-version {@code FinalizerCheckpointRecovery} adapts Flink's
 * interface to it.
 */
final class CheckpointRecovery {
    private final FinalizerClient client;
    private final FinalizerSettings settings;
    private final JobLeadership leadership;
    private final Retirements retirements;
    /** Each job's watermark as its newest claim read it: its checkpoint IDs stay above. */
    private final Map<JobID, Long> watermarks = new ConcurrentHashMap<>();
    /** Each job's store, whose checkpoints in doubt hold new ones back. */
    private final Map<JobID, FinalizerCompletedCheckpointStore> stores = new ConcurrentHashMap<>();

    CheckpointRecovery(FinalizerClient client, FinalizerSettings settings, JobLeadership leadership, Retirements retirements) {
        this.client = client;
        this.settings = settings;
        this.leadership = leadership;
        this.retirements = retirements;
    }

    /**
     * Called once per JobMaster leadership, before the job's execution graph exists, off the
     * main thread (the job is INITIALIZING meanwhile): claims a new epoch and recovers the
     * finalizer's restore point. While the finalizer is away it waits, as long as this process
     * leads the job: a JobMaster that failed to start would be fatal to Flink's Dispatcher for a
     * recovered job. Where no leader election of the job runs here (Flink's cleanup of a job
     * that ended before a failover) one try is made; Flink retries that cleanup itself.
     */
    CompletedCheckpointStore create(
            JobID jobId, int maxNumberOfCheckpointsToRetain, SharedStateOwnership ownership, Executor ioExecutor)
            throws Exception {
        BooleanSupplier leading = () -> !leadership.contends(jobId) || leadership.leads(jobId);
        BooleanSupplier patient = () -> leadership.contends(jobId) && leadership.leads(jobId);
        JobClaim.Recovered recovered = Patience.retry("job " + jobId + ": claiming an epoch and recovering its restore point",
                patient, () -> recover(jobId, ownership, ioExecutor, leading));
        watermarks.put(jobId, recovered.restorePoint().watermark());
        SharedStateRegistry registry = ownership.registry(ioExecutor, recovered.checkpoints());
        FinalizerCompletedCheckpointStore store = new FinalizerCompletedCheckpointStore(recovered.claim(), registry, settings,
                retirements, maxNumberOfCheckpointsToRetain, recovered.checkpoints(), ioExecutor);
        stores.put(jobId, store);
        return store;
    }

    /** One try: the claim, its restore point, or the adoption of Flink's own store's newest checkpoint. */
    private JobClaim.Recovered recover(JobID jobId, SharedStateOwnership ownership, Executor ioExecutor, BooleanSupplier leading)
            throws Exception {
        JobClaim.Recovered recovered = JobClaim.claim(jobId, client, settings, ownership, leading);
        if (RestorePoint.NONE.equals(recovered.restorePoint().state())) {
            Optional<CompletedCheckpoint> flinks = latestOfFlinksStore(ownership, jobId, ioExecutor);
            if (flinks.isPresent()) {
                recovered.claim().adopt(flinks.get());
                return new JobClaim.Recovered(recovered.claim(), recovered.restorePoint(), new ArrayList<>(List.of(flinks.get())));
            }
        }
        return recovered;
    }

    /**
     * Flink's checkpoint ID counter for the job, kept above its watermark, and handing out no ID
     * while the job's store settles a checkpoint in doubt.
     */
    CheckpointIDCounter counter(JobID jobId, CheckpointIDCounter flinks) {
        return new FlooredCheckpointIDCounter(flinks, () -> watermarks.getOrDefault(jobId, 0L), () -> {
            FinalizerCompletedCheckpointStore store = stores.get(jobId);
            return store == null || store.settled();
        });
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
