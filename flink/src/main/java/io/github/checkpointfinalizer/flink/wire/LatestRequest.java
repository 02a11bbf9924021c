package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The input of LatestCheckpoint: a read of one job's restore point that claims nothing. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LatestRequest(String cluster, String job) {

    /** One read's ID; the nonce keeps a read from attaching to an older one. */
    public String workflowId(String nonce) {
        return "latest/" + cluster + "/" + job + "/" + nonce;
    }
}
