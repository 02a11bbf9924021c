package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.ClaimRequest;
import io.github.checkpointfinalizer.flink.wire.ContentHash;
import io.github.checkpointfinalizer.flink.wire.FinalizeRequest;
import io.github.checkpointfinalizer.flink.wire.FinalizeResult;
import io.github.checkpointfinalizer.flink.wire.LatestRequest;
import io.github.checkpointfinalizer.flink.wire.RestorePoint;
import io.github.checkpointfinalizer.flink.wire.RetireRequest;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.serviceclient.WorkflowServiceStubs;

import org.apache.flink.configuration.Configuration;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The workflow contract's calls a job manager makes, on the Temporal Java SDK. It knows nothing of
 * Flink's checkpoint classes: the store decides what to ask, this class only asks.
 *
 * <p>Failure semantics: a {@link RejectedException} is a definite refusal (nothing was written);
 * any other exception (a run of the same identity with other content included), and a finalization
 * not ended within its wait, is an unknown outcome.
 *
 * <p>Every call is bounded as a whole, the workflow start included: the SDK retries a start for
 * about a minute while Temporal is away, and a caller holding Flink's checkpoint coordinator lock
 * may wait no longer than its own bound. A call past its bound is interrupted; its outcome is
 * unknown.
 */
final class FinalizerClient implements AutoCloseable {
    private static final String CLAIM = "ClaimEpoch";
    private static final String FINALIZE = "FinalizeCheckpoint";
    private static final String RETIRE = "RetireJob";
    private static final String LATEST = "LatestCheckpoint";
    /** The finalization's path a start asks for in its memo (the contract's PathVersion). */
    private static final int PATH_VERSION = 2;

    private static final Duration POLL = Duration.ofSeconds(1);

