package io.github.checkpointfinalizer.flink.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plugin hashes requests exactly as the contract's vectors say (the Go worker checks them). */
class ContentHashTest {

    @TestFactory
    List<DynamicTest> vectors() throws Exception {
        JsonNode root = new ObjectMapper().readTree(new File("../testdata/contenthash-vectors.json"));
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : root.get("vectors")) {
            tests.add(DynamicTest.dynamicTest(v.get("name").asText(), () -> {
                FinalizeRequest r = request(v.get("request"));
                assertEquals(v.get("canonical").asText(), ContentHash.canonical(r));
                assertEquals(v.get("contentHash").asText(), ContentHash.of(r));
            }));
        }
        assertTrue(tests.size() >= 10, "the vectors file lists its vectors");
        return tests;
    }

    /** Numbers read from their source text: they may exceed 2^63-1 (unsigned in the contract). */
    private static FinalizeRequest request(JsonNode r) {
        return new FinalizeRequest(
                r.get("cluster").asText(),
                r.get("job").asText(),
                Long.parseUnsignedLong(r.get("epoch").asText()),
                r.get("owner").asText(),
                Long.parseUnsignedLong(r.get("checkpoint").asText()),
                r.get("metadataKey").asText(),
                r.get("metadataSha256").asText(),
                r.has("exclusivePrefix") ? r.get("exclusivePrefix").asText() : null,
                r.has("savepoint") && r.get("savepoint").asBoolean(),
                r.has("maxPublishAttempts") ? Integer.parseUnsignedInt(r.get("maxPublishAttempts").asText()) : 0);
    }
}
