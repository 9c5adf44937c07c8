package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * A dead letter the broker refuses for good, on the real broker: the run stops at once naming the record, the
 * dead-letter topic and why, well before {@code checkpoint.stalled_fail_after_ms} (300 s here, the default), and never
 * re-reads the partition until that limit. A file source's literal dead-letter topic that collides with an existing
 * topic once {@code .} and {@code _} are alike (case T7: Kafka 4 refuses to create it); a sink's template that renders
 * a name Kafka reserves ({@code __{topic_segment[1]}} over {@code ….consumer_offsets}).
 */
class DeadLetterRefusalIT
{
    private static final long STALL_MS = 300_000;
    /** Well under the stall limit: a few admin round trips and the engine's start and stop. */
    private static final long AT_ONCE_MS = 60_000;

    private static SluiceEngine engine(final String toml)
    {
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldStopAFileSourceAtOnceWhenItsDeadLetterTopicCollides(@TempDir final Path dir) throws Exception
    {
        final String s = unique("");
        final String prefix = "dlr" + s;
        final String existing = prefix + ".x.eu";
        final String dlq = prefix + "_x_eu";
        TestServices.createTopic(existing, 1);
        final Path file = dir.resolve("in.jsonl");
        Files.writeString(file, "{\"user\":{\"id\":\"a\"}}\n{\"user\":\n{\"user\":{\"id\":\"b\"}}\n");
        try
        {
            final SluiceEngine engine = engine("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
                + "[checkpoint]\nstalled_fail_after_ms = " + STALL_MS + "\n"
                + "[[sources]]\nname = \"users\"\nkind = \"file\"\npath = \"" + file + "\"\ncreate_topics = true\n"
                + "on_error = \"dead_letter\"\ndead_letter_topic = \"" + dlq + "\"\n"
                + "[[sources.topics]]\ntopic = { strategy = \"field\", path = \"user.id\", template = \"" + prefix
                + ".{value}\" }\n");
            final long start = System.nanoTime();
            assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final String failure = engine.failure();
            assertTrue(ms < AT_ONCE_MS, "at once, not after the stall limit: " + ms + " ms (" + failure + ")");
            assertTrue(failure.contains("its dead letter could not be written: creating dead-letter topic " + dlq
                + " failed"), failure);
            assertTrue(failure.contains("InvalidTopicException") && failure.contains(existing), failure);
            assertTrue(failure.contains("for good: the pipeline stops"), failure);
            assertFalse(KafkaRecords.exists(dlq), "never created");
            assertEquals(1, engine.scatters().get(0).deadLetters().notWritten(), "tried once, not re-read: "
                + engine.scatters().get(0).deadLetters().lastError());
        }
        finally
        {
            ScatterEndToEndIT.deleteTopics(Set.of(existing, prefix + ".a", prefix + ".b"));
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldStopASinkAtOnceWhenItsDeadLetterTemplateRendersAReservedName() throws Exception
    {
        final String s = unique("");
        final String topic = "dlr" + s + ".consumer_offsets";
        final String db = "dlr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32) ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 1);
        KafkaRecords.produce(List.of(new ProducerRecord<>(topic, 0, utf8("a"), utf8("{\"id\":1}")),
            new ProducerRecord<>(topic, 0, utf8("b"), utf8("{\"id\":")),
            new ProducerRecord<>(topic, 0, utf8("c"), utf8("{\"id\":3}"))));
        try
        {
            final SluiceEngine engine = engine("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
                + "[checkpoint]\nstalled_fail_after_ms = " + STALL_MS + "\ncommit_interval_ms = 200\n"
                + "[[sinks]]\nname = \"dl\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"g-" + s
                + "\"\non_error = \"dead_letter\"\ndead_letter_topic = \"__{topic_segment[1]}\"\ncreate_topics = true\n"
                + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
                + "\"\nlinger_ms = 100\ntarget_table = \"t\"\n");
            final long start = System.nanoTime();
            assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final String failure = engine.failure();
            assertTrue(ms < AT_ONCE_MS, "at once, not after the stall limit: " + ms + " ms (" + failure + ")");
            assertTrue(failure.contains("record " + topic + "-0@1"), failure);
            assertTrue(failure.contains("dead_letter_topic __{topic_segment[1]} gives __consumer_offsets for topic "
                + topic + ": topic __consumer_offsets is internal to Kafka"), failure);
            assertTrue(failure.contains("for good: the pipeline stops"), failure);
            final Long committed = TestServices.committed("g-" + s).get(new TopicPartition(topic, 0));
            assertTrue(committed == null || committed <= 1, "nothing committed past the record: " + committed);
            assertEquals(1, engine.pipelines().get(0).deadLetters().notWritten(), "tried once, not re-read");
        }
        finally
        {
            ScatterEndToEndIT.deleteTopics(Set.of(topic));
            dropDatabase(db);
        }
    }
}
