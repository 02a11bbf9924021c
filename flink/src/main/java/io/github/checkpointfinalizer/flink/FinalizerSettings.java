package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The plugin's configuration, validated as a whole before anything connects: every error is
 * reported at once, each naming its key and the rule.
 *
 * @param retention the cluster's retention policy, for checkpoints rebuilt from their metadata
 *     (which does not record the job's own)
 */
record FinalizerSettings(
        String cluster,
        StateBucket bucket,
        Duration publishWait,
        Duration mainThreadWait,
        Duration callTimeout,
        CheckpointRetentionPolicy retention) {

    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    static FinalizerSettings from(Configuration conf) {
        return from(conf, null, null);
    }

    /**
     * @param fixedDelegate the delegate the entry point fixes (null: {@code
     *     finalizer.high-availability.delegate} chooses)
     * @param entryPoint the entry point's class name, for the error that names it
     */
    static FinalizerSettings from(Configuration conf, String fixedDelegate, String entryPoint) {
        List<String> errors = new ArrayList<>();
        String cluster = conf.getOptional(FinalizerOptions.CLUSTER)
                .orElseGet(() -> conf.get(HighAvailabilityOptions.HA_CLUSTER_ID));
        if (cluster == null || !LABEL.matcher(cluster).matches()) {
            String key = conf.getOptional(FinalizerOptions.CLUSTER).isPresent()
                    ? FinalizerOptions.CLUSTER.key()
                    : FinalizerOptions.CLUSTER.key() + " (unset, so " + HighAvailabilityOptions.HA_CLUSTER_ID.key() + ")";
            errors.add(key + " \"" + cluster + "\" must be a DNS-1123 label: 1-63 of a-z, 0-9 and '-',"
                    + " starting and ending with a letter or digit");
        }
        StateBucket bucket = null;
        try {
            bucket = StateBucket.of(conf.get(FinalizerOptions.STATE_BUCKET));
        } catch (IllegalConfigurationException e) {
            errors.add(e.getMessage());
        }
        Duration publishWait = conf.get(FinalizerOptions.PUBLISH_WAIT);
        if (publishWait.isNegative() || publishWait.isZero()) {
            errors.add(FinalizerOptions.PUBLISH_WAIT.key() + " " + publishWait + " must be positive");
        }
        Duration mainThreadWait = conf.get(FinalizerOptions.MAIN_THREAD_WAIT);
        if (mainThreadWait.isNegative() || mainThreadWait.isZero()) {
            errors.add(FinalizerOptions.MAIN_THREAD_WAIT.key() + " " + mainThreadWait + " must be positive");
        }
        Duration callTimeout = conf.get(FinalizerOptions.CALL_TIMEOUT);
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            errors.add(FinalizerOptions.CALL_TIMEOUT.key() + " " + callTimeout + " must be positive");
        }
        delegateError(conf, fixedDelegate, entryPoint).ifPresent(errors::add);
        if (!errors.isEmpty()) {
            throw new IllegalConfigurationException("checkpoint finalizer plugin: " + String.join("; ", errors));
        }
        return new FinalizerSettings(cluster, bucket, publishWait, mainThreadWait, callTimeout,
                policy(conf.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION)));
    }

    /** The delegate's check alone, for clients (which need none of the other settings). */
    static void checkDelegate(Configuration conf, String fixedDelegate, String entryPoint) {
        delegateError(conf, fixedDelegate, entryPoint).ifPresent(e -> {
            throw new IllegalConfigurationException("checkpoint finalizer plugin: " + e);
        });
    }

    private static Optional<String> delegateError(Configuration conf, String fixedDelegate, String entryPoint) {
        Optional<String> set = conf.getOptional(FinalizerOptions.DELEGATE);
        if (fixedDelegate != null) {
            // An explicit other delegate under an entry point that promises this one is a
            // contradiction the user must resolve, not a choice to override silently.
            return set.filter(d -> !d.equalsIgnoreCase(fixedDelegate)).map(d -> FinalizerOptions.DELEGATE.key() + " \"" + d
                    + "\" must be " + fixedDelegate + " or unset with " + HighAvailabilityOptions.HA_MODE.key() + ": "
                    + entryPoint);
        }
        String delegate = conf.get(FinalizerOptions.DELEGATE);
        if (!delegate.equalsIgnoreCase("zookeeper") && !delegate.equalsIgnoreCase("kubernetes")) {
            return Optional.of(FinalizerOptions.DELEGATE.key() + " \"" + delegate + "\" must be zookeeper or kubernetes");
        }
        return Optional.empty();
    }

    /** Flink's own mapping of the externalized-checkpoint setting onto retention policies. */
    private static CheckpointRetentionPolicy policy(ExternalizedCheckpointRetention r) {
        switch (r) {
            case RETAIN_ON_CANCELLATION:
                return CheckpointRetentionPolicy.RETAIN_ON_CANCELLATION;
            case DELETE_ON_CANCELLATION:
                return CheckpointRetentionPolicy.RETAIN_ON_FAILURE;
            default:
                return CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION;
        }
    }
}
