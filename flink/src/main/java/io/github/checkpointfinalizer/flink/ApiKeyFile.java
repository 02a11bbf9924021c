package io.github.checkpointfinalizer.flink;

import io.temporal.authorization.AuthorizationTokenSupplier;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Temporal API key read from a file, read again when the file changes, so that a rotated key
 * (replaced in a Kubernetes Secret) is sent from the next call on without a restart. The SDK asks
 * for the key on every call: the file is only looked at then (its attributes), and read when they
 * changed. A file that cannot be read or is empty (a rotation half written) keeps the last good key.
 */
final class ApiKeyFile implements AuthorizationTokenSupplier {
    private final Path path;
    private FileStamp stamp;
    private String current;

    /**
     * Reads the key once: a file missing or empty at start is a configuration error.
     *
     * @throws IOException when it cannot be read or holds no key
     */
    ApiKeyFile(Path path) throws IOException {
        this.path = path;
        this.stamp = FileStamp.of(path);
        this.current = read(path);
        if (current.isEmpty()) {
            throw new IOException(path + " is empty: it must hold the Temporal API key");
        }
    }

    @Override
    public synchronized String supply() {
        try {
            FileStamp now = FileStamp.of(path);
            if (!now.same(stamp)) {
                String key = read(path);
                if (!key.isEmpty()) {
                    current = key;
                    stamp = now;
                }
            }
        } catch (IOException | UncheckedIOException halfWritten) {
            // the last good key until the file is whole again
        }
        return current;
    }

    private static String read(Path path) throws IOException {
        return Files.readString(path, StandardCharsets.UTF_8).strip();
    }
}
