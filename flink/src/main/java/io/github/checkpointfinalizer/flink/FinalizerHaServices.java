package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.blob.BlobStore;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.JobResultStore;
import org.apache.flink.runtime.jobmanager.JobGraphStore;
import org.apache.flink.runtime.leaderelection.LeaderElection;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalService;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Flink's own HA services (ZooKeeper or Kubernetes) with one part replaced: completed
 * checkpoints go through the finalizer. Leader election, the job graph store, the job result
 * store, the blob store and the checkpoint ID counter are the delegate's, unchanged, and so is
 * every default method, forwarded so the delegate's own overrides apply.
 */
final class FinalizerHaServices implements HighAvailabilityServices {
    private final HighAvailabilityServices delegate;
    private final FinalizerClient client;
    private final FinalizerSettings settings;

    FinalizerHaServices(HighAvailabilityServices delegate, FinalizerClient client, FinalizerSettings settings) {
        this.delegate = delegate;
        this.client = client;
        this.settings = settings;
    }

    @Override
    public CheckpointRecoveryFactory getCheckpointRecoveryFactory() throws Exception {
        return new FinalizerCheckpointRecovery(delegate.getCheckpointRecoveryFactory(), client, settings);
    }

    @Override
    public LeaderRetrievalService getResourceManagerLeaderRetriever() {
        return delegate.getResourceManagerLeaderRetriever();
    }

    @Override
    public LeaderRetrievalService getDispatcherLeaderRetriever() {
        return delegate.getDispatcherLeaderRetriever();
    }

    @Override
    @SuppressWarnings("deprecation")
    public LeaderRetrievalService getJobManagerLeaderRetriever(JobID jobID) {
        return delegate.getJobManagerLeaderRetriever(jobID);
    }

    @Override
    public LeaderRetrievalService getJobManagerLeaderRetriever(JobID jobID, String defaultJobManagerAddress) {
        return delegate.getJobManagerLeaderRetriever(jobID, defaultJobManagerAddress);
    }

    @Override
    @SuppressWarnings("deprecation")
    public LeaderRetrievalService getWebMonitorLeaderRetriever() {
        return delegate.getWebMonitorLeaderRetriever();
    }

    @Override
    public LeaderElection getResourceManagerLeaderElection() {
        return delegate.getResourceManagerLeaderElection();
    }

    @Override
    public LeaderElection getDispatcherLeaderElection() {
        return delegate.getDispatcherLeaderElection();
    }

    @Override
    public LeaderElection getJobManagerLeaderElection(JobID jobID) {
        return delegate.getJobManagerLeaderElection(jobID);
    }

    @Override
    @SuppressWarnings("deprecation")
    public LeaderElection getWebMonitorLeaderElection() {
        return delegate.getWebMonitorLeaderElection();
    }

    @Override
    public LeaderElection getClusterRestEndpointLeaderElection() {
        return delegate.getClusterRestEndpointLeaderElection();
    }

    @Override
    public LeaderRetrievalService getClusterRestEndpointLeaderRetriever() {
        return delegate.getClusterRestEndpointLeaderRetriever();
    }

    @Override
    public JobGraphStore getJobGraphStore() throws Exception {
        return delegate.getJobGraphStore();
    }

    @Override
    public JobResultStore getJobResultStore() throws Exception {
        return delegate.getJobResultStore();
    }

    @Override
    public BlobStore createBlobStore() throws IOException {
        return delegate.createBlobStore();
    }

    @Override
    public CompletableFuture<Void> globalCleanupAsync(JobID jobId, Executor executor) {
        return delegate.globalCleanupAsync(jobId, executor);
    }

    @Override
    public void close() throws Exception {
        try {
            delegate.close();
        } finally {
            client.close();
        }
    }

    @Override
    public void cleanupAllData() throws Exception {
        delegate.cleanupAllData();
    }

    @Override
    public void closeWithOptionalClean(boolean cleanupData) throws Exception {
        try {
            delegate.closeWithOptionalClean(cleanupData);
        } finally {
            client.close();
        }
    }
}
