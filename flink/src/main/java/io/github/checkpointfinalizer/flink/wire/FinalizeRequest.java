package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The input of FinalizeCheckpoint: pointers and a checksum, never state bytes. The job manager
 * has written the checkpoint's data and metadata already.
 *
 * @param exclusivePrefix the checkpoint's own directory ("…/&lt;job&gt;/chk-&lt;id&gt;/"), null for
 *     a savepoint outside every checkpoint directory
 * @param maxPublishAttempts 0 for the contract's default (3)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record FinalizeRequest(
        String cluster,
        String job,
        long epoch,
        String owner,
        long checkpoint,
        String metadataKey,
        String metadataSha256,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) String exclusivePrefix,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean savepoint,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int maxPublishAttempts) {

    /** The contract's bound on publish attempts when a request names none. */
    public static final int DEFAULT_MAX_PUBLISH_ATTEMPTS = 3;

    /** The workflow ID, derived from the identity, so a repeated trigger reaches the same run. */
    public String workflowId() {
        return "finalize/" + cluster + "/" + job + "/" + Long.toUnsignedString(epoch) + "/"
                + Long.toUnsignedString(checkpoint);
    }

    /** The bound on publish attempts the worker applies. */
    public int maxAttempts() {
        return maxPublishAttempts == 0 ? DEFAULT_MAX_PUBLISH_ATTEMPTS : maxPublishAttempts;
    }

    /** What the Web UI lists for the execution (the contract's summary memo). */
    public String summary() {
        return (savepoint ? "savepoint " : "checkpoint ") + Long.toUnsignedString(checkpoint)
                + " of " + cluster + "/" + job + " (epoch " + Long.toUnsignedString(epoch) + ")";
    }
}
