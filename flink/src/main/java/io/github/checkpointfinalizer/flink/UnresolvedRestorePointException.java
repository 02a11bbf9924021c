package io.github.checkpointfinalizer.flink;

import org.apache.flink.util.FlinkException;

/**
 * The job's newest published checkpoint does not resolve (its handle, metadata or data is
 * missing or altered): an operator decides between it and its fallback (docs/runbook.md), never
 * the plugin, so nothing retries it.
 */
final class UnresolvedRestorePointException extends FlinkException {
    private static final long serialVersionUID = 1L;

    UnresolvedRestorePointException(String message) {
        super(message);
    }
}
