package io.github.checkpointfinalizer.flink.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The request's content hash, the memo "contentHash" a FinalizeCheckpoint start carries, so that
 * a second trigger of the same identity with other content is refused. It is the SHA-256 of the
 * canonical form's UTF-8 bytes; the form and its rules are the contract's (Go's
 * {@code FinalizeRequest.CanonicalContent}), pinned by testdata/contenthash-vectors.json.
 */
public final class ContentHash {
    private ContentHash() {}

    /** The lowercase hex SHA-256 of {@link #canonical(FinalizeRequest)}. Valid requests only. */
    public static String of(FinalizeRequest r) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(canonical(r).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * The canonical form: members in the contract's order, no whitespace, exclusivePrefix left out
     * when empty, savepoint when false, maxPublishAttempts always written (3 when 0). Strings go
     * between quotes as they are: a valid request holds no character JSON escapes.
     */
    public static String canonical(FinalizeRequest r) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"cluster\":\"").append(r.cluster()).append('"');
        b.append(",\"job\":\"").append(r.job()).append('"');
        b.append(",\"epoch\":").append(Long.toUnsignedString(r.epoch()));
        b.append(",\"checkpoint\":").append(Long.toUnsignedString(r.checkpoint()));
        b.append(",\"metadataKey\":\"").append(r.metadataKey()).append('"');
        b.append(",\"metadataSha256\":\"").append(r.metadataSha256()).append('"');
        if (r.exclusivePrefix() != null && !r.exclusivePrefix().isEmpty()) {
            b.append(",\"exclusivePrefix\":\"").append(r.exclusivePrefix()).append('"');
        }
        if (r.savepoint()) {
            b.append(",\"savepoint\":true");
        }
        b.append(",\"maxPublishAttempts\":").append(Integer.toUnsignedString(r.maxAttempts()));
        return b.append('}').toString();
    }
}
