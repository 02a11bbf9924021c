package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.RetireRequest;

import org.apache.flink.api.common.JobID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Retirements of ended jobs, recorded without blocking Flink, and durably. A store's shutdown
 * runs on the JobMaster's main thread, so it only starts one here; Flink's global cleanup of the
 * job ({@code HighAvailabilityServices#globalCleanupAsync}) completes only once it is recorded.
 * Flink retries that cleanup with backoff, and keeps the job's result dirty until it succeeds:
 * after a JobManager failover the next leader runs the job's cleanup again, whose store retires
 * the job once more. So a retirement the finalizer cannot record now is recorded later, and
 * never lost.
 */
final class Retirements {
    private static final Logger LOG = LoggerFactory.getLogger(Retirements.class);

    private final FinalizerClient client;
    private final Duration timeout;
    private final Map<JobID, Retirement> pending = new ConcurrentHashMap<>();

    Retirements(FinalizerClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    /** Starts recording the job's retirement; {@code onRecorded} runs once it stands. */
    void start(JobID job, RetireRequest req, Runnable onRecorded) {
        Retirement r = new Retirement(req, onRecorded);
        pending.put(job, r);
        r.current();
    }

    /**
     * Completes once the job's retirement started here is recorded (at once when none is), and
     * fails while it cannot be, so that Flink's cleanup tries again.
     */
    CompletableFuture<Void> recorded(JobID job) {
        Retirement r = pending.get(job);
        if (r == null) {
            return CompletableFuture.completedFuture(null);
        }
        return r.current().thenRun(() -> pending.remove(job, r));
    }

    private final class Retirement {
        private final RetireRequest req;
        private final Runnable onRecorded;
        private CompletableFuture<Void> attempt;

        Retirement(RetireRequest req, Runnable onRecorded) {
            this.req = req;
            this.onRecorded = onRecorded;
        }

        /** The running or finished attempt; a failed one is followed by a new one. */
        synchronized CompletableFuture<Void> current() {
            if (attempt == null || attempt.isCompletedExceptionally()) {
                attempt = client.async(this::record);
            }
            return attempt;
        }

        private Void record() {
            try {
                client.within(timeout, () -> true, () -> {
                    client.retire(req, timeout);
                    return null;
                });
                LOG.info("Job {} retired at epoch {} ({} its checkpoints).", req.job(), req.epoch(),
                        req.discardCheckpoints() ? "discarding" : "retaining");
                onRecorded.run();
            } catch (RejectedException notOurs) {
                // A newer claim stands (a later leader retires or runs the job): nothing to record.
                LOG.warn("Job {}: the finalizer refused the retirement at epoch {}; a newer claim decides.", req.job(),
                        req.epoch(), notOurs);
            } catch (Exception e) {
                LOG.warn("Job {}: its retirement at epoch {} has not finished yet (a discarding one finishes once the job's "
                        + "finalizations closed and its checkpoints are deleted); Flink's cleanup of the job tries again.",
                        req.job(), req.epoch(), e);
                throw new CompletionException(e);
            }
            return null;
        }
    }
}
