/**
 * Sluice codecs: zero-allocation JSON path extraction ({@link io.sluice.codecs.json}), Kafka-compatible murmur2
 * hashing ({@link io.sluice.codecs.hash}) and ClickHouse RowBinary writing with JSON-to-column conversions
 * ({@link io.sluice.codecs.rowbinary}).
 *
 * <p>Hot-path classes report expected outcomes as {@code int} return codes and allocate nothing in steady state.
 * Implementation details (the validating lexer, number and date parsing, zone tables, the encoder variants) are
 * package-private classes next to the public API they serve.
 */
package io.sluice.codecs;
