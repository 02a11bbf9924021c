/**
 * The workflow contract's JSON payloads, field for field as the Go package {@code contract}
 * defines them (see docs/contract.md). A leaf package: it depends on nothing of Flink or
 * Temporal, so its records can be checked against the schemas in {@code schemas/} alone.
 *
 * <p>Numbers the contract declares unsigned 64-bit are Java {@code long}s: Flink's checkpoint IDs
 * and the plugin's epochs stay far below 2^63.
 */
package io.github.checkpointfinalizer.flink.wire;
