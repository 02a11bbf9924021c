package io.github.checkpointfinalizer.flink;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A rotated API key is what the next call sends; a file half written keeps the last good key. */
class ApiKeyFileTest {
    @TempDir
    Path dir;

    @Test
    void rotatedKeyIsSentFromTheNextCall() throws Exception {
        Path file = dir.resolve("api-key");
        Files.writeString(file, "first\n");
        ApiKeyFile key = new ApiKeyFile(file);
        assertEquals("first", key.supply());

        // A Secret mount replaces the file by a rename.
        Path next = dir.resolve("next");
        Files.writeString(next, "second-key\n");
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE);
        assertEquals("second-key", key.supply());

        Files.writeString(file, "");
        assertEquals("second-key", key.supply(), "an empty file keeps the last good key");
        Files.delete(file);
        assertEquals("second-key", key.supply(), "a missing file keeps the last good key");
        Files.writeString(file, "third");
        assertEquals("third", key.supply());
    }

    @Test
    void emptyOrMissingAtStartIsAnError() throws Exception {
        Path file = dir.resolve("api-key");
        Files.writeString(file, " \n");
        IOException empty = assertThrows(IOException.class, () -> new ApiKeyFile(file));
        assertTrue(empty.getMessage().contains("is empty"), empty.getMessage());
        assertThrows(IOException.class, () -> new ApiKeyFile(dir.resolve("absent")));
    }
}
