package io.github.checkpointfinalizer.flink;

/**
 * A definite refusal by the finalizer: the workflow ended with one of the contract's
 * {@code Rejected.*} failure types, and nothing was written.
 */
public final class RejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The type the contract names, e.g. {@code Rejected.StaleEpoch}. */
    private final String type;

    public RejectedException(String workflowId, String type, String message) {
        super(workflowId + ": " + message + " (" + type + ")");
        this.type = type;
    }

    public String type() {
        return type;
    }

    /** Whether a newer claim (or the same epoch under another owner) stands. */
    public boolean staleEpoch() {
        return "Rejected.StaleEpoch".equals(type);
    }
}