    private final WorkflowServiceStubs service;
    private final WorkflowClient client;
    private final String taskQueue;
    /** Where calls run, so that their callers wait only as long as they may. */
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "checkpoint-finalizer-call");
        t.setDaemon(true);
        return t;
    });

    private FinalizerClient(WorkflowServiceStubs service, WorkflowClient client, String taskQueue) {
        this.service = service;
        this.client = client;
        this.taskQueue = taskQueue;
    }

    /**
     * Connects as the worker does (TemporalConnection), rotated credentials included. The
     * connection is lazy, so HA services come up while Temporal is away; the first call waits for it.
     */
    static FinalizerClient connect(Configuration conf) throws IOException {
        TemporalConnection c = TemporalConnection.of(conf);
        WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(c.stubs());
        return new FinalizerClient(service, WorkflowClient.newInstance(service, c.client()), conf.get(FinalizerOptions.TASK_QUEUE));
    }

    /** The job's restore point, read without claiming anything (for the epoch to claim above). */
    RestorePoint latest(LatestRequest req, Duration timeout) throws Exception {
        String id = req.workflowId(UUID.randomUUID().toString().replace("-", "").substring(0, 16));
        WorkflowStub stub = client.newUntypedWorkflowStub(LATEST, options(id)
                .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                .build());
        stub.start(req);
        return result(id, stub, timeout, RestorePoint.class);
    }

    /**
     * Claims the epoch and returns the restore point read after the claim fenced every older
     * epoch. A running claim of the same ID may be another owner's: wait for its end, claim anew.
     */
    RestorePoint claim(ClaimRequest req, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            WorkflowStub stub = client.newUntypedWorkflowStub(CLAIM, options(req.workflowId())
                    .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                    .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                    .build());
            try {
                stub.start(req);
            } catch (WorkflowExecutionAlreadyStarted running) {
                try {
                    client.newUntypedWorkflowStub(req.workflowId())
                            .getResult(remaining(deadline), TimeUnit.NANOSECONDS, Object.class);
                } catch (WorkflowFailedException endedAnyway) {
                    // Its outcome is not ours whatever it is: only its end matters.
                }
                continue;
            }
            RestorePoint rp = result(req.workflowId(), stub, Duration.ofNanos(remaining(deadline)), RestorePoint.class);
            if (rp.state() == null || rp.state().isEmpty()) {
                // A worker from before claims answered with the restore point: the claim has
                // completed, so a read now is still a read after it.
                return latest(new LatestRequest(req.cluster(), req.job()), Duration.ofNanos(remaining(deadline)));
            }
            return rp;
        }
    }

    /**
     * Triggers the finalization (or joins the one of the same identity and content) and waits up
     * to {@code wait} for its end.
     *
     * @return its result, or empty when it has not ended within the wait (an unknown outcome)
     */
    Optional<FinalizeResult> finalize(FinalizeRequest req, Duration wait) throws Exception {
        try {
            return Optional.of(within(wait, () -> true, () -> startAndAwait(req, wait)));
        } catch (TimeoutException stillRunning) {
            return Optional.empty();
        }
    }

    private FinalizeResult startAndAwait(FinalizeRequest req, Duration wait) throws Exception {
        String id = req.workflowId();
        String hash = ContentHash.of(req);
        WorkflowStub stub = client.newUntypedWorkflowStub(FINALIZE, options(id)
                // A repeated trigger joins the running one; after it ended, its outcome stands.
                .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                // "path": the finalization's path chosen at start, so its first task records none
                // (no version marker, no TemporalChangeVersion upsert).
                .setMemo(Map.of("summary", req.summary(), "contentHash", hash, "path", PATH_VERSION))
                .setStaticSummary(req.summary())
                .setTypedSearchAttributes(SearchAttributes.newBuilder()
                        .set(SearchAttributeKey.forKeyword("CheckpointCluster"), req.cluster())
                        .set(SearchAttributeKey.forKeyword("CheckpointJob"), req.job())
                        .set(SearchAttributeKey.forLong("CheckpointEpoch"), req.epoch())
                        .set(SearchAttributeKey.forLong("CheckpointID"), req.checkpoint())
                        .set(SearchAttributeKey.forKeyword("FinalizationPhase"), "Persisting")
                        .set(SearchAttributeKey.forOffsetDateTime("PhaseSince"),
                                Instant.now().atOffset(java.time.ZoneOffset.UTC))
                        .build())
                .build());
        try {
            stub.start(req);
        } catch (WorkflowExecutionAlreadyStarted existing) {
            stub = client.newUntypedWorkflowStub(id);
            Object theirs = stub.describe().getMemo("contentHash", String.class);
            if (!hash.equals(theirs)) {
                // Not a refusal of this checkpoint: another request holds its identity (and its
                // token), and what that one publishes may point anywhere. Unknown, so its files stay.
                throw new IllegalStateException(id + ": the execution of this identity finalizes other content"
                        + " (content hash " + theirs + ", this request's " + hash + ")");
            }
        }
        return result(id, stub, wait, FinalizeResult.class);
    }

    /** Whether an execution of the workflow ID exists (running, or closed and still retained). */
    boolean exists(String workflowId) {
        try {
            client.newUntypedWorkflowStub(workflowId).describe();
            return true;
        } catch (WorkflowNotFoundException absent) {
            return false;
        } catch (RuntimeException e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND) {
                    return false;
                }
            }
            throw e;
        }
    }

    /** Retires the job under the standing claim and waits for the store's answer. */
    void retire(RetireRequest req, Duration timeout) throws Exception {
        WorkflowStub stub = client.newUntypedWorkflowStub(RETIRE, options(req.workflowId())
                .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                .build());
        stub.start(req);
        result(req.workflowId(), stub, timeout, Object.class);
    }

    /**
     * Runs the call and waits for it at most {@code bound}, and only while {@code wanted} holds
     * (asked every second).
     *
     * @throws TimeoutException past either: the call is interrupted, its outcome is unknown
     */
    <T> T within(Duration bound, BooleanSupplier wanted, Callable<T> call) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        Future<T> running = calls.submit(call);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !wanted.getAsBoolean()) {
                    throw new TimeoutException(left <= 0 ? "no answer within " + bound : "no longer wanted");
                }
                try {
                    return running.get(Math.min(left, POLL.toNanos()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException notYet) {
                    // ask again whether it is still wanted
                } catch (ExecutionException failed) {
                    throw failed.getCause() instanceof Exception e ? e : failed;
                }
            }
        } finally {
            running.cancel(true);
        }
    }

    /** Runs the call in the background, where calls run. */
    <T> CompletableFuture<T> async(Callable<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, calls);
    }

    private WorkflowOptions.Builder options(String id) {
        return WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(taskQueue);
    }

    /** The run's result; a contract rejection becomes a {@link RejectedException}. */
    private static <T> T result(String id, WorkflowStub stub, Duration wait, Class<T> type) throws Exception {
        try {
            return stub.getResult(wait.toNanos(), TimeUnit.NANOSECONDS, type);
        } catch (WorkflowFailedException failed) {
            for (Throwable c = failed.getCause(); c != null; c = c.getCause()) {
                if (c instanceof ApplicationFailure app && app.getType() != null && app.getType().startsWith("Rejected.")) {
                    throw new RejectedException(id, app.getType(), app.getOriginalMessage());
                }
            }
            throw failed;
        }
    }

    private static long remaining(long deadline) throws TimeoutException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TimeoutException("the call's timeout passed");
        }
        return left;
    }

    @Override
    public void close() {
        calls.shutdownNow();
        service.shutdown();
        service.awaitTermination(5, TimeUnit.SECONDS);
    }
}
