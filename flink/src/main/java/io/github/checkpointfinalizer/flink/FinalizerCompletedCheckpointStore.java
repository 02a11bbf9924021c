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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A job's completed checkpoints, finalized through the checkpoint finalizer. One instance lives
 * for one JobMaster leadership: it was created by claiming a new epoch (see {@link
 * FinalizerCheckpointRecovery}), and every checkpoint it adds is published under that claim.
 *
 * <p>What Flink deletes and what the finalizer deletes: a checkpoint's own directory
 * ({@code chk-N/}) belongs to the finalizer once its finalization started, so this store never
 * lets Flink's {@link CheckpointsCleaner} delete one it handed over; retention is the finalizer's.
 * Shared (incremental) state stays Flink's: the {@code SharedStateRegistry} deletes what no
 * retained checkpoint uses, driven by this store's retained checkpoints, which are never more
 * than the finalizer retains.
 *
 * <p>Failure semantics of {@link #addCheckpointAndSubsumeOldestOne}: Published returns; every
 * other answer throws {@link PossibleInconsistentStateException}, so Flink keeps the files (a
 * Discarded finalization deleted what it could and keeps the rest for a reason; a Failed one is
 * reported with its files, never deleted behind the finalizer's back). Only a checkpoint for which
 * no finalization was started at all (the store still settling) throws a plain exception, so that
 * Flink deletes it as it deletes any checkpoint it failed to store.
 *
 * <p>Our outage is a slow checkpoint, never a stuck JobManager. After an unknown outcome the
 * store is <em>unsettled</em>: in the background, while this process leads the job, it claims a
 * new epoch, which fences every publish of the old one, and takes the restore point read with it
 * as its retained checkpoints. Until then the checkpoint ID counter refuses new checkpoints
 * ({@link FlooredCheckpointIDCounter}; Flink counts a refused trigger as no checkpoint failure),
 * and a restore on the JobMaster's main thread waits at most {@code finalizer.main-thread-wait}
 * before it takes the newest checkpoint known to be published. That is safe: Flink commits a
 * checkpoint's side effects only once it is published, checkpoint IDs only rise, and the shared
 * state of a checkpoint in doubt is released only after it is settled.
 */
final class FinalizerCompletedCheckpointStore extends AbstractCompleteCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(FinalizerCompletedCheckpointStore.class);

    private final JobClaim claim;
    private final FinalizerSettings settings;
    private final Retirements retirements;
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
    /** Checkpoints whose finalization's outcome is unknown, until a claim settles them, with their workflow IDs. */
    private final Map<CompletedCheckpoint, String> inDoubt = new LinkedHashMap<>();
    /** Whether {@link #inDoubt} is empty, read without the store's lock (a trigger never waits on it). */
    private volatile boolean settled = true;
    /** Whether a settling claim runs in the background. */
    private boolean settling;
    /** Cleared by the shutdown: a settling claim stops. */
    private volatile boolean open = true;

    FinalizerCompletedCheckpointStore(
            JobClaim claim,
            SharedStateRegistry registry,
            FinalizerSettings settings,
            Retirements retirements,
            int maxRetained,
            List<CompletedCheckpoint> recovered,
            Executor ioExecutor) {
        super(registry);
        this.claim = claim;
        this.ioExecutor = ioExecutor;
        this.settings = settings;
        this.retirements = retirements;
        this.maxRetained = Math.max(1, maxRetained);
        this.retained = new ArrayDeque<>(recovered);
    }

    @Override
    public synchronized CompletedCheckpoint addCheckpointAndSubsumeOldestOne(
            CompletedCheckpoint checkpoint, CheckpointsCleaner checkpointsCleaner, Runnable postCleanup)
            throws Exception {
        if (JobClaim.restoreBase(checkpoint)) {
            // Restored with -s (JobClaim.restoreBase): the user's snapshot, never the job's, so
            // nothing is published. It is this store's restore base until the job's first
            // checkpoint; a new JobMaster restores it again from the job's savepoint settings. A
            // resubmission under the same job ID restores its retained checkpoint this way, below
            // the watermark its new incarnation publishes above.
            LOG.info("Job {} restores from {}: kept as the restore base, not finalized.",
                    claim.job(), checkpoint.getExternalPointer());
            retained.addLast(checkpoint);
            CompletedCheckpoint subsumed = subsume();
            postCleanup.run();
            return subsumed;
        }
        long deadline = System.nanoTime() + settings.publishWait().toNanos();
        if (!inDoubt.isEmpty()) {
            settleInBackground();
        }
        if (!awaitSettled(deadline)) {
            throw new FlinkException("checkpoint " + checkpoint.getCheckpointID() + " of job " + claim.job()
                    + " was not finalized: the finalizer has not yet settled " + describe(inDoubt.keySet())
                    + " within " + FinalizerOptions.PUBLISH_WAIT.key() + "; no finalization was started for it");
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
        Duration wait = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
        Optional<FinalizeResult> result;
        try {
            result = claim.client().finalize(req, wait);
        } catch (RejectedException refused) {
            throw notPublished(checkpoint, refused.getMessage(), refused);
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
                // The finalizer deleted the directory, or kept it for a reason it gives: either
                // way what lies outside it goes only once the directory is gone.
                subsumedPending.add(checkpoint);
                ioExecutor.execute(this::discardOutsideDirectories);
                throw notPublished(checkpoint, req.workflowId() + " ended Discarded: " + r.reason(), null);
            case Failed:
                throw notPublished(checkpoint, req.workflowId() + " ended Failed: " + r.reason(), null);
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

    /**
     * A checkpoint the finalizer definitely did not publish: its files are the finalizer's to
     * delete or keep (it says which), never Flink's.
     */
    private PossibleInconsistentStateException notPublished(CompletedCheckpoint checkpoint, String why, Exception cause) {
        return new PossibleInconsistentStateException("checkpoint " + checkpoint.getCheckpointID() + " of job "
                + claim.job() + " (" + checkpoint.getExternalPointer() + ") was not published: " + why
                + "; its files are the finalizer's to delete or keep", cause);
    }

    private PossibleInconsistentStateException possiblyPublished(
            CompletedCheckpoint checkpoint, FinalizeRequest req, String why, Exception cause) {
        inDoubt.put(checkpoint, req.workflowId());
        settled = false;
        settleInBackground();
        return new PossibleInconsistentStateException("checkpoint " + checkpoint.getCheckpointID() + " of job "
                + claim.job() + " may still be published: " + why + " (workflow " + req.workflowId()
                + "; its files stay until the finalizer decides)", cause);
    }

    /**
     * The checkpoint to restore from, on the JobMaster's main thread under the coordinator lock:
     * never waits longer than {@code finalizer.main-thread-wait}. When a checkpoint is in doubt
     * and no settling claim has answered by then, the newest checkpoint known to be published
     * (the class comment says why that is safe); the settling goes on in the background.
     */
    @Override
    public synchronized CompletedCheckpoint getLatestCheckpoint() {
        if (!inDoubt.isEmpty()) {
            settleInBackground();
            if (!awaitSettled(System.nanoTime() + settings.mainThreadWait().toNanos())) {
                LOG.warn("Job {} restores from checkpoint {}, the newest known to be published: the finalizer has"
                        + " not yet settled {}; new checkpoints wait until it has.", claim.job(),
                        retained.isEmpty() ? "none" : retained.peekLast().getCheckpointID(), describe(inDoubt.keySet()));
            }
        }
        return retained.peekLast();
    }

    /** Whether a checkpoint may be triggered: not while one is in doubt (our outage). */
    boolean settled() {
        return settled;
    }

    /** Starts the settling claim unless one runs. */
    private void settleInBackground() {
        if (settling || !open) {
            return;
        }
        settling = true;
        ioExecutor.execute(this::settle);
    }

    /**
     * Claims a new epoch, in the background and while this process leads the job, and takes its
     * restore point as the retained checkpoints: no publish of the old epoch can land after it.
     */
    private void settle() {
        List<CompletedCheckpoint> known;
        Map<CompletedCheckpoint, String> doubts;
        String what;
        synchronized (this) {
            known = new ArrayList<>(retained);
            known.addAll(inDoubt.keySet());
            doubts = new LinkedHashMap<>(inDoubt);
            what = "job " + claim.job() + ": settling " + describe(inDoubt.keySet());
        }
        List<CompletedCheckpoint> restored = null;
        try {
            restored = Patience.retry(what,
                    () -> open && claim.leading(), () -> claim.reclaim(known, getSharedStateRegistry()));
            LOG.info("Job {} settled its checkpoints in doubt under epoch {}: restore point {}.", claim.job(), claim.epoch(),
                    restored.isEmpty() ? "none" : restored.get(restored.size() - 1).getCheckpointID());
        } catch (Exception e) {
            LOG.warn("Job {}: settling its checkpoints in doubt stopped; the next restore tries again.", claim.job(), e);
        }
        synchronized (this) {
            if (restored != null) {
                retained.clear();
                retained.addAll(restored);
                inDoubt.clear();
                settled = true;
            }
            settling = false;
            notifyAll();
        }
        if (restored != null) {
            doubts.keySet().removeAll(restored);
            doubts.forEach(this::discardIfNeverStarted);
        }
    }

    /**
     * A checkpoint in doubt that the settling claim did not restore can never be published (the
     * claim fenced its epoch). If its finalization never started (Temporal was away when it was
     * triggered), nothing of the finalizer holds its files: they are deleted as Flink deletes a
     * checkpoint it failed to store, so that our outage leaves nothing behind. A finalization that
     * did start decides itself. Should its start still arrive, it finds the metadata gone and
     * publishes nothing.
     */
    private void discardIfNeverStarted(CompletedCheckpoint checkpoint, String workflowId) {
        try {
            if (claim.client().within(settings.callTimeout(), () -> true, () -> claim.client().exists(workflowId))) {
                return;
            }
            checkpoint.markAsDiscarded().discard();
            LOG.info("Job {}: checkpoint {}, never finalized (its finalization never started) and never to be"
                    + " published, deleted.", claim.job(), checkpoint.getCheckpointID());
        } catch (Exception e) {
            LOG.warn("Job {}: checkpoint {} was never published; deleting its files failed, they stay ({}).",
                    claim.job(), checkpoint.getCheckpointID(), checkpoint.getExternalPointer(), e);
        }
    }

    /** Waits, releasing the store, until nothing is in doubt or the deadline passes. */
    private boolean awaitSettled(long deadline) {
        while (!inDoubt.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !settling) {
                return false;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private static String describe(Collection<CompletedCheckpoint> checkpoints) {
        return "checkpoint(s) in doubt " + checkpoints.stream().map(c -> Long.toString(c.getCheckpointID()))
                .collect(java.util.stream.Collectors.joining(", "));
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
     * newest checkpoint's properties (the job's own retention) say. This runs on the JobMaster's
     * main thread, so it only starts the retirement: Flink's global cleanup of the job waits until
     * it is recorded ({@link Retirements}). A suspension (leadership lost) leaves everything as
     * it is: the next leader claims above.
     */
    @Override
    public synchronized void shutdown(JobStatus jobStatus, CheckpointsCleaner checkpointsCleaner) throws Exception {
        open = false;
        notifyAll();
        if (jobStatus.isGloballyTerminalState()) {
            List<CompletedCheckpoint> kept = new ArrayList<>(retained);
            CompletedCheckpoint latest = retained.peekLast();
            // An unknown outcome is never a reason to delete: retire, keep the state.
            boolean discard = inDoubt.isEmpty() && (latest == null || latest.shouldBeDiscardedOnShutdown(jobStatus));
            SharedStateRegistry registry = getSharedStateRegistry();
            retirements.start(claim.jobId(), new RetireRequest(claim.cluster(), claim.job(), claim.epoch(), claim.owner(), discard),
                    // Shared state: what no retained checkpoint uses goes once the retirement
                    // stands, all of it on a discard.
                    () -> registry.unregisterUnusedState(discard || kept.isEmpty() ? Long.MAX_VALUE : lowest(kept)));
            LOG.info("Job {} ({}) retires at epoch {} ({} its checkpoints).", claim.job(), jobStatus, claim.epoch(),
                    discard ? "discarding" : "retaining");
            retained.clear();
        }
        super.shutdown(jobStatus, checkpointsCleaner);
    }

    private static long lowest(List<CompletedCheckpoint> retained) {
        return retained.stream().filter(c -> !c.getProperties().isSavepoint())
                .mapToLong(CompletedCheckpoint::getCheckpointID).min().orElse(Long.MAX_VALUE);
    }
}
