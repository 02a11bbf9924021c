package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job manager's Temporal credentials are rotated while the job runs, and checkpoints keep
 * completing with no failover only if the plugin read the new files. The plugin reads its TLS
 * settings from a temporal.toml profile, as a job manager does; the frontends are the harness's
 * ({@code flink/credentials_test.go}).
 *
 * <ul>
 *   <li>A client certificate about to expire, against the mTLS Temporal server, which sends every
 *       connection away after a few seconds: its files are replaced, and once it has expired every
 *       call goes over a connection shaken hands after the expiry.
 *   <li>An API key file, against a frontend that checks keys: the file is replaced and the old key
 *       revoked at once.
 * </ul>
 */
class CredentialRotationITCase extends ItBase {
    /** Long enough for the cluster to start and publish a few checkpoints on the first certificate, on 2 busy cores. */
    private static final Duration FIRST_VALID = Duration.ofSeconds(90);
    private static final List<String> REPORT = new ArrayList<>();
    private static Harness harness;

    @BeforeAll
    static void harness() {
        harness = new Harness(System.getenv());
    }

    @AfterAll
    static void report() throws Exception {
        String table = "| credential | checkpoints published before the rotation | after it took effect | restores |\n"
                + "|---|---|---|---|\n" + String.join("\n", REPORT) + "\n";
        Files.writeString(reportFile("rotation.md"), table);
        System.out.println(table);
    }

    @Test
    void rotatedCertificateWithoutFailover() throws Exception {
        Path cert = Path.of(harness.get("MTLS_CERT"));
        Path key = Path.of(harness.get("MTLS_KEY"));
        Duration recycled = Duration.parse("PT" + harness.get("MTLS_RECYCLED").toUpperCase());
        Instant expires = Instant.now().plus(FIRST_VALID);
        issue(cert, key, FIRST_VALID);

        String run = "rotation-cert-" + UUID.randomUUID();
        Configuration conf = env.flinkConfiguration("/" + run, RETAINED, harness.get("MTLS_CLUSTER"), harness.get("MTLS_TASK_QUEUE"));
        conf.set(FinalizerOptions.TEMPORAL_PROFILE, harness.get("MTLS_PROFILE"));
        acrossRotation("client certificate", run, conf, () -> {
            assertTrue(Instant.now().isBefore(expires), "the first certificate is still valid when it is rotated");
            // The new pair replaces the files one rename each, as a Secret mount or cert-manager does.
            Path next = Files.createTempDirectory(cert.getParent(), "next");
            issue(next.resolve("cert.pem"), next.resolve("key.pem"), Duration.ofHours(24));
            Files.move(next.resolve("key.pem"), key, StandardCopyOption.ATOMIC_MOVE);
            Files.move(next.resolve("cert.pem"), cert, StandardCopyOption.ATOMIC_MOVE);
            // Past the expiry by two recyclings: every call from then on shakes hands after it.
            return expires.plus(recycled.multipliedBy(2));
        });
    }

    @Test
    void rotatedApiKeyWithoutFailover() throws Exception {
        String first = "first-" + UUID.randomUUID();
        String second = "second-" + UUID.randomUUID();
        Path dir = Files.createTempDirectory("finalizer-api-key");
        Path keyFile = dir.resolve("api-key");
        Files.writeString(keyFile, first + "\n");
        accept(first);

        String run = "rotation-key-" + UUID.randomUUID();
        Configuration conf = configuration("/" + run);
        conf.set(FinalizerOptions.TEMPORAL_PROFILE, harness.get("APIKEY_PROFILE"));
        conf.set(FinalizerOptions.TEMPORAL_API_KEY_FILE, keyFile.toString());
        acrossRotation("API key", run, conf, () -> {
            Path next = dir.resolve("next");
            Files.writeString(next, second + "\n");
            Files.move(next, keyFile, StandardCopyOption.ATOMIC_MOVE);
            accept(second);
            return Instant.now();
        });
    }

    /**
     * Runs a job until it published 3 checkpoints, rotates, and once the rotation took effect (the
     * old credential refused from then on) requires 3 more checkpoints, the job running throughout
     * and never restored, and its output exact.
     */
    private void acrossRotation(String credential, String run, Configuration conf, Rotation rotation) throws Exception {
        // Address, namespace and TLS come from the profile alone.
        conf.removeConfig(FinalizerOptions.TEMPORAL_ADDRESS);
        conf.removeConfig(FinalizerOptions.TEMPORAL_NAMESPACE);
        CheckingJob.Run r = new CheckingJob.Run(2000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        int before;
        int settledAt;
        try (MiniCluster cluster = start(conf)) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("3 checkpoints published on the first " + credential, Duration.ofMinutes(2), () -> r.published.get() >= 3);
            int restores = r.restores.get();
            before = r.published.get();
            Instant settled = rotation.rotate();
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), settled).toMillis()));
            settledAt = r.published.get();
            await("3 more checkpoints published once only the new " + credential + " is accepted", Duration.ofMinutes(1),
                    () -> r.published.get() >= settledAt + 3);
            assertEquals(JobStatus.RUNNING, cluster.getJobStatus(jobId).get(10, TimeUnit.SECONDS));
            assertEquals(restores, r.restores.get(), "no failover: the job was never restored across the rotation");

            await("every element emitted", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = cluster.requestJobResult(jobId).get(3, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
        }
        REPORT.add("| " + credential + " | " + before + " | " + (r.published.get() - settledAt) + " | " + r.restores.get() + " |");
        assertNull(r.outputProblem(), "exactly-once output across the rotation");
    }

    /** Asks the harness for a client certificate signed by the mTLS frontend's CA, valid for that long. */
    private static void issue(Path cert, Path key, Duration valid) throws Exception {
        post("/issue?cert=" + enc(cert.toString()) + "&key=" + enc(key.toString()) + "&valid=" + valid.toSeconds() + "s");
    }

    /** The only API key the key-checking frontend accepts from now on. */
    private static void accept(String key) throws Exception {
        post("/accept?key=" + enc(key));
    }

    private static void post(String pathAndQuery) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(harness.get("MTLS_CONTROL") + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, res.statusCode(), res.body());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Replaces a credential; returns the moment from which only the new one is accepted. */
    @FunctionalInterface
    private interface Rotation {
        Instant rotate() throws Exception;
    }

    /** The harness's FINALIZER_IT_* variables of these scenarios: a missing one fails the test, never skips it. */
    private record Harness(Map<String, String> vars) {
        String get(String name) {
            String v = vars.get("FINALIZER_IT_" + name);
            if (v == null) {
                throw new IllegalStateException("run these tests through the Go harness (go test ./flink); missing"
                        + " FINALIZER_IT_" + name);
            }
            return v;
        }
    }
}
