package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.FinalizeRequest;
import io.github.checkpointfinalizer.flink.wire.FinalizeResult;
import io.github.checkpointfinalizer.flink.wire.RetireRequest;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.AbstractCompleteCheckpointStore;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.StateUtil;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.persistence.PossibleInconsistentStateException;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.FlinkRuntimeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A job's completed checkpoints, finalized through the checkpoint finalizer. One instance lives
 * for one JobMaster leadership: it was created by claiming a new epoch (see {@link
 * FinalizerCheckpointRecovery}), and every checkpoint it adds is published under that claim.
 *
 * <p>What Flink deletes and what the finalizer deletes: a checkpoint's own directory
 * ({@code chk-N/}) belongs to the finalizer once its finalization started, so this store never
 * hands a checkpoint to Flink's {@link CheckpointsCleaner}; retention is the finalizer's. Shared
 * (incremental) state stays Flink's: the {@code SharedStateRegistry} deletes what no retained
 * checkpoint uses, driven by this store's retained checkpoints, which are never more than the
 * finalizer retains.
 *
 * <p>Failure semantics of {@link #addCheckpointAndSubsumeOldestOne}: Published returns; a definite
 * refusal (Discarded, Failed, a rejection) throws a plain exception, so Flink deletes the
 * checkpoint's files, which the finalizer never published; anything unknown (still Verifying
 * after the wait, Temporal unreachable, Abandoned, any savepoint) throws {@link
 * PossibleInconsistentStateException}, so Flink keeps the files. After an unknown outcome, the
 * next restore first claims a new epoch: that claim fences every publish of the old epoch, so the
 * restore point it reads is exactly what can ever be published.
 */
