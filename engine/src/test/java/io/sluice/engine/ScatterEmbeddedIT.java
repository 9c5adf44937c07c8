package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.scatter.embedded.ScatterRouter;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * The embedded API on the real broker: the GitHub sample offered record by record and routed by {@code type} into
 * one topic per event type; every record's listener hears that it is in Kafka, and a plain consumer finds each
 * record once in the topic of its type. Also measures, per thread, what a record costs in allocation after
 * warm-up: the route stage (expected 0), the produce stage (Kafka's {@code ProducerRecord} and byte arrays, and what
 * {@code KafkaProducer.send} allocates) and the producer's I/O thread.
 */
class ScatterEmbeddedIT
{
    @Test
    void shouldDeliverEveryOfferedRecordIntoTheTopicOfItsTypeAndMeasureAllocation() throws Exception
    {
        final String prefix = "scatter-it-" + Long.toString(System.nanoTime(), 36) + ".gh.";
        // 128 KiB batches, not the default 16 KiB: kafka-clients' lz4 allocates two 64 KiB block buffers for every
        // batch it opens (Lz4BlockOutputStream), on the sending thread, which is the produce stage; with 16 KiB
        // batches of these events that is about 29 KiB per record (measured here), the client's and not Sluice's
        final SluiceConfig config = ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "%s"
            producer = { "batch.size" = "131072" }
            [[sources]]
            name = "alloc"
            kind = "embedded"
            create_topics = true
            [[sources.topics]]
            topic = { strategy = "field", path = "type", template = "%s{value}" }
            """.formatted(TestServices.bootstrap(), prefix));
        final List<byte[]> lines = TestServices.sampleLines();
        final Map<String, Long> expected = new TreeMap<>();
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("type")), 64);
        final JsonValueView v = new JsonValueView();
        final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);
        long bytes = 0;
        for (final byte[] line : lines)
        {
            scanner.scan(new UnsafeBuffer(line), 0, line.length);
            scanner.value(0, v);
            expected.merge(prefix + out.getStringWithoutLengthUtf8(0, RoutingValues.derive(v, out, 0)), 1L, Long::sum);
            bytes += line.length;
        }
        final UnsafeBuffer[] buffers = new UnsafeBuffer[lines.size()];
        for (int i = 0; i < buffers.length; i++)
        {
            buffers[i] = new UnsafeBuffer(lines.get(i));
        }

        final AtomicLong delivered = new AtomicLong();
        final Map<Long, String> failures = new ConcurrentHashMap<>();
        final DeliveryListener listener = new DeliveryListener()
        {
            @Override
            public void onDelivered(final long id, final String topic)
            {
                delivered.incrementAndGet();
            }

            @Override
            public void onFailed(final long id, final String reason)
            {
                failures.put(id, reason);
            }
        };
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        final Map<String, Long> perRecord = new HashMap<>();
        try (ScatterRouter router = ScatterRouter.open(config, "alloc", new KafkaScatterDriver()))
        {
            // the sample once, verified below; then warm-up rounds; then the measured rounds
            offerAll(router, buffers, 0, listener);
            awaitDelivered(delivered, lines.size(), failures);
            final int warmRounds = 3;
            final int measuredRounds = 6;
            for (int r = 1; r <= warmRounds; r++)
            {
                offerAll(router, buffers, r, listener);
            }
            awaitDelivered(delivered, (long)lines.size() * (1 + warmRounds), failures);
            final Map<String, Long> before = allocatedByThread(threads);
            final long start = System.nanoTime();
            for (int r = 1; r <= measuredRounds; r++)
            {
                offerAll(router, buffers, 1_000 + r, listener);
            }
            awaitDelivered(delivered, (long)lines.size() * (1 + warmRounds + measuredRounds), failures);
            final long nanos = System.nanoTime() - start;
            final Map<String, Long> after = allocatedByThread(threads);
            final long records = (long)lines.size() * measuredRounds;
            for (final Map.Entry<String, Long> e : after.entrySet())
            {
                final Long b = before.get(e.getKey());
                if (b != null)
                {
                    perRecord.put(e.getKey(), (e.getValue() - b) / records);
                }
            }
            System.out.printf("scatter embedded IT: %d records (%.0f bytes average value) in %.1f s = %.0f records/s; "
                + "allocation per record: route stage %d B, produce stage (ProducerRecord, byte[]s, KafkaProducer.send) "
                + "%d B, producer I/O thread %d B%n", records, (double)bytes / lines.size(), nanos / 1e9,
                records * 1e9 / nanos, perRecord.getOrDefault("alloc-route", -1L),
                perRecord.getOrDefault("alloc-produce", -1L),
                perRecord.getOrDefault("kafka-producer-network-thread | sluice-alloc", -1L));
        }
        assertTrue(failures.isEmpty(), failures.toString());
        assertEquals(0L, perRecord.get("alloc-route"), "the route stage allocates nothing per record");
        assertTrue(perRecord.get("alloc-produce") < 4 * bytes / lines.size() + 4096, "produce stage: " + perRecord);

        // the same without compression, to tell the client's compression from the rest of send()
        final SluiceConfig plain = ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "%s"
            producer = { "compression.type" = "none" }
            [[sources]]
            name = "alloc"
            kind = "embedded"
            create_topics = true
            [[sources.topics]]
            topic = { strategy = "field", path = "type", template = "%s{value}" }
            """.formatted(TestServices.bootstrap(), prefix));
        final long base = delivered.get();
        try (ScatterRouter router = ScatterRouter.open(plain, "alloc", new KafkaScatterDriver()))
        {
            for (int r = 1; r <= 3; r++)
            {
                offerAll(router, buffers, 2_000 + r, listener);
            }
            awaitDelivered(delivered, base + 3L * lines.size(), failures);
            final Map<String, Long> before = allocatedByThread(threads);
            for (int r = 1; r <= 6; r++)
            {
                offerAll(router, buffers, 3_000 + r, listener);
            }
            awaitDelivered(delivered, base + 9L * lines.size(), failures);
            final Map<String, Long> after = allocatedByThread(threads);
            final long records = 6L * lines.size();
            System.out.printf("scatter embedded IT, compression.type=none: allocation per record: route stage %d B, "
                + "produce stage %d B, producer I/O thread %d B%n",
                (after.get("alloc-route") - before.get("alloc-route")) / records,
                (after.get("alloc-produce") - before.get("alloc-produce")) / records,
                (after.get("kafka-producer-network-thread | sluice-alloc")
                    - before.get("kafka-producer-network-thread | sluice-alloc")) / records);
        }

