package io.sluice.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads and writes whole records (key, value, headers, partition) on the test broker with plain Kafka clients: what
 * the ITs of dead letters, replay and metadata columns check the engine against.
 */
final class KafkaRecords
{
    private KafkaRecords()
    {
    }

    /** Produces records with acks=all, one in flight, and returns their metadata (every send checked). */
    static List<RecordMetadata> produce(final List<ProducerRecord<byte[], byte[]>> records) throws Exception
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (final ProducerRecord<byte[], byte[]> r : records)
            {
                sends.add(producer.send(r));
            }
            producer.flush();
        }
        final List<RecordMetadata> out = new ArrayList<>();
        for (final Future<RecordMetadata> f : sends)
        {
            out.add(f.get());
        }
        return out;
    }

    /**
     * Every record of a topic, ordered by partition then offset.
     *
     * @param topic a topic that exists
     * @return its records
     */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final String topic) throws Exception
    {
        final List<TopicPartition> parts = new ArrayList<>();
        try (Admin a = TestServices.admin())
        {
            final TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            d.partitions().forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
        }
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p))
        {
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> end = c.endOffsets(parts);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!parts.stream().allMatch(tp -> c.position(tp) >= end.get(tp)))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("could not read " + topic + " to its end " + end);
                }
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        out.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
            .thenComparingLong(ConsumerRecord::offset));
        return out;
    }

    /** @return whether the topic exists */
    static boolean exists(final String topic) throws Exception
    {
        try (Admin a = TestServices.admin())
        {
            return a.listTopics().names().get().contains(topic);
        }
    }

    /** @return the last header of a name as UTF-8, or null */
    static String header(final ConsumerRecord<byte[], byte[]> r, final String name)
    {
        final Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** @return the record's headers that do not start with a prefix, in order, as name=value text */
    static List<String> ownHeaders(final ConsumerRecord<byte[], byte[]> r, final String... skipPrefixes)
    {
        final List<String> out = new ArrayList<>();
        outer : for (final Header h : r.headers())
        {
            for (final String s : skipPrefixes)
            {
                if (h.key().startsWith(s))
                {
                    continue outer;
                }
            }
            out.add(h.key() + "=" + (h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8)));
        }
        return out;
    }

    /** @return text as UTF-8 bytes */
    static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
