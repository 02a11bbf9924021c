package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A job's newest published reference, read linearizably, and whether it resolves.
 *
 * @param epoch the job's standing epoch when the references were read (0 when never claimed)
 * @param watermark no checkpoint at or below it is ever published again
 * @param state "none", "resolved" or "dangling"
 * @param dangling why {@code latest} does not resolve
 * @param fallback the newest older reference that resolves, when {@code latest} dangles
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RestorePoint(
        String cluster,
        String job,
        long epoch,
        long watermark,
        String state,
        RestoreCheckpoint latest,
        String dangling,
        RestoreCheckpoint fallback) {

    public static final String NONE = "none";
    public static final String RESOLVED = "resolved";
    public static final String DANGLING = "dangling";
}
