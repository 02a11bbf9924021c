package io.github.checkpointfinalizer.flink;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.ClientConfigTLS;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

import org.apache.flink.configuration.Configuration;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the plugin reaches Temporal, as the worker does: the temporal.toml profile and TEMPORAL_*
 * variables (temporal-envconfig), then the plugin's keys over them. Unlike the profile's own
 * options, the client certificate files and the API key file are read again when they change
 * (ReloadingKeyManager, ApiKeyFile): a rotation needs no restart of the job manager.
 */
record TemporalConnection(WorkflowServiceStubsOptions stubs, WorkflowClientOptions client) {

    static TemporalConnection of(Configuration conf) throws IOException {
        LoadClientConfigProfileOptions.Builder load = LoadClientConfigProfileOptions.newBuilder();
        conf.getOptional(FinalizerOptions.TEMPORAL_PROFILE).ifPresent(load::setConfigFileProfile);
        ClientConfigProfile.Builder profile = ClientConfigProfile.load(load.build()).toBuilder();
        conf.getOptional(FinalizerOptions.TEMPORAL_ADDRESS).ifPresent(profile::setAddress);
        conf.getOptional(FinalizerOptions.TEMPORAL_NAMESPACE).ifPresent(profile::setNamespace);
        Optional<String> keyFile = conf.getOptional(FinalizerOptions.TEMPORAL_API_KEY_FILE);
        if (keyFile.isPresent()) {
            // The file's key replaces the profile's, which would be sent besides it.
            profile.setApiKey(null);
        }
        ClientConfigProfile p = profile.build();
        WorkflowServiceStubsOptions.Builder stubs = WorkflowServiceStubsOptions.newBuilder(p.toWorkflowServiceStubsOptions());
        ClientConfigTLS tls = p.getTls();
        boolean tlsOn = tls != null && !Boolean.FALSE.equals(tls.isDisabled());
        if (tlsOn) {
            stubs.setSslContext(sslContext(tls));
        }
        if (keyFile.isPresent()) {
            stubs.addApiKey(new ApiKeyFile(Path.of(keyFile.get())));
            // An API key never travels in clear: TLS with the system's roots unless configured.
            stubs.setEnableHttps(!tlsOn);
        }
        return new TemporalConnection(stubs.build(), p.toWorkflowClientOptions());
    }

    /**
     * The profile's TLS as the SDK builds it, but with a client certificate from files read again
     * at each handshake when they changed.
     */
    private static SslContext sslContext(ClientConfigTLS tls) throws IOException {
        SslContextBuilder b = GrpcSslContexts.forClient();
        byte[] ca = filled(tls.getServerCACertPath()) ? Files.readAllBytes(Path.of(tls.getServerCACertPath()))
                : tls.getServerCACertData();
        if (ca != null && ca.length > 0) {
            try (InputStream in = new ByteArrayInputStream(ca)) {
                b.trustManager(in);
            }
        } else if (Boolean.TRUE.equals(tls.isDisableHostVerification())) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        if (filled(tls.getClientCertPath()) && filled(tls.getClientKeyPath())) {
            b.keyManager(new ReloadingKeyManager(Path.of(tls.getClientCertPath()), Path.of(tls.getClientKeyPath())));
        } else if (tls.getClientCertData() != null && tls.getClientCertData().length > 0) {
            try (InputStream cert = new ByteArrayInputStream(tls.getClientCertData());
                    InputStream key = new ByteArrayInputStream(tls.getClientKeyData())) {
                b.keyManager(cert, key);
            }
        }
        return b.build();
    }

    private static boolean filled(String s) {
        return s != null && !s.isEmpty();
    }
}
