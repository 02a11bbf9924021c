package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;

import java.util.concurrent.CompletableFuture;
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

    FlooredCheckpointIDCounter(CheckpointIDCounter flinks, LongSupplier watermark) {
        this.flinks = flinks;
        this.watermark = watermark;
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
