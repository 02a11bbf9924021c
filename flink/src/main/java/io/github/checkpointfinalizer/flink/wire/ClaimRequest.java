package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The input of ClaimEpoch: a job manager claims its leadership incarnation before recovering. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ClaimRequest(String cluster, String job, long epoch, String owner) {

    public String workflowId() {
        return "claim/" + cluster + "/" + job + "/" + Long.toUnsignedString(epoch);
    }
}
