package io.github.checkpointfinalizer.flink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * Tells whether a file changed since it was last read: another file renamed over it (the way a
 * Kubernetes Secret mount or cert-manager replaces it: a new file key behind the same path) or new
 * content (another modification time or size). Links are followed, as a Secret mount's are.
 */
record FileStamp(Object fileKey, FileTime modified, long size) {

    static FileStamp of(Path path) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        return new FileStamp(a.fileKey(), a.lastModifiedTime(), a.size());
    }

    /** Whether both describe the same content; a stamp without a file key never matches. */
    boolean same(FileStamp o) {
        return o != null && fileKey != null && Objects.equals(fileKey, o.fileKey) && modified.equals(o.modified)
                && size == o.size;
    }
}
