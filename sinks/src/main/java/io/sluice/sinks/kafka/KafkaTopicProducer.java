package io.sluice.sinks.kafka;

import java.time.Duration;
import java.util.Properties;

import org.agrona.DirectBuffer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.Delivery;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.ringbuffers.RecordEvent;

/**
 * {@link TopicProducer} over one {@link KafkaProducer}: idempotent, {@code acks=all}, byte arrays in and out. The
 * record's value, key and headers are copied from the off-heap slot into the {@code byte[]}s and the
 * {@link ProducerRecord} that Kafka's API takes; that allocation, and what the client allocates inside
 * {@code send}, is the producer's and is measured separately from the engine's zero-allocation stages. The record's
 * timestamp is kept when the source had one (a Kafka source), else the producer stamps the send time.
 *
 * <p>Topics: Sluice sends only to topics it has seen exist (created or looked up through the admin client), so the
 * producer never creates one by accident. (kafka-clients has no producer-side {@code allow.auto.create.topics}: that
 * key is a consumer setting, and a producer's metadata request always allows creation; whether a broker creates
 * topics on metadata requests is its {@code auto.create.topics.enable}.)
 *
 * <p>Threads: one sending thread (the produce stage); {@link Delivery#onCompletion} runs on the client's I/O thread.
 */
public final class KafkaTopicProducer implements TopicProducer {
    private final KafkaProducer<byte[], byte[]> producer;

    /** @param properties producer properties, from {@link #properties} */
    public KafkaTopicProducer(final Properties properties) {
        this.producer = new KafkaProducer<>(properties);
    }

    /**
     * The producer's properties: Sluice's defaults, then the user's {@code [kafka.producer]}, then what Sluice's
     * guarantees need (idempotence, {@code acks=all}, byte-array serializers), which the user cannot override.
     *
     * @param kafka    [kafka]
     * @param clientId the client id (unless the user gave one)
     * @return the properties
     */
    public static Properties properties(final SluiceConfig.Kafka kafka, final String clientId) {
        final Properties p = new Properties();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(128 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.putAll(kafka.producer());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    @Override
    public void send(final String topic, final RecordEvent record, final Delivery delivery) {
        final byte[] value = copy(record.value(), record.valueLength());
        final byte[] key = copy(record.key(), record.keyLength());
        RecordHeaders headers = null;
        final int count = record.headerCount();
        if (count > 0) {
            headers = new RecordHeaders();
            for (int i = 0; i < count; i++) {
                final DirectBuffer name = record.headerName(i);
                final String headerName = name.getStringWithoutLengthUtf8(0, name.capacity());
                final DirectBuffer headerValue = record.headerValue();
                headers.add(headerName, headerValue == null ? null : copy(headerValue, headerValue.capacity()));
            }
        }
        final Long timestamp = record.timestampMs() > 0 ? record.timestampMs() : null;
        producer.send(new ProducerRecord<>(topic, null, timestamp, key, value, headers), delivery);
    }

    private static byte[] copy(final DirectBuffer b, final int length) {
        if (length < 0) {
            return null;
        }
        final byte[] out = new byte[length];
        b.getBytes(0, out, 0, length);
        return out;
    }

    @Override
    public void flush() {
        producer.flush();
    }

    @Override
    public void close(final long timeoutMs) {
        try {
            producer.close(Duration.ofMillis(timeoutMs));
        } catch (final RuntimeException e) {
            // closing: nothing left to do with it
        }
    }
}
