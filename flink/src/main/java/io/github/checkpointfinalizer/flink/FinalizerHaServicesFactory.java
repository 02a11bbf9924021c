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
 *
 * <p>On the Flink Kubernetes Operator the entry point is {@code
 * org.apache.flink.kubernetes.highavailability.KubernetesHAServicesFactory}, a name the operator
 * takes for Kubernetes HA: this factory with the Kubernetes delegate fixed ({@link
 * #withKubernetesDelegate}).
 */
public final class FinalizerHaServicesFactory implements HighAvailabilityServicesFactory {
    private static final Logger LOG = LoggerFactory.getLogger(FinalizerHaServicesFactory.class);

    /** The delegate an entry point fixes, and its name for errors; null: the user's choice. */
    private final String fixedDelegate;
    private final String entryPoint;

    /** Flink instantiates the factory named by {@code high-availability.type} this way. */
    public FinalizerHaServicesFactory() {
        this(null, null);
    }

    private FinalizerHaServicesFactory(String fixedDelegate, String entryPoint) {
        this.fixedDelegate = fixedDelegate;
        this.entryPoint = entryPoint;
    }

    /**
     * The plugin with Flink's Kubernetes HA services as the delegate, whatever {@code
     * finalizer.high-availability.delegate} says (another value than kubernetes is refused),
     * for an entry point whose name promises Kubernetes HA.
     */
    public static HighAvailabilityServicesFactory withKubernetesDelegate(Class<?> entryPoint) {
        return new FinalizerHaServicesFactory("kubernetes", entryPoint.getName());
    }

    @Override
    public HighAvailabilityServices createHAServices(Configuration configuration, Executor executor) throws Exception {
        FinalizerSettings settings = FinalizerSettings.from(configuration, fixedDelegate, entryPoint);
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
                delegateType(configuration));
        return FinalizerHaServices.of(delegate, client, settings);
    }

    /** Clients only find the REST endpoint's leader: the delegate's client services do that. */
    @Override
    public ClientHighAvailabilityServices createClientHAServices(Configuration configuration) throws Exception {
        FinalizerSettings.checkDelegate(configuration, fixedDelegate, entryPoint);
        return HighAvailabilityServicesUtils.createClientHAService(
                delegateConfiguration(configuration), FinalizerHaServicesFactory::onFatalError);
    }

    private Configuration delegateConfiguration(Configuration configuration) {
        Configuration c = new Configuration(configuration);
        c.set(HighAvailabilityOptions.HA_MODE, delegateType(configuration).toUpperCase(java.util.Locale.ROOT));
        return c;
    }

    private String delegateType(Configuration configuration) {
        return fixedDelegate != null ? fixedDelegate : configuration.get(FinalizerOptions.DELEGATE);
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
