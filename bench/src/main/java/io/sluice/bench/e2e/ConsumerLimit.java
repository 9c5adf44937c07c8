package io.sluice.bench.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.sluice.core.engine.ProcessMeter;

/**
 * The Kafka limit of the end-to-end benchmark: what {@code kafka-consumer-perf-test} measures, one
 * {@link KafkaConsumer} polling every partition of the topic from the beginning and counting records and value
 * bytes, no processing. Same fetch settings as Sluice's source. Partitions are assigned (no group join), so the
 * window is first record to last record.
 *
 * <pre>
 * java -cp benchmarks.jar io.sluice.bench.e2e.ConsumerLimit --bootstrap-servers H:P --topic T [--json OUT]
 * </pre>
 */
public final class ConsumerLimit
{
    private ConsumerLimit()
    {
    }

    /**
     * @param args {@code --bootstrap-servers H:P --topic T [--json OUT]}
     */
    public static void main(final String[] args) throws Exception
    {
        final ProcessMeter meter = new ProcessMeter();
        String bootstrap = "127.0.0.1:19092";
        String topic = null;
        Path json = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--bootstrap-servers" -> bootstrap = args[++i];
                case "--topic" -> topic = args[++i];
                case "--json" -> json = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (topic == null)
        {
            throw new IllegalArgumentException("usage: ConsumerLimit --bootstrap-servers H:P --topic T [--json OUT]");
        }
        final Properties p = consumerProperties(bootstrap);
        long records = 0;
        long bytes = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p))
        {
            final long total = assignFromBeginning(consumer, topic);
            while (records < total)
            {
                final ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty())
                {
                    continue;
                }
                if (!meter.windowStarted())
                {
                    meter.windowStart();
                }
                for (final ConsumerRecord<byte[], byte[]> r : batch)
                {
                    records++;
                    bytes += r.serializedValueSize();
                }
            }
            meter.windowEnd();
        }
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("contender", "kafka-limit");
        r.put("records", records);
        r.put("rows", records);
        r.put("bytes_in", bytes);
        r.putAll(meter.results());
        final String text = ProcessMeter.toJson(r);
        System.out.println(text);
        if (json != null)
        {
            Files.writeString(json, text + "\n");
        }
    }

    /**
     * The consumer settings every limit measurement reads with: byte arrays, no group commits, large fetches.
     *
     * @param bootstrap the brokers
     * @return fresh properties
     */
    static Properties consumerProperties(final String bootstrap)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(32 << 20));
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(8 << 20));
        p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, String.valueOf(1 << 20));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    /**
     * Assigns every partition of the topic to the consumer, from its beginning.
     *
     * @return the records the topic holds (end minus beginning offsets, summed)
     */
    static long assignFromBeginning(final KafkaConsumer<?, ?> consumer, final String topic)
    {
        final List<TopicPartition> tps = new ArrayList<>();
        for (final PartitionInfo pi : consumer.partitionsFor(topic, Duration.ofSeconds(30)))
        {
            tps.add(new TopicPartition(topic, pi.partition()));
        }
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        final Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
        final Map<TopicPartition, Long> begins = consumer.beginningOffsets(tps, Duration.ofSeconds(30));
        long total = 0;
        for (final TopicPartition tp : tps)
        {
            total += ends.get(tp) - begins.get(tp);
        }
        return total;
    }
}
