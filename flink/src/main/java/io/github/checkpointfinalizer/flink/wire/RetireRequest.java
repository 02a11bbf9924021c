package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The input of RetireJob: the standing claim ends the job.
 *
 * @param discardCheckpoints Flink's DELETE_ON_CANCELLATION; false retains the checkpoints' state
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RetireRequest(
        String cluster,
        String job,
        long epoch,
        String owner,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean discardCheckpoints) {

    public String workflowId() {
        return "retire/" + cluster + "/" + job + "/" + Long.toUnsignedString(epoch);
    }
}
