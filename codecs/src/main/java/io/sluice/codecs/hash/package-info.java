/**
 * Kafka-compatible hashing: {@link io.sluice.codecs.hash.Murmur2} computes the same 32-bit murmur2 as Kafka's
 * {@code org.apache.kafka.common.utils.Utils.murmur2} and the same bucket as Kafka's default partitioner.
 */
package io.sluice.codecs.hash;
