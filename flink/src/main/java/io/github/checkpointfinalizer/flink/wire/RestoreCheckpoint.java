package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One published checkpoint a job manager may recover from.
 *
 * @param epoch the epoch of the job manager that took it
 * @param restorePath the metadata file's URL in the state bucket, as the worker names it
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RestoreCheckpoint(
        long checkpoint,
        long epoch,
        String metadataKey,
        String metadataSha256,
        String exclusivePrefix,
        boolean savepoint,
        String handleKey,
        String restorePath) {}
