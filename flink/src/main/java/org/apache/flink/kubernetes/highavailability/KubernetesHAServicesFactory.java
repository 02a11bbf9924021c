package org.apache.flink.kubernetes.highavailability;

import io.github.checkpointfinalizer.flink.FinalizerHaServicesFactory;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesFactory;

import java.util.concurrent.Executor;

/**
 * The checkpoint finalizer plugin's entry point for the Flink Kubernetes Operator: {@code
 * high-availability.type: org.apache.flink.kubernetes.highavailability.KubernetesHAServicesFactory}.
 *
 * <p>Not Flink's {@code KubernetesHaServicesFactory}, and named so on purpose: the operator takes
 * a type for Kubernetes HA when it equals {@code kubernetes} or that class's name ignoring case
 * ({@code FlinkUtils.isKubernetesHAActivated}), and only then finds and cleans the HA ConfigMaps
 * its upgrades, recoveries and deletions depend on. Flink loads a factory class by its exact,
 * case-sensitive name, so this value loads this class, from the plugin's jar: without the jar the
 * JobManager fails to start instead of running stock Kubernetes HA over the finalizer's jobs.
 *
 * <p>It is the plugin with Flink's Kubernetes HA services as the delegate (leader election, job
 * graphs, checkpoint IDs in the ConfigMaps the operator looks for); completed checkpoints go
 * through the finalizer.
 */
public final class KubernetesHAServicesFactory implements HighAvailabilityServicesFactory {
    private final HighAvailabilityServicesFactory plugin =
            FinalizerHaServicesFactory.withKubernetesDelegate(KubernetesHAServicesFactory.class);

    @Override
    public HighAvailabilityServices createHAServices(Configuration configuration, Executor executor) throws Exception {
        return plugin.createHAServices(configuration, executor);
    }

    @Override
    public ClientHighAvailabilityServices createClientHAServices(Configuration configuration) throws Exception {
        return plugin.createClientHAServices(configuration);
    }
}