final class FinalizerCompletedCheckpointStore extends AbstractCompleteCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(FinalizerCompletedCheckpointStore.class);

    private final JobClaim claim;
    private final FinalizerSettings settings;
    private final int maxRetained;
    /** Where the private files of subsumed checkpoints are deleted: never under the coordinator's lock. */
    private final Executor ioExecutor;
    /** Published checkpoints, oldest first; the last is the restore point. */
    private final Deque<CompletedCheckpoint> retained;
    /**
     * Subsumed checkpoints whose state outside their directory (RocksDB's private files, which
     * it writes into shared/) waits for the finalizer to delete the directory: that happens only
     * after the reference is gone, so deleting the rest then never takes state a reference needs.
     */
    private final List<CompletedCheckpoint> subsumedPending = new ArrayList<>();
    /** Checkpoints whose finalization's outcome is unknown, until the next claim settles them. */
    private final List<CompletedCheckpoint> inDoubt = new ArrayList<>();

    FinalizerCompletedCheckpointStore(
            JobClaim claim,
            SharedStateRegistry registry,
            FinalizerSettings settings,
            int maxRetained,
            List<CompletedCheckpoint> recovered,
            Executor ioExecutor) {
        super(registry);
        this.claim = claim;
        this.ioExecutor = ioExecutor;
        this.settings = settings;
        this.maxRetained = Math.max(1, maxRetained);
        this.retained = new ArrayDeque<>(recovered);
    }

    @Override
    public synchronized CompletedCheckpoint addCheckpointAndSubsumeOldestOne(
            CompletedCheckpoint checkpoint, CheckpointsCleaner checkpointsCleaner, Runnable postCleanup)
            throws Exception {
        if (checkpoint.getProperties().isUnclaimed()) {
            // Restored without claiming it (-s in NO_CLAIM mode, Flink's default): the user's
            // snapshot, never the job's, so nothing is published. It is this store's restore base
            // until the job's first checkpoint; a new JobMaster restores it again from the job's
            // savepoint settings. A resubmission under the same job ID restores its retained
            // checkpoint this way, below the watermark its new incarnation publishes above.
            LOG.info("Job {} restores from {} without claiming it: kept as the restore base, not finalized.",
                    claim.job(), checkpoint.getExternalPointer());
            retained.addLast(checkpoint);
            CompletedCheckpoint subsumed = subsume();
            postCleanup.run();
            return subsumed;
        }
        FinalizeRequest req;
        try {
            req = claim.request(checkpoint);
        } catch (Exception e) {
            // Nothing was triggered; still, never let Flink delete what it may not own (a -s
            // savepoint outside the bucket, an unreadable metadata file).
            throw new PossibleInconsistentStateException("checkpoint " + checkpoint.getCheckpointID() + " of job "
                    + claim.job() + " was not finalized: " + e.getMessage() + "; its files are kept", e);
        }
        boolean savepoint = req.savepoint();
        Optional<FinalizeResult> result;
        try {
            result = claim.client().finalize(req, settings.publishWait());
        } catch (RejectedException refused) {
            throw definite(checkpoint, savepoint, refused.getMessage(), refused);
        } catch (Exception unknown) {
            throw possiblyPublished(checkpoint, req, "its finalization's outcome is unknown", unknown);
        }
        if (result.isEmpty()) {
            throw possiblyPublished(checkpoint, req,
                    "its finalization did not end within " + FinalizerOptions.PUBLISH_WAIT.key() + " ("
                            + settings.publishWait() + "); the finalizer goes on resolving it", null);
        }
        FinalizeResult r = result.get();
        switch (r.phase()) {
            case Published:
                LOG.debug("Checkpoint {} of job {} published ({}).", checkpoint.getCheckpointID(), claim.job(), req.workflowId());
                retained.addLast(checkpoint);
                CompletedCheckpoint subsumed = subsume();
                // Shared state below the oldest retained checkpoint: Flink's registry deletes it.
                unregisterUnusedState(retained);
                if (!subsumedPending.isEmpty()) {
                    ioExecutor.execute(this::discardOutsideDirectories);
                }
                postCleanup.run();
                return subsumed;
            case Discarded:
            case Failed:
                throw definite(checkpoint, savepoint, req.workflowId() + " ended " + r.phase() + ": " + r.reason(), null);
            default:
                // Abandoned (an operator decides) or a phase this plugin does not know: keep the files.
                throw possiblyPublished(checkpoint, req, req.workflowId() + " ended " + r.phase() + ": " + r.reason(), null);
        }
    }

    /** Drops what retention keeps no more, as Flink's own stores do: the oldest first, never the
     * latest checkpoint nor the latest that is not a savepoint. The finalizer removes their
     * references and files; here they only leave the list. */
    private CompletedCheckpoint subsume() {
        CompletedCheckpoint latest = retained.peekLast();
        CompletedCheckpoint latestCheckpoint = null;
        for (Iterator<CompletedCheckpoint> it = retained.descendingIterator(); it.hasNext(); ) {
            CompletedCheckpoint c = it.next();
            if (!c.getProperties().isSavepoint()) {
                latestCheckpoint = c;
                break;
            }
        }
        CompletedCheckpoint subsumed = null;
        for (Iterator<CompletedCheckpoint> it = retained.iterator(); retained.size() > maxRetained && it.hasNext(); ) {
            CompletedCheckpoint c = it.next();
            if (c != latest && c != latestCheckpoint) {
                it.remove();
                subsumedPending.add(c);
                if (subsumed == null || c.getCheckpointID() > subsumed.getCheckpointID()) {
                    subsumed = c;
                }
            }
        }
        return subsumed;
    }

    /**
     * Deletes the private state of subsumed checkpoints whose directory the finalizer has
     * deleted: what lies inside the directory is gone already, what lies outside (RocksDB's
     * MANIFEST, OPTIONS and CURRENT, its private files, in shared/) goes now. Shared files stay the
     * registry's. A savepoint's state is never deleted; a failure is logged and the files stay.
     */
    private void discardOutsideDirectories() {
        List<CompletedCheckpoint> candidates;
        synchronized (this) {
            candidates = new ArrayList<>(subsumedPending);
        }
        for (CompletedCheckpoint c : candidates) {
            if (discardOutsideDirectory(c)) {
                synchronized (this) {
                    subsumedPending.remove(c);
                }
            }
        }
    }

    /** Whether the checkpoint needs no more of this: its private files are gone or are not ours. */
    private boolean discardOutsideDirectory(CompletedCheckpoint c) {
        if (c.getProperties().isSavepoint() || c.getProperties().isUnclaimed()) {
            return true;
        }
        Path metadata = new Path(CheckpointLoader.directory(c), "_metadata");
        try {
            if (metadata.getFileSystem().exists(metadata)) {
                return false; // still the finalizer's to decide
            }
            List<StreamStateHandle> outside = new ArrayList<>();
            for (OperatorState op : c.getOperatorStates().values()) {
                for (OperatorSubtaskState st : op.getStates()) {
                    for (KeyedStateHandle k : st.getManagedKeyedState()) {
                        if (k instanceof IncrementalRemoteKeyedStateHandle inc) {
                            // Never its shared state: that is the registry's.
                            inc.getPrivateState().forEach(h -> outside.add(h.getHandle()));
                        }
                    }
                }
            }
            StateUtil.bestEffortDiscardAllStateObjects(outside);
        } catch (Exception e) {
            LOG.warn("Checkpoint {} of job {}: deleting its state outside {} failed; those files stay.",
                    c.getCheckpointID(), claim.job(), metadata.getParent(), e);
        }
        return true;
    }

    private Exception definite(CompletedCheckpoint checkpoint, boolean savepoint, String why, Exception cause) {
        if (savepoint) {
            // Flink would delete what it failed to store; a savepoint is the user's, never ours to delete.
            return new PossibleInconsistentStateException(
                    "savepoint " + checkpoint.getExternalPointer() + " was not finalized: " + why, cause);
        }
        return new FlinkException("checkpoint " + checkpoint.getCheckpointID() + " of job " + claim.job()
                + " was not published: " + why, cause);
    }

    private PossibleInconsistentStateException possiblyPublished(
            CompletedCheckpoint checkpoint, FinalizeRequest req, String why, Exception cause) {
        inDoubt.add(checkpoint);
        return new PossibleInconsistentStateException("checkpoint " + checkpoint.getCheckpointID() + " of job "
                + claim.job() + " may still be published: " + why + " (workflow " + req.workflowId()
                + "; its files stay until the finalizer decides)", cause);
    }

    /**
     * The checkpoint to restore from. After a finalization whose outcome is unknown, a new epoch
     * is claimed first: no publish of the old epoch can land after it, so the restore point read
     * with it is exactly the newest checkpoint that is or ever will be published.
     */
    @Override
    public synchronized CompletedCheckpoint getLatestCheckpoint() {
        if (!inDoubt.isEmpty()) {
            try {
                List<CompletedCheckpoint> known = new ArrayList<>(retained);
                known.addAll(inDoubt);
                List<CompletedCheckpoint> settled = claim.reclaim(known, getSharedStateRegistry());
                retained.clear();
                retained.addAll(settled);
                inDoubt.clear();
            } catch (Exception e) {
                throw new FlinkRuntimeException("job " + claim.job() + ": settling the checkpoints whose"
                        + " finalization was in doubt before restoring failed; Flink retries the restore", e);
            }
        }
        return retained.peekLast();
    }

    /** The retained checkpoints as they stand; called on a failure path, it never claims. */
    @Override
    public synchronized long getLatestCheckpointId() {
        CompletedCheckpoint latest = retained.peekLast();
        return latest == null ? 0 : latest.getCheckpointID();
    }

    @Override
    public synchronized List<CompletedCheckpoint> getAllCheckpoints() {
        return new ArrayList<>(retained);
    }

    @Override
    public synchronized int getNumberOfRetainedCheckpoints() {
        return retained.size();
    }

    @Override
    public int getMaxNumberOfRetainedCheckpoints() {
        return maxRetained;
    }

    @Override
    public boolean requiresExternalizedCheckpoints() {
        return true;
    }

    /**
     * On a globally terminal status the job retires, its checkpoints retained or discarded as the
     * newest checkpoint's retention policy says (RETAIN_ON_CANCELLATION retains on cancel). A
     * suspension (leadership lost) leaves everything as it is: the next leader claims above.
     */
    @Override
    public synchronized void shutdown(JobStatus jobStatus, CheckpointsCleaner checkpointsCleaner) throws Exception {
        if (jobStatus.isGloballyTerminalState()) {
            CompletedCheckpoint latest = retained.peekLast();
            boolean discard = latest == null || latest.shouldBeDiscardedOnShutdown(jobStatus);
            if (!inDoubt.isEmpty()) {
                // An unknown outcome is never a reason to delete: retire, keep the state.
                discard = false;
            }
            claim.client().retire(new RetireRequest(claim.cluster(), claim.job(), claim.epoch(), claim.owner(), discard),
                    settings.callTimeout());
            LOG.info("Job {} ({}) retired at epoch {} ({} its checkpoints).", claim.job(), jobStatus, claim.epoch(),
                    discard ? "discarding" : "retaining");
            // Shared state: what no retained checkpoint uses goes now, all of it on a discard.
            getSharedStateRegistry().unregisterUnusedState(
                    discard || latest == null ? Long.MAX_VALUE : lowestRetained());
            retained.clear();
        }
        super.shutdown(jobStatus, checkpointsCleaner);
    }

    private long lowestRetained() {
        return retained.stream().filter(c -> !c.getProperties().isSavepoint())
                .mapToLong(CompletedCheckpoint::getCheckpointID).min().orElse(Long.MAX_VALUE);
    }
}
