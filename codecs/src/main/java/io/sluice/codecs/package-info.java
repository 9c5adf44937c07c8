/**
 * Sluice codecs: zero-allocation JSON path extraction ({@link io.sluice.codecs.json}), Kafka-compatible murmur2
 * hashing ({@link io.sluice.codecs.hash}) and ClickHouse RowBinary writing with JSON-to-column conversions
 * ({@link io.sluice.codecs.rowbinary}).
 *
 * <p>Hot-path classes report expected outcomes as {@code int} return codes and allocate nothing in steady state.
 * Types in {@code io.sluice.codecs.internal} are implementation details shared between the packages; they are not
 * part of the supported API.
 */
package io.sluice.codecs;
