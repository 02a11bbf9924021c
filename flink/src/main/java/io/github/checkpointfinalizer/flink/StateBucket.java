package io.github.checkpointfinalizer.flink;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.net.URI;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The worker's state bucket as Flink's file systems see it: the root URI every checkpoint path
 * lies under, and the bucket key of a path below it (what the contract's metadataKey and
 * exclusivePrefix hold).
 */
final class StateBucket {
    private final URI root;

    private StateBucket(URI root) {
        this.root = root;
    }

    /** The bucket at {@code root}: a URI with a scheme, e.g. s3://flink-state or file:///data. */
    static StateBucket of(String root) {
        if (root == null || root.isBlank()) {
            throw new IllegalConfigurationException(
                    FinalizerOptions.STATE_BUCKET.key() + " is required: the root of the worker's"
                            + " state bucket as Flink names it (s3://flink-state, file:///data/state)");
        }
        URI uri = new Path(root).toUri();
        if (uri.getScheme() == null) {
            throw new IllegalConfigurationException(
                    FinalizerOptions.STATE_BUCKET.key() + " " + root + " must name its scheme (s3://, file://, ...)");
        }
        return new StateBucket(uri);
    }

    /**
     * The bucket key of a path below the root, without a leading slash.
     *
     * @throws IllegalArgumentException when the path lies outside the bucket
     */
    String key(Path path) {
        URI uri = path.toUri();
        String rootPath = trimSlash(root.getPath());
        String p = uri.getPath();
        boolean sameBucket = root.getScheme().equals(uri.getScheme())
                && java.util.Objects.equals(emptyToNull(root.getAuthority()), emptyToNull(uri.getAuthority()));
        if (!sameBucket || !(p.startsWith(rootPath + "/"))) {
            throw new IllegalArgumentException(path + " lies outside the state bucket " + root
                    + " (" + FinalizerOptions.STATE_BUCKET.key() + "): the worker could not read it");
        }
        return p.substring(rootPath.length() + 1);
    }

    /** The path of a bucket key. */
    Path path(String key) {
        return new Path(root.getScheme(), root.getAuthority(), trimSlash(root.getPath()) + "/" + key);
    }

    /** The lowercase hex SHA-256 of the file's bytes (the contract's metadataSha256). */
    static String sha256(Path file) throws IOException {
        MessageDigest sha = sha256();
        try (FSDataInputStream in = file.getFileSystem().open(file);
                DigestInputStream digest = new DigestInputStream(in, sha)) {
            digest.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return hex(sha);
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The digest so far, as the contract writes it: lowercase hex. */
    static String hex(MessageDigest sha) {
        return HexFormat.of().formatHex(sha.digest());
    }

    @Override
    public String toString() {
        return root.toString();
    }

    private static String trimSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
