package io.github.checkpointfinalizer.flink.wire;

/** Where a finalization is; the last four end it. */
public enum Phase {
    Persisting,
    Publishing,
    Verifying,
    Discarding,
    /** The reference is in the store: the checkpoint may be acknowledged. */
    Published,
    /** Nothing was published, and the checkpoint's own files are gone. */
    Discarded,
    /** Its state is kept and an operator decides. */
    Abandoned,
    /** The request was invalid or its data missing: nothing was published. */
    Failed
}
