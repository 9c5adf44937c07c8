/**
 * The Kafka side of scatter: {@link io.sluice.sinks.kafka.KafkaScatterDriver} makes the admin client
 * ({@link io.sluice.sinks.kafka.KafkaTopicAdmin}: topic lookup and creation on first use) and the routing producer
 * ({@link io.sluice.sinks.kafka.KafkaTopicProducer}: idempotent, {@code acks=all}, no automatic topic creation) that a
 * scatter pipeline uses, with the security settings every Kafka client of the engine takes.
 *
 * <p>Threads: the producer is driven by one thread, the produce stage; its completions arrive on the client's I/O
 * thread. The admin client is used by the pipeline's admin thread only.
 */
package io.sluice.sinks.kafka;
