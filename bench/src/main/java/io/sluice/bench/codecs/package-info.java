/**
 * JMH benchmarks of the codecs on the bundled GitHub events: path extraction against Jackson, murmur2 against
 * Kafka's, RowBinary encoding, the duplicate-key policies; {@code scripts/bench-codecs.sh} runs them.
 */
package io.sluice.bench.codecs;
