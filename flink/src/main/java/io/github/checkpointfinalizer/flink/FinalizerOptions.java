package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * The plugin's keys in Flink's configuration ({@code config.yaml}). Everything else the plugin
 * needs it reads from Flink's own keys: {@code high-availability.cluster-id} for the cluster,
 * {@code state.checkpoints.num-retained} for retention.
 */
public final class FinalizerOptions {
    private FinalizerOptions() {}

    /** Whose HA services elect leaders and keep job graphs, results and blobs. */
    public static final ConfigOption<String> DELEGATE =
            ConfigOptions.key("finalizer.high-availability.delegate")
                    .stringType()
                    .defaultValue("zookeeper")
                    .withDescription(
                            "Flink's own HA services the plugin delegates everything but completed"
                                    + " checkpoints to: zookeeper or kubernetes, configured with"
                                    + " Flink's usual high-availability.* keys.");

    public static final ConfigOption<String> TEMPORAL_ADDRESS =
            ConfigOptions.key("finalizer.temporal.address")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "host:port of the Temporal frontend. Unset: TEMPORAL_ADDRESS, then the"
                                    + " temporal.toml profile, then localhost:7233.");

    public static final ConfigOption<String> TEMPORAL_NAMESPACE =
            ConfigOptions.key("finalizer.temporal.namespace")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Temporal namespace. Unset: TEMPORAL_NAMESPACE, then the profile, then default.");

    public static final ConfigOption<String> TEMPORAL_PROFILE =
            ConfigOptions.key("finalizer.temporal.profile")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Profile of the Temporal client configuration file (temporal.toml;"
                                    + " TEMPORAL_CONFIG_FILE names another file), for TLS and API keys."
                                    + " Its client certificate files (client_cert_path, client_key_path) are"
                                    + " read again at each new connection when they changed: a rotated"
                                    + " certificate needs no restart."
                                    + " Unset: TEMPORAL_PROFILE, then \"default\".");

    public static final ConfigOption<String> TEMPORAL_API_KEY_FILE =
            ConfigOptions.key("finalizer.temporal.api-key-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "File holding the Temporal API key (a mounted Secret), in place of the"
                                    + " profile's api_key. Looked at on every call and read again when"
                                    + " it changed: a rotated key is sent from the next call on, no"
                                    + " restart; an empty or unreadable file keeps the last good key."
                                    + " Turns TLS on (system roots) when no TLS is configured.");

    public static final ConfigOption<String> TASK_QUEUE =
            ConfigOptions.key("finalizer.task-queue")
                    .stringType()
                    .defaultValue("checkpoint-finalizer")
                    .withDescription("The task queue the finalizer's workers serve for this cluster.");

    public static final ConfigOption<String> CLUSTER =
            ConfigOptions.key("finalizer.cluster")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The finalizer's cluster name (a DNS-1123 label). Unset:"
                                    + " high-availability.cluster-id, which must then be such a label.");

    public static final ConfigOption<String> STATE_BUCKET =
            ConfigOptions.key("finalizer.state-bucket")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The root of the worker's state bucket as Flink's file systems name it"
                                    + " (s3://flink-state, file:///data/state): checkpoint paths are"
                                    + " bucket keys below it. Required.");

    public static final ConfigOption<Duration> PUBLISH_WAIT =
            ConfigOptions.key("finalizer.publish-wait")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "How long completing a checkpoint waits for its finalization. A"
                                    + " finalization still unresolved then fails the checkpoint with"
                                    + " PossibleInconsistentStateException: Flink keeps its files, and"
                                    + " the finalizer goes on resolving it.");

    public static final ConfigOption<Duration> MAIN_THREAD_WAIT =
            ConfigOptions.key("finalizer.main-thread-wait")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription(
                            "The longest a call of the plugin on the JobMaster's main thread waits for"
                                    + " the finalizer: a restore after a checkpoint whose outcome is unknown."
                                    + " Keep it well under heartbeat.timeout (50 s); past it the restore takes"
                                    + " the newest checkpoint known to be published and new checkpoints wait"
                                    + " until the finalizer answers.");

    public static final ConfigOption<Duration> CALL_TIMEOUT =
            ConfigOptions.key("finalizer.call-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(2))
                    .withDescription(
                            "Bound on one try of a claim, restore-point read or retirement, none of"
                                    + " them on the JobMaster's main thread. A JobMaster being built tries"
                                    + " again with backoff while it leads the job (the job stays"
                                    + " INITIALIZING); a retirement is tried again by Flink's cleanup of the"
                                    + " job.");
}
