package io.github.checkpointfinalizer.flink.cluster.bundling;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.base.Strings;
import com.google.common.hash.Hashing;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelProvider;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.serviceclient.Version;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A job that bundles its own Temporal SDK, gRPC, protobuf, Guava and Jackson (bundling/pom.xml
 * says which versions, each another than the plugin's) and uses them in its operator: every
 * record goes through Temporal's data converter (Jackson and protobuf) and Guava's hashing, and the
 * operator builds a gRPC channel builder (gRPC's provider registry). Run on a cluster whose lib/ holds
 * the plugin, with parent-first class loading, it shows whether any of those classes comes from
 * elsewhere than the job's jar.
 *
 * <p>Arguments: {@code --dir DIR}. The operator writes {@code DIR/origins}, one line per class
 * it checked ("class where-it-was-loaded-from own|FOREIGN") and the versions it runs on, then
 * fails the job (no restart) if any class is foreign or any version is not the bundled one; the
 * job finishes otherwise.
 */
public final class BundlingJob {
    private BundlingJob() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !"--dir".equals(args[0])) {
            throw new IllegalArgumentException("usage: --dir DIR");
        }
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.fromSequence(1, 1000)
                .map(new RoundTrip(args[1])).uid("round-trip")
                .sinkTo(new DiscardingSink<>());
        env.execute("bundling-job");
    }

    /** Round-trips each number through the bundled libraries, after checking where they are from. */
    static final class RoundTrip extends RichMapFunction<Long, String> {
        private static final long serialVersionUID = 1L;
        private final String dir;
        private transient DataConverter converter;
        private transient ObjectMapper mapper;

        RoundTrip(String dir) {
            this.dir = dir;
        }

        @Override
        public void open(OpenContext openContext) throws Exception {
            List<String> lines = new ArrayList<>();
            boolean foreign = false;
            URL own = origin(BundlingJob.class);
            // A builder from gRPC's provider registry, which finds the provider by its service file;
            // no channel: its shared event loop would outlive the job's class loader.
            ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget("127.0.0.1:1").usePlaintext();
            for (Class<?> c : List.of(Version.class, Payload.class, DefaultDataConverter.class, ManagedChannelBuilder.class,
                    ManagedChannelProvider.provider().getClass(), builder.getClass(), Message.class, ByteString.class,
                    Strings.class, Hashing.class, ObjectMapper.class)) {
                URL from = origin(c);
                boolean ours = own.equals(from);
                foreign |= !ours;
                lines.add(c.getName() + " " + from + " " + (ours ? "own" : "FOREIGN"));
            }
            Properties bundled = new Properties();
            try (InputStream in = BundlingJob.class.getResourceAsStream("/bundling-versions.properties")) {
                bundled.load(in);
            }
            String jackson = com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString();
            lines.add("temporal " + Version.LIBRARY_VERSION + " bundled " + bundled.getProperty("temporal"));
            lines.add("jackson " + jackson + " bundled " + bundled.getProperty("jackson"));
            boolean versions = Version.LIBRARY_VERSION.equals(bundled.getProperty("temporal"))
                    && jackson.equals(bundled.getProperty("jackson"));
            write(Path.of(dir, "origins"), String.join("\n", lines) + "\n");
            if (foreign || !versions) {
                throw new IllegalStateException("the job does not run on the libraries it bundles:\n" + String.join("\n", lines));
            }
            converter = DefaultDataConverter.newDefaultInstance();
            mapper = new ObjectMapper();
        }

        @Override
        public String map(Long n) throws Exception {
            Payload p = converter.toPayload(Map.of("n", n, "hash", Hashing.sha256().hashLong(n).toString())).orElseThrow();
            Payload copy = Payload.parseFrom(p.toByteString());
            @SuppressWarnings("unchecked")
            Map<String, Object> back = converter.fromPayload(copy, Map.class, Map.class);
            if (((Number) back.get("n")).longValue() != n) {
                throw new IllegalStateException("round trip of " + n + " gave " + back);
            }
            return Strings.padStart(Long.toString(n), 4, '0') + " " + mapper.writeValueAsString(back);
        }

        private static URL origin(Class<?> c) {
            return c.getProtectionDomain().getCodeSource().getLocation();
        }

        private static void write(Path path, String content) throws IOException {
            Files.createDirectories(path.getParent());
            Path tmp = Files.createTempFile(path.getParent(), "origins", ".tmp");
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
