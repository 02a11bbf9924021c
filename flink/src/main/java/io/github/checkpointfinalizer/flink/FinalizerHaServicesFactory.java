package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesFactory;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;

/**
 * The plugin's entry point: {@code high-availability.type:
 * io.github.checkpointfinalizer.flink.FinalizerHaServicesFactory}, with the jar in {@code lib/}
 * of the job managers, task managers and clients (Flink loads HA factories from its own class
 * path, not from {@code plugins/}).
 *
 * <p>It builds Flink's own HA services of the delegate type ({@code
 * finalizer.high-availability.delegate}: zookeeper or kubernetes, with Flink's usual keys for
 * it) and replaces only how completed checkpoints are stored. Configuration is validated, every
 * error at once, before anything connects.
 */
public final class FinalizerHaServicesFactory implements HighAvailabilityServicesFactory {
    private static final Logger LOG = LoggerFactory.getLogger(FinalizerHaServicesFactory.class);

    @Override
    public HighAvailabilityServices createHAServices(Configuration configuration, Executor executor) throws Exception {
        FinalizerSettings settings = FinalizerSettings.from(configuration);
        HighAvailabilityServices delegate = HighAvailabilityServicesUtils.createAvailableOrEmbeddedServices(
                delegateConfiguration(configuration), executor, FinalizerHaServicesFactory::onFatalError);
        FinalizerClient client;
        try {
            client = FinalizerClient.connect(configuration);
        } catch (Exception e) {
            delegate.close();
            throw e;
        }
        LOG.info("Completed checkpoints of cluster {} are finalized through the checkpoint finalizer"
                        + " (task queue {}, state bucket {}); {} HA services do the rest.",
                settings.cluster(), configuration.get(FinalizerOptions.TASK_QUEUE), settings.bucket(),
                configuration.get(FinalizerOptions.DELEGATE));
        return FinalizerHaServices.of(delegate, client, settings);
    }

    /** Clients only find the REST endpoint's leader: the delegate's client services do that. */
    @Override
    public ClientHighAvailabilityServices createClientHAServices(Configuration configuration) throws Exception {
        return HighAvailabilityServicesUtils.createClientHAService(
                delegateConfiguration(configuration), FinalizerHaServicesFactory::onFatalError);
    }

    private static Configuration delegateConfiguration(Configuration configuration) {
        Configuration c = new Configuration(configuration);
        c.set(HighAvailabilityOptions.HA_MODE, configuration.get(FinalizerOptions.DELEGATE).toUpperCase(java.util.Locale.ROOT));
        return c;
    }

    /**
     * Flink hands a custom factory no fatal-error handler. The delegate reports to this one what
     * it cannot handle itself (an unhandled ZooKeeper client error): logged loudly; Flink's leader
     * election, which sees the same connection, revokes leadership on its own.
     */
    private static void onFatalError(Throwable error) {
        LOG.error("Fatal error in the delegate HA services of the checkpoint finalizer plugin.", error);
    }
}
