package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.leaderelection.LeaderElection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;

/**
 * Flink's own HA services (ZooKeeper or Kubernetes) with one part replaced: completed
 * checkpoints go through the finalizer. Everything else (leader election, the job graph or
 * execution plan store, the job result store, the blob store, the checkpoint ID counter, and
 * every default method) is the delegate's, unchanged.
 *
 * <p>It is a dynamic proxy of whatever {@code HighAvailabilityServices} the running Flink
 * declares, not a class implementing one version of it: Flink adds methods to that interface
 * between minor releases (2.3 added the application stores), and a compiled forwarder would
 * fail on the first call of one it lacks.
 */
final class FinalizerHaServices implements InvocationHandler {
    private final HighAvailabilityServices delegate;
    private final FinalizerClient client;
    private final FinalizerSettings settings;
    private final JobLeadership leadership = new JobLeadership();
    private final Retirements retirements;

    private FinalizerHaServices(HighAvailabilityServices delegate, FinalizerClient client, FinalizerSettings settings) {
        this.delegate = delegate;
        this.client = client;
        this.settings = settings;
        this.retirements = new Retirements(client, settings.callTimeout());
    }

    static HighAvailabilityServices of(HighAvailabilityServices delegate, FinalizerClient client, FinalizerSettings settings) {
        return (HighAvailabilityServices) Proxy.newProxyInstance(FinalizerHaServices.class.getClassLoader(),
                new Class<?>[] {HighAvailabilityServices.class}, new FinalizerHaServices(delegate, client, settings));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "getCheckpointRecoveryFactory":
                return new FinalizerCheckpointRecovery(delegate.getCheckpointRecoveryFactory(),
                        new CheckpointRecovery(client, settings, leadership, retirements));
            case "getJobManagerLeaderElection":
                return leadership.watch((JobID) args[0], (LeaderElection) forward(method, args));
            case "globalCleanupAsync":
                // The job's cleanup ends only once its retirement is recorded (Retirements).
                return ((CompletableFuture<?>) forward(method, args))
                        .thenCompose(done -> retirements.recorded((JobID) args[0]));
            case "close":
            case "closeWithOptionalClean":
                try {
                    return forward(method, args);
                } finally {
                    client.close();
                }
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "checkpoint finalizer HA services over " + delegate;
            default:
                return forward(method, args);
        }
    }

    private Object forward(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
