package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.leaderelection.LeaderContender;
import org.apache.flink.runtime.leaderelection.LeaderElection;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which jobs this process leads, as Flink's own leader election tells its contenders. Waiting for
 * the finalizer is bounded by it: a JobMaster being built waits for its claim only while this
 * process still leads the job, so a leadership lost during our outage ends the wait at once
 * instead of leaving a claim to land later, behind the next leader's.
 *
 * <p>It watches each job's {@link LeaderElection} through a proxy of the contender Flink
 * registers, and changes nothing of what Flink sees.
 */
final class JobLeadership {
    private final Map<JobID, UUID> leading = new ConcurrentHashMap<>();
    /** Jobs whose leader election runs here (a job in cleanup after a failover has none). */
    private final Set<JobID> contenders = ConcurrentHashMap.newKeySet();

    /** Whether this process holds the job's leadership now. */
    boolean leads(JobID job) {
        return leading.containsKey(job);
    }

    /** Whether Flink's leader election of the job runs in this process at all. */
    boolean contends(JobID job) {
        return contenders.contains(job);
    }

    /** The job's leader election, its contender watched. */
    LeaderElection watch(JobID job, LeaderElection election) {
        return (LeaderElection) Proxy.newProxyInstance(JobLeadership.class.getClassLoader(),
                new Class<?>[] {LeaderElection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "startLeaderElection":
                            contenders.add(job);
                            args = new Object[] {watched(job, (LeaderContender) args[0])};
                            break;
                        case "close":
                            leading.remove(job);
                            contenders.remove(job);
                            break;
                        case "equals":
                            return proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        default:
                            break;
                    }
                    try {
                        return method.invoke(election, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private LeaderContender watched(JobID job, LeaderContender contender) {
        return new LeaderContender() {
            @Override
            public void grantLeadership(UUID session) {
                leading.put(job, session);
                contender.grantLeadership(session);
            }

            @Override
            public void revokeLeadership() {
                leading.remove(job);
                contender.revokeLeadership();
            }

            @Override
            public void handleError(Exception exception) {
                contender.handleError(exception);
            }
        };
    }
}
