package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.ClaimRequest;
import io.github.checkpointfinalizer.flink.wire.FinalizeRequest;
import io.github.checkpointfinalizer.flink.wire.FinalizeResult;
import io.github.checkpointfinalizer.flink.wire.LatestRequest;
import io.github.checkpointfinalizer.flink.wire.Phase;
import io.github.checkpointfinalizer.flink.wire.RestoreCheckpoint;
import io.github.checkpointfinalizer.flink.wire.RestorePoint;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.util.FlinkException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The standing claim of one job by one JobMaster leadership: the epoch it claimed, the owner it
 * claimed as, and what the claim's restore point says to recover from.
 *
 * <p>The owner is a fresh UUID per store: Flink does not pass the leader session ID to the
 * checkpoint recovery factory, and one store lives for exactly one leadership session, so the
 * UUID plays its part. Epochs are claimed one above the standing epoch the finalizer reports; a
 * concurrent claimant makes the claim stale, and the claim is tried again above it.
 */
final class JobClaim {
    private static final Logger LOG = LoggerFactory.getLogger(JobClaim.class);
    private static final int CLAIM_ATTEMPTS = 10;

    private final JobID jobId;
    private final String cluster;
    private final String owner;
    private final FinalizerClient client;
    private final FinalizerSettings settings;
    private final CheckpointLoader loader;
    private final SharedStateOwnership ownership;
    /** Whether calls for this claim are still wanted: while this process leads the job. */
    private final BooleanSupplier leading;
    private volatile long epoch;

    private JobClaim(JobID jobId, FinalizerClient client, FinalizerSettings settings, SharedStateOwnership ownership,
            BooleanSupplier leading) {
        this.jobId = jobId;
        this.cluster = settings.cluster();
        this.owner = "flink-" + UUID.randomUUID();
        this.client = client;
        this.settings = settings;
        this.loader = new CheckpointLoader(jobId, settings);
        this.ownership = ownership;
        this.leading = leading;
    }

    /** A claim whose restore point was read: the checkpoints to recover, oldest first. */
    record Recovered(JobClaim claim, RestorePoint restorePoint, List<CompletedCheckpoint> checkpoints) {}

    /**
     * Claims a new epoch for the job and loads the checkpoint its restore point names; each call
     * waits at most {@code finalizer.call-timeout}, and only while {@code leading} holds.
     */
    static Recovered claim(JobID jobId, FinalizerClient client, FinalizerSettings settings, SharedStateOwnership ownership,
            BooleanSupplier leading) throws Exception {
        JobClaim c = new JobClaim(jobId, client, settings, ownership, leading);
        RestorePoint rp = c.claimAbove();
        return new Recovered(c, rp, c.load(rp, List.of()));
    }

    /**
     * Claims a new epoch and returns the checkpoints to restore from: the restore point, taken
     * from {@code known} when it is one of them (its shared state is registered already), else
     * loaded from its metadata and registered.
     */
    List<CompletedCheckpoint> reclaim(List<CompletedCheckpoint> known, SharedStateRegistry registry) throws Exception {
        RestorePoint rp = claimAbove();
        List<CompletedCheckpoint> settled = load(rp, known);
        for (CompletedCheckpoint c : settled) {
            if (!known.contains(c)) {
                ownership.register(c, registry);
            }
        }
        return settled;
    }