        final Set<String> topics = new TreeSet<>();
        try (Admin admin = TestServices.admin())
        {
            for (final String t : admin.listTopics().names().get())
            {
                if (t.startsWith(prefix))
                {
                    topics.add(t);
                }
            }
        }
        assertEquals(expected.keySet(), topics);
        final Map<String, Long> firstRound = new TreeMap<>();
        final Map<String, Integer> seen = new HashMap<>();
        for (final ConsumerRecord<byte[], byte[]> r : ScatterEndToEndIT.readAll(topics))
        {
            final String value = new String(r.value(), StandardCharsets.UTF_8);
            if (seen.merge(value + "\u0000" + r.topic(), 1, Integer::sum) == 1)
            {
                firstRound.merge(r.topic(), 1L, Long::sum);
            }
        }
        assertEquals(expected, firstRound, "each sample record in the topic of its type");
        ScatterEndToEndIT.deleteTopics(topics);
    }

    private static void offerAll(final ScatterRouter router, final UnsafeBuffer[] buffers, final int round,
        final DeliveryListener listener)
    {
        for (int i = 0; i < buffers.length; i++)
        {
            final UnsafeBuffer b = buffers[i];
            while (router.offer(b, 0, b.capacity(), null, 0, -1, null, null, 0, (long)round << 32 | i,
                listener) == ScatterRouter.BACK_PRESSURED)
            {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private static void awaitDelivered(final AtomicLong delivered, final long count, final Map<Long, String> failures)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (delivered.get() < count && failures.isEmpty() && System.nanoTime() < deadline)
        {
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(failures.isEmpty(), failures.toString());
        assertEquals(count, delivered.get());
    }

    private static Map<String, Long> allocatedByThread(final com.sun.management.ThreadMXBean threads)
    {
        final Map<String, Long> out = new HashMap<>();
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            final long b = threads.getThreadAllocatedBytes(t.getId());
            if (b >= 0)
            {
                out.put(t.getName(), b);
            }
        }
        return out;
    }
}
