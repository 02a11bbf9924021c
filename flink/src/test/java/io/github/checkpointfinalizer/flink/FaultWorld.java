package io.github.checkpointfinalizer.flink;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The side-by-side scenario's faults and the faulted worker's store, reached through the Go
 * harness ({@code flink/faults_test.go}): it owns the ZooKeeper fault proxies and the store's format.
 */
record FaultWorld(String taskQueue, String cluster, String control, String flinkZooKeeperProxy, String temporalProxy) {
    static final String WORKER = "worker";
    static final String FLINK = "flink";

    static FaultWorld fromEnv() {
        String control = System.getenv("FINALIZER_IT_FAULT_CONTROL");
        if (control == null) {
            throw new IllegalStateException("run these tests through the Go harness (go test ./flink)");
        }
        return new FaultWorld(System.getenv("FINALIZER_IT_FAULT_TASK_QUEUE"), System.getenv("FINALIZER_IT_FAULT_CLUSTER"),
                control, System.getenv("FINALIZER_IT_FLINK_ZOOKEEPER_PROXY"), System.getenv("FINALIZER_IT_TEMPORAL_PROXY"));
    }

    /** Arms a fault on a proxy: drop-write-reply (once), partition (until heal) or heal. */
    void fault(String proxy, String fault) throws Exception {
        send(HttpRequest.newBuilder(URI.create(control + "/fault?proxy=" + proxy + "&fault=" + fault))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    /** Takes the faulted worker away (pause) or brings it back (resume). */
    void worker(String state) throws Exception {
        send(HttpRequest.newBuilder(URI.create(control + "/worker?state=" + state))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    /** Black-holes Temporal for whoever reaches it through {@link #temporalProxy} (partition), or heals. */
    void temporal(String fault) throws Exception {
        send(HttpRequest.newBuilder(URI.create(control + "/temporal?fault=" + fault))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    static final String MAIN_STORE = "main";
    static final String FAULTED_STORE = "faults";

    /** The checkpoint IDs a worker's store (MAIN_STORE or FAULTED_STORE) references for the job. */
    List<Long> references(String store, String job) throws Exception {
        String body = send(HttpRequest.newBuilder(URI.create(control + "/references?store=" + store + "&job=" + job))
                .GET().build());
        List<Long> ids = new ArrayList<>();
        for (String n : body.replaceAll("[\\[\\]\\s]", "").split(",")) {
            if (!n.isEmpty()) {
                ids.add(Long.parseLong(n));
            }
        }
        return ids;
    }

    private static String send(HttpRequest req) throws Exception {
        HttpResponse<String> res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) {
            throw new IllegalStateException(req.uri() + ": " + res.statusCode() + " " + res.body());
        }
        return res.body();
    }
}