    private RestorePoint claimAbove() throws Exception {
        RejectedException last = null;
        for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
            RestorePoint standing = client.within(settings.callTimeout(), leading,
                    () -> client.latest(new LatestRequest(cluster, job()), settings.callTimeout()));
            long next = standing.epoch() + 1;
            try {
                RestorePoint rp = client.within(settings.callTimeout(), leading,
                        () -> client.claim(new ClaimRequest(cluster, job(), next, owner), settings.callTimeout()));
                epoch = next;
                LOG.info("Job {} claimed epoch {} as {}; restore point: {}.", jobId, next, owner, describe(rp));
                return rp;
            } catch (RejectedException e) {
                if (!e.staleEpoch()) {
                    throw e;
                }
                last = e; // another leader claimed in between: claim above it
            }
        }
        throw new FlinkException("job " + jobId + ": " + CLAIM_ATTEMPTS + " claims in a row were overtaken", last);
    }

    private List<CompletedCheckpoint> load(RestorePoint rp, List<CompletedCheckpoint> known) throws Exception {
        switch (rp.state()) {
            case RestorePoint.NONE:
                // Nothing of this incarnation was published: a snapshot it was restored from
                // without claiming it stays its restore base.
                List<CompletedCheckpoint> base = new ArrayList<>();
                known.stream().filter(JobClaim::restoreBase)
                        .max(Comparator.comparingLong(CompletedCheckpoint::getCheckpointID))
                        .ifPresent(base::add);
                return base;
            case RestorePoint.RESOLVED:
                RestoreCheckpoint latest = rp.latest();
                for (CompletedCheckpoint c : known) {
                    if (c.getCheckpointID() == latest.checkpoint()
                            && settings.bucket().path(latest.metadataKey()).getParent().equals(
                                    CheckpointLoader.directory(c))) {
                        return new ArrayList<>(List.of(c));
                    }
                }
                return new ArrayList<>(List.of(loader.load(latest)));
            default:
                // Keep the state and surface it: an operator decides between the newest reference
                // and its fallback (docs/runbook.md), never this plugin.
                throw new UnresolvedRestorePointException("job " + jobId + ": the newest published checkpoint "
                        + (rp.latest() == null ? "?" : rp.latest().checkpoint()) + " does not resolve ("
                        + rp.dangling() + ")" + (rp.fallback() == null ? "" : "; checkpoint "
                        + rp.fallback().checkpoint() + " does") + ": an operator decides, see the runbook");
        }
    }

    /**
     * The contract's request for a checkpoint Flink has written, under this claim. Only a
     * checkpoint in this job's own {@code chk-<N>/} is sent as a checkpoint, whose directory the
     * finalizer may delete; anything else (a savepoint adopted from Flink's own store, a
     * checkpoint outside the job's directory) goes as a savepoint, whose files nobody deletes.
     * Snapshots a job is restored from never get here ({@link #restoreBase}).
     */
    FinalizeRequest request(CompletedCheckpoint checkpoint) throws Exception {
        Path dir = CheckpointLoader.directory(checkpoint);
        Path metadata = new Path(dir, "_metadata");
        boolean own = own(checkpoint);
        return new FinalizeRequest(cluster, job(), epoch, owner, checkpoint.getCheckpointID(),
                bucket().key(metadata), StateBucket.sha256(metadata),
                own ? bucket().key(dir) + "/" : null, !own, 0);
    }

    /**
     * Whether the checkpoint is one this job completed into its own {@code chk-<N>/}, the only
     * kind the finalizer may delete.
     */
    private boolean own(CompletedCheckpoint checkpoint) {
        Path dir = CheckpointLoader.directory(checkpoint);
        return !checkpoint.getProperties().isSavepoint()
                && !checkpoint.getProperties().isUnclaimed()
                && dir.getName().equals("chk-" + checkpoint.getCheckpointID())
                && dir.getParent() != null && dir.getParent().getName().equals(job());
    }

    /**
     * Whether the checkpoint is a snapshot the job was restored from with {@code -s}, in any claim
     * mode, rather than one it completed: NO_CLAIM hands it over unclaimed, LEGACY with a
     * savepoint's properties, CLAIM with the job's own; Flink's loader gives every restored
     * snapshot a trigger timestamp of 0, which no completed checkpoint has. Such a snapshot is the
     * job's restore base, never finalized: its files are the user's (another job's retained
     * checkpoint, a savepoint, an old incarnation's checkpoint below the watermark), and a new
     * JobMaster restores it again from the job's savepoint settings until the job's own
     * checkpoints are published.
     */
    static boolean restoreBase(CompletedCheckpoint checkpoint) {
        return checkpoint.getProperties().isUnclaimed() || checkpoint.getProperties().isSavepoint()
                || checkpoint.getTimestamp() == 0;
    }

    /**
     * Publishes a checkpoint this claim did not take (the newest of Flink's own HA store, on a
     * job's first recovery with the plugin), so that the finalizer owns it from now on.
     */
    void adopt(CompletedCheckpoint checkpoint) throws Exception {
        FinalizeRequest req = request(checkpoint);
        FinalizeResult r = client.finalize(req, settings.callTimeout()).orElseThrow(() -> new FlinkException(
                "job " + jobId + ": adopting checkpoint " + checkpoint.getCheckpointID() + " of Flink's HA store did not end within "
                        + settings.callTimeout() + " (" + req.workflowId() + "); its files are kept, Flink retries"));
        if (r.phase() != Phase.Published) {
            throw new FlinkException("job " + jobId + ": adopting checkpoint " + checkpoint.getCheckpointID()
                    + " of Flink's HA store ended " + r.phase() + ": " + r.reason() + " (" + req.workflowId() + ")");
        }
        LOG.info("Job {}: checkpoint {} of Flink's own HA store is now the finalizer's ({}).", jobId,
                checkpoint.getCheckpointID(), req.workflowId());
    }

    private static String describe(RestorePoint rp) {
        return rp.latest() == null ? rp.state() : rp.state() + " checkpoint " + rp.latest().checkpoint();
    }

    JobID jobId() {
        return jobId;
    }

    String cluster() {
        return cluster;
    }

    /** The job's name in the contract: Flink's job ID as 32 hex digits. */
    String job() {
        return jobId.toHexString();
    }

    long epoch() {
        return epoch;
    }

    String owner() {
        return owner;
    }

    /** Whether calls for this claim are still wanted. */
    boolean leading() {
        return leading.getAsBoolean();
    }

    FinalizerClient client() {
        return client;
    }

    StateBucket bucket() {
        return settings.bucket();
    }
}
