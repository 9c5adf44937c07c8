package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.header;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.scatter.ProduceErrors;
import io.sluice.core.scatter.internal.ScatterPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 12 item 7 and case T7 on the real broker: what the broker refuses for good is never retried. A topic Kafka 4
 * refuses to create ({@code x_eu} while {@code x.eu} exists), a Kafka internal topic ({@code __consumer_offsets}), a
 * record above a topic's {@code max.message.bytes}, and headers above the producer's {@code max.request.size}: each
 * record goes to the rule's fallback (counted), else to the source's dead-letter topic, else the run stops at once
 * (well before {@code stalled_fail_after_ms}) naming the record, the topic and the broker's error; every other record
 * is produced exactly once (none is re-sent by a retry) and the offsets commit to the end, or not past the record.
 */
class RefusedTopicsIT
{
    /** Far above what any of these runs takes: a stop "at once" is checked against a quarter of it. */
    static final long STALL_MS = 60_000;

    record Run(int exit, long millis, String failure, ScatterPipeline pipeline,
        Map<TopicPartition, Long> committed)
    {
    }

    static Run run(final String input, final String group, final String sourceKeys, final String topicRule)
        throws ExecutionException, InterruptedException
    {
        final String toml = "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\nstalled_fail_after_ms = " + STALL_MS + "\ncommit_interval_ms = 100\n"
            + "[[sources]]\nname = \"t7\"\nkind = \"kafka\"\ninput_topics = [\"" + input + "\"]\ngroup_id = \"" + group
            + "\"\nauto_offset_reset = \"earliest\"\nretry_backoff_ms = 100\nretry_backoff_max_ms = 500\n" + sourceKeys
            + "[[sources.topics]]\ntopic = " + topicRule + "\n";
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(),
            c -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(true));
        final long start = System.nanoTime();
        final int exit = engine.run();
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Run(exit, ms, engine.failure(), engine.scatters().get(0), TestServices.committed(group));
    }

    static String field(final String template, final String fallback)
    {
        return "{ strategy = \"field\", path = \"r\", template = \"" + template + "\""
            + (fallback == null ? "" : ", fallback = \"" + fallback + "\"") + " }";
    }

    static List<byte[]> values(final String... routes)
    {
        final List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < routes.length; i++)
        {
            out.add(utf8("{\"r\":\"" + routes[i] + "\",\"seq\":" + i + "}"));
        }
        return out;
    }

    static List<String> texts(final String topic) throws Exception
    {
        final List<String> out = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> r : KafkaRecords.readAll(topic))
        {
            out.add(new String(r.value(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static void createTopic(final String topic, final Map<String, String> configs) throws Exception
    {
        try (Admin a = TestServices.admin())
        {
            a.createTopics(Set.of(new NewTopic(topic, 1, (short)1).configs(configs))).all().get();
            ProduceCommand.awaitPartitionsReady(a, topic, 1);
        }
    }

    static boolean exists(final String topic) throws Exception
    {
        try (Admin a = TestServices.admin())
        {
            return a.listTopics().names().get().contains(topic);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendARecordWhoseTopicCollidesAfterDotToUnderscoreToTheFallbackOnce() throws Exception
    {
        final String s = unique("");
        final String input = "t7-in-" + s;
        final String existing = "t7" + s + ".x.eu";
        final String colliding = "t7" + s + "_x_eu";
        final String fallback = "t7" + s + ".fb";
        TestServices.createTopic(input, 1);
        TestServices.createTopic(existing, 1);
        // the premise, from the broker itself: Kafka 4 refuses to create the colliding name, for good
        try (Admin a = TestServices.admin())
        {
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> a.createTopics(Set.of(new NewTopic(colliding, 1, (short)1))).all().get());
            assertTrue(refused.getCause().getMessage().contains(existing), refused.getCause().getMessage());
            assertEquals(ProduceErrors.Kind.TOPIC_REFUSED, ProduceErrors.classify(refused));
        }
        final List<byte[]> in = values("us", "eu", "us", "eu", "de");
        TestServices.produce(input, in);

        final Run r = run(input, "g-" + input, "create_topics = true\n", field("t7" + s + "_x_{value}", fallback));

        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(text(in, 1), text(in, 3)), texts(fallback), "the eu records, once each");
        assertEquals(List.of(text(in, 0), text(in, 2)), texts("t7" + s + "_x_us"));
        assertEquals(List.of(text(in, 4)), texts("t7" + s + "_x_de"));
        assertFalse(exists(colliding));
        assertTrue(texts(existing).isEmpty(), "nothing went to the topic it collides with");
        assertEquals(Map.of(new TopicPartition(input, 0), 5L), r.committed());
        assertEquals(2, r.pipeline().stats().refused.get());
        assertEquals(2, r.pipeline().stats().fallbacks.get());
        ScatterEndToEndIT.deleteTopics(Set.of(input, existing, fallback, "t7" + s + "_x_us", "t7" + s + "_x_de"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStopAtOnceNamingBothTopicsWithoutAFallback() throws Exception
    {
        final String s = unique("");
        final String input = "t7b-in-" + s;
        final String existing = "t7b" + s + ".x.eu";
        TestServices.createTopic(input, 1);
        TestServices.createTopic(existing, 1);
        final List<byte[]> in = values("us", "eu", "us", "us");
        TestServices.produce(input, in);

        final Run r = run(input, "g-" + input, "create_topics = true\n", field("t7b" + s + "_x_{value}", null));

        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit());
        assertTrue(r.millis() < STALL_MS / 4, "at once, not after the stall limit: " + r.millis() + " ms");
        assertTrue(r.failure().contains("record " + input + "-0@1: topic t7b" + s + "_x_eu collides with the "
            + "existing topic " + existing), r.failure());
        assertTrue(r.failure().contains("the rule has no fallback"), r.failure());
        final Long committed = r.committed().get(new TopicPartition(input, 0));
        assertTrue(committed == null || committed <= 1, "nothing committed past the refused record: " + committed);
        final List<String> us = texts("t7b" + s + "_x_us");
        assertEquals(new HashSet<>(us).size(), us.size(), "no record sent twice: " + us);
        assertFalse(exists("t7b" + s + "_x_eu"));
        ScatterEndToEndIT.deleteTopics(Set.of(input, existing, "t7b" + s + "_x_us"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldNeverProduceToAnInternalTopicAndDeadLetterItWithoutAFallback() throws Exception
    {
        final String s = unique("");
        final String input = "int-in-" + s;
        final String fallback = "int" + s + ".fb";
        final String dlq = "int" + s + ".dlq";
        TestServices.createTopic(input, 1);
        final List<byte[]> in = values("int" + s + ".a", "__consumer_offsets", "int" + s + ".a");
        TestServices.produce(input, in);

        final Run withFallback = run(input, "g1-" + input, "create_topics = true\n", field("{value}", fallback));
        assertEquals(SluiceEngine.EXIT_OK, withFallback.exit(), withFallback.failure());
        assertEquals(List.of(text(in, 1)), texts(fallback));
        assertEquals(List.of(text(in, 0), text(in, 2)), texts("int" + s + ".a"));
        assertEquals(Map.of(new TopicPartition(input, 0), 3L), withFallback.committed());

        // without a fallback, on_error = dead_letter: the dead letter says why, and the offsets commit to the end
        final Run dead = run(input, "g2-" + input, "create_topics = true\non_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"" + dlq + "\"\n", field("{value}", null));
        assertEquals(SluiceEngine.EXIT_OK, dead.exit(), dead.failure());
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll(dlq);
        assertEquals(1, letters.size());
        assertArrayEquals(in.get(1), letters.get(0).value());
        assertEquals("produce", header(letters.get(0), "sluice.errors.stage"));
        assertEquals("produce", header(letters.get(0), "sluice.errors.reason"));
        assertEquals("1", header(letters.get(0), "__connect.errors.offset"));
        assertTrue(header(letters.get(0), "__connect.errors.exception.message")
            .contains("topic __consumer_offsets is internal to Kafka"),
            header(letters.get(0),
                "__connect.errors.exception.message"));
        assertEquals(1, dead.pipeline().deadLetters().written(DeadLetterReason.PRODUCE));
        assertEquals(Map.of(new TopicPartition(input, 0), 3L), dead.committed());
        // a.a twice per run, never more: nothing re-sent
        assertEquals(4, texts("int" + s + ".a").size());
        ScatterEndToEndIT.deleteTopics(Set.of(input, fallback, dlq, "int" + s + ".a"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendARecordAboveItsTopicsMaxMessageBytesToTheFallbackOnce() throws Exception
    {
        final String s = unique("");
        final String input = "big-in-" + s;
        final String small = "big" + s + ".small";
        final String fallback = "big" + s + ".fb";
        TestServices.createTopic(input, 1);
        // the broker refuses a batch above the topic's max.message.bytes (RecordTooLargeException from the broker)
        createTopic(small, Map.of("max.message.bytes", "2000"));
        final List<byte[]> in = new ArrayList<>(values("ok", "small", "ok", "ok"));
        // random, so that the producer's lz4 cannot shrink it under the limit. It is the only record for its topic:
        // a batch of several records above a topic's max.message.bytes makes Kafka's producer split it again and
        // again (its split follows batch.size, not the topic's limit) until its I/O thread dies of a
        // StackOverflowError (kafka-clients 4.1.1; docs/faults.md)
        final byte[] noise = new byte[6_000];
        new Random(7).nextBytes(noise);
        in.set(1, utf8("{\"r\":\"small\",\"seq\":1,\"pad\":\"" + Base64.getEncoder().encodeToString(noise) + "\"}"));
        TestServices.produce(input, in);

        final Run r = run(input, "g-" + input, "create_topics = true\n", field("big" + s + ".{value}", fallback));

        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertTrue(List.of(text(in, 1)).equals(texts(fallback)), "the large record in the fallback, once");
        assertTrue(texts(small).isEmpty());
        assertEquals(List.of(text(in, 0), text(in, 2), text(in, 3)), texts("big" + s + ".ok"), "each once, in order");
        assertEquals(Map.of(new TopicPartition(input, 0), 4L), r.committed());
        assertEquals(1, r.pipeline().stats().refused.get());

        // without a fallback, on_error = dead_letter: the broker's refusal comes back on the producer's I/O thread,
        // after the ring slot was reused; the dead letter is the record as the producer sent it, byte for byte
        final String dlq = "big" + s + ".dlq";
        final Run dead = run(input, "g2-" + input, "create_topics = true\non_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"" + dlq + "\"\n", field("big" + s + ".{value}", null));
        assertEquals(SluiceEngine.EXIT_OK, dead.exit(), dead.failure());
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll(dlq);
        assertEquals(1, letters.size());
        assertArrayEquals(in.get(1), letters.get(0).value());
        assertEquals("produce", header(letters.get(0), "sluice.errors.stage"));
        assertEquals("1", header(letters.get(0), "__connect.errors.offset"));
        assertEquals(input, header(letters.get(0), "__connect.errors.topic"));
        assertEquals(RecordTooLargeException.class.getName(),
            header(letters.get(0), "__connect.errors.exception.class.name"));
        assertEquals(Map.of(new TopicPartition(input, 0), 4L), dead.committed());
        assertEquals(6, texts("big" + s + ".ok").size(), "three per run, none re-sent");
        ScatterEndToEndIT.deleteTopics(Set.of(input, small, fallback, dlq, "big" + s + ".ok"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStopAtOnceOnHeadersAboveMaxRequestSizeThatTheFallbackCannotTakeEither() throws Exception
    {
        final String s = unique("");
        final String input = "hdr-in-" + s;
        final String fallback = "hdr" + s + ".fb";
        createTopic(input, Map.of("max.message.bytes", String.valueOf(8 << 20)));
        final List<byte[]> in = values("a", "a", "a", "a");
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(8 << 20));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (int i = 0; i < in.size(); i++)
            {
                final RecordHeaders h = new RecordHeaders();
                if (i == 2)
                {
                    // 2 MiB of headers: above the producer's default max.request.size (1 MiB), under max_record_bytes
                    h.add("blob", new byte[2 << 20]);
                }
                producer.send(new ProducerRecord<>(input, 0, null, null, in.get(i), h)).get();
            }
        }

        final Run r = run(input, "g-" + input, "create_topics = true\n", field("hdr" + s + ".{value}", fallback));

        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit());
        assertTrue(r.millis() < STALL_MS / 4, "at once: " + r.millis() + " ms");
        assertTrue(r.failure().contains("record " + input + "-0@2: the broker refused the record for topic " + fallback
            + " for good (RecordTooLargeException)"), r.failure());
        assertTrue(r.failure().contains("max.request.size"), r.failure());
        assertTrue(r.failure().contains("it was on its way to the fallback"), r.failure());
        final Long committed = r.committed().get(new TopicPartition(input, 0));
        assertTrue(committed == null || committed <= 2, "not past the record: " + committed);
        final List<String> a = texts("hdr" + s + ".a");
        assertEquals(new HashSet<>(a).size(), a.size(), "no record sent twice: " + a);
        assertTrue(a.containsAll(List.of(text(in, 0), text(in, 1))), a.toString());
        assertTrue(texts(fallback).isEmpty());
        ScatterEndToEndIT.deleteTopics(Set.of(input, fallback, "hdr" + s + ".a"));
    }

    static String text(final List<byte[]> in, final int i)
    {
        return new String(in.get(i), StandardCharsets.UTF_8);
    }
}
