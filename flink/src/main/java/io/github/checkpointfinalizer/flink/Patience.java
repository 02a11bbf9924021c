package io.github.checkpointfinalizer.flink;

import org.apache.flink.util.FlinkException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Waiting out the finalizer's outage where Flink lets the plugin wait: off the JobMaster's main
 * thread, and only while this process still leads the job. A refusal ({@link RejectedException})
 * and a restore point an operator must decide on ({@link UnresolvedRestorePointException}) are
 * final; anything else (Temporal or the worker away, a call past its bound, the bucket
 * unreadable) is tried again, with a backoff doubling from 1 s to 30 s. Each failure is logged, so
 * the wait is visible in the JobManager's log while the job stays INITIALIZING or checkpoints wait.
 */
final class Patience {
    private static final Logger LOG = LoggerFactory.getLogger(Patience.class);
    private static final Duration FIRST = Duration.ofSeconds(1);
    private static final Duration MAX = Duration.ofSeconds(30);
    private static final long SLICE_MILLIS = 200;

    private Patience() {}

    /**
     * The call's result, tried until it answers or {@code wanted} no longer holds.
     *
     * @throws FlinkException when it is no longer wanted, the last failure its cause
     */
    static <T> T retry(String what, BooleanSupplier wanted, Callable<T> call) throws Exception {
        Duration backoff = FIRST;
        for (int attempt = 1; ; attempt++) {
            try {
                return call.call();
            } catch (RejectedException | UnresolvedRestorePointException | InterruptedException definite) {
                throw definite;
            } catch (Exception e) {
                if (!wanted.getAsBoolean()) {
                    throw new FlinkException(what + ": given up, this JobManager no longer leads the job", e);
                }
                LOG.warn("{} failed (attempt {}): {}; trying again in {} while this JobManager leads the job.",
                        what, attempt, e.toString(), backoff);
                for (long end = System.nanoTime() + backoff.toNanos(); System.nanoTime() < end && wanted.getAsBoolean(); ) {
                    Thread.sleep(SLICE_MILLIS);
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX) > 0 ? MAX : backoff.multipliedBy(2);
            }
        }
    }
}
