package io.github.checkpointfinalizer.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

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
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job manager's client certificate is rotated while the job runs, as with short-lived
 * certificates: the plugin starts with one about to expire, its files are replaced with a new one,
 * and once the first has expired the frontend has sent every connection away, so every call goes
 * over a connection shaken hands after the expiry. Checkpoints keep completing with no failover
 * only if the plugin read the new files. Temporal is the harness's server with an mTLS frontend
 * ({@code flink/credentials_test.go}); the plugin reads its TLS settings from a temporal.toml
 * profile, as a job manager does.
 */
class CredentialRotationITCase extends ItBase {
    /** Long enough for the cluster to start and publish a few checkpoints on the first one. */
    private static final Duration FIRST_VALID = Duration.ofSeconds(40);

    @Test
    void rotatedCertificateWithoutFailover() throws Exception {
        Harness env = Harness.fromEnv();
        Path cert = Path.of(env.get("CERT"));
        Path key = Path.of(env.get("KEY"));
        Duration recycled = Duration.parse("PT" + env.get("RECYCLED").toUpperCase());
        Instant expires = Instant.now().plus(FIRST_VALID);
        issue(env, cert, key, FIRST_VALID);

        String run = "rotation-" + UUID.randomUUID();
        CheckingJob.Run r = new CheckingJob.Run(2000, 0);
        CheckingJob.RUNS.put(run, r);
        JobID jobId = new JobID();
        Configuration conf = ItBase.env.flinkConfiguration("/" + run, RETAINED, env.get("CLUSTER"), env.get("TASK_QUEUE"));
        // Address, namespace and TLS come from the profile alone.
        conf.removeConfig(FinalizerOptions.TEMPORAL_ADDRESS);
        conf.removeConfig(FinalizerOptions.TEMPORAL_NAMESPACE);
        conf.set(FinalizerOptions.TEMPORAL_PROFILE, env.get("PROFILE"));
        try (MiniCluster cluster = start(conf)) {
            cluster.submitJob(CheckingJob.graph(run, jobId, INTERVAL)).get();
            await("3 checkpoints published on the first certificate", Duration.ofMinutes(2), () -> r.published.get() >= 3);
            assertTrue(Instant.now().isBefore(expires), "the first certificate is still valid when it is rotated");
            int restores = r.restores.get();

            // The new pair replaces the files one rename each, as a Secret mount or cert-manager does.
            Path next = Files.createTempDirectory(cert.getParent(), "next");
            issue(env, next.resolve("cert.pem"), next.resolve("key.pem"), Duration.ofHours(24));
            Files.move(next.resolve("key.pem"), key, StandardCopyOption.ATOMIC_MOVE);
            Files.move(next.resolve("cert.pem"), cert, StandardCopyOption.ATOMIC_MOVE);
            int atRotation = r.published.get();

            // Past the expiry by two recyclings: every call from now on shakes hands after it.
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), expires).plus(recycled.multipliedBy(2)).toMillis()));
            int afterExpiry = r.published.get();
            await("3 more checkpoints published after the first certificate expired", Duration.ofMinutes(1),
                    () -> r.published.get() >= afterExpiry + 3);
            assertEquals(JobStatus.RUNNING, cluster.getJobStatus(jobId).get(10, TimeUnit.SECONDS));
            assertEquals(restores, r.restores.get(), "no failover: the job was never restored across the rotation");

            await("every element emitted", Duration.ofMinutes(2), () -> r.emitted.get() >= r.elements);
            r.released = true;
            JobResult result = cluster.requestJobResult(jobId).get(3, TimeUnit.MINUTES);
            assertTrue(result.isSuccess(), "the job finished: " + result.getSerializedThrowable());
            String table = "| published on the first certificate | after its expiry | restores |\n|---|---|---|\n| "
                    + atRotation + " | " + (r.published.get() - afterExpiry) + " | " + r.restores.get() + " |\n";
            Files.writeString(reportFile("rotation.md"), table);
            System.out.println(table);
        }
        assertNull(r.outputProblem(), "exactly-once output across the rotation");
    }

    /** Asks the harness for a client certificate signed by the frontend's CA, valid for that long. */
    private static void issue(Harness env, Path cert, Path key, Duration valid) throws Exception {
        String q = "cert=" + enc(cert) + "&key=" + enc(key) + "&valid=" + valid.toSeconds() + "s";
        HttpRequest req = HttpRequest.newBuilder(URI.create(env.get("CONTROL") + "/issue?" + q))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, res.statusCode(), res.body());
    }

    private static String enc(Path p) {
        return URLEncoder.encode(p.toString(), StandardCharsets.UTF_8);
    }

    /** The harness's FINALIZER_IT_MTLS_* variables: a missing one fails the test, never skips it. */
    private record Harness(java.util.Map<String, String> vars) {
        static Harness fromEnv() {
            return new Harness(System.getenv());
        }

        String get(String name) {
            String v = vars.get("FINALIZER_IT_MTLS_" + name);
            if (v == null) {
                throw new IllegalStateException("run these tests through the Go harness (go test ./flink); missing"
                        + " FINALIZER_IT_MTLS_" + name);
            }
            return v;
        }
    }
}
