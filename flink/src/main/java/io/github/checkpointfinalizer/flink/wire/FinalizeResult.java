package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The result of FinalizeCheckpoint. Acknowledge the checkpoint only when it is Published. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record FinalizeResult(Phase phase, long attempts, String reason, String handleKey) {}
