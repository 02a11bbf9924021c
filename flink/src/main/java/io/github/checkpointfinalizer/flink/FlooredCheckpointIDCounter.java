package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.util.FlinkException;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Flink's own checkpoint ID counter, kept above the job's watermark in the finalizer, at or below
 * which no checkpoint is ever published again. Only a job resubmitted under its ID from scratch
 * (Flink's counter starting over at 1 above a retired incarnation's checkpoints) is ever below it:
 * its IDs then continue above what the old incarnation published, instead of failing checkpoint
 * after checkpoint. Everywhere else Flink's counter is above the watermark already, and this
 * changes nothing.
 */
final class FlooredCheckpointIDCounter implements CheckpointIDCounter {
    private final CheckpointIDCounter flinks;
    private final LongSupplier watermark;
    /** Whether the job's store takes new checkpoints: not while one is in doubt. */
    private final BooleanSupplier settled;

    FlooredCheckpointIDCounter(CheckpointIDCounter flinks, LongSupplier watermark, BooleanSupplier settled) {
        this.flinks = flinks;
        this.watermark = watermark;
        this.settled = settled;
    }

    @Override
    public void start() throws Exception {
        flinks.start();
    }

    @Override
    public CompletableFuture<Void> shutdown(JobStatus jobStatus) {
        return flinks.shutdown(jobStatus);
    }

    @Override
    public long getAndIncrement() throws Exception {
        if (!settled.getAsBoolean()) {
            // Flink counts a trigger that fails here as no checkpoint failure (not an
            // IOException): the job runs on, its checkpoints wait for the finalizer.
            throw new FlinkException("no checkpoint is triggered while the checkpoint finalizer has not settled"
                    + " a checkpoint in doubt (the finalizer or Temporal away); checkpoints resume once it answers");
        }
        long floor = watermark.getAsLong();
        if (flinks.get() <= floor) {
            flinks.setCount(floor + 1);
        }
        return flinks.getAndIncrement();
    }

    @Override
    public long get() {
        return Math.max(flinks.get(), watermark.getAsLong() + 1);
    }

    @Override
    public void setCount(long newId) throws Exception {
        flinks.setCount(Math.max(newId, watermark.getAsLong() + 1));
    }
}
