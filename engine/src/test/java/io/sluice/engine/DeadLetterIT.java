package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.header;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 13: {@code dead_letter} on the real broker and server. Each policy sends its record to the dead-letter topic
 * while the others flow on (a malformed record and a value out of its column's range under {@code on_error}, a record
 * no branch takes under {@code unmatched}, a row ClickHouse refuses for its data at insert time); each dead letter is
 * checked against the record it came from, key, value and headers byte for byte, and its error headers one by one;
 * the offsets commit past a dead letter only once the broker has it, and a dead-letter topic that cannot be written
 * stops the partition until the stall limit ends the run, naming why. A scatter source's rule without a fallback sends
 * its unroutable record there too.
 */
class DeadLetterIT
{
    /**
     * The records' timestamps: an hour ago, fixed for the run. Not a fixed date: the broker deletes a segment whose
     * newest record is older than retention.ms (7 days) at its next retention check, which took a test's records
     * (time-stamped in 2023) away under a run.
     */
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000 - 3_600_000;

    private static SluiceEngine engine(final String toml)
    {
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
    }

    private static String sinkToml(final String topic, final String group, final String db, final String extra,
        final String plugin, final long stallMs)
    {
        return "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\nstalled_fail_after_ms = " + stallMs + "\ncommit_interval_ms = 200\n"
            + "[[sinks]]\nname = \"dl\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n" + extra
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db + "\"\n"
            + "linger_ms = 100\nretry_backoff_ms = 100\nretry_backoff_max_ms = 400\n" + plugin;
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final String key, final byte[] value,
        final String... headers)
    {
        final RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < headers.length; i += 2)
        {
            h.add(headers[i], headers[i + 1] == null ? null : utf8(headers[i + 1]));
        }
        return new ProducerRecord<>(topic, 0, T0 + value.length, key == null ? null : utf8(key), value,
            h);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendEachPolicysRecordsToTheDeadLetterTopicWhileTheOthersFlowOn() throws Exception
    {
        final String s = unique("");
        final String topic = "dl-in-" + s;
        final String db = "dl_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".clicks (id UInt32, n UInt8) ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> input = List.of(
            record(topic, "k0", utf8("{\"type\":\"click\",\"id\":1,\"n\":5}")),
            record(topic, "k1", utf8("{\"type\":\"click\",\"id\":"), "trace", "t-1", "empty", null, "trace", "t-2"),
            record(topic, null, utf8("{\"type\":\"view\",\"id\":3}"), "tenant", "acme"),
            record(topic, "k3", utf8("{\"type\":\"click\",\"id\":4,\"n\":300}")),
            record(topic, "k4", utf8("{\"type\":\"click\",\"id\":5,\"n\":6}")),
            record(topic, "k5", new byte[]{'{', (byte)0xC3, 0x28, '}'}));
        KafkaRecords.produce(input);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "unmatched = \"dead_letter\"\n"
            + "on_error = \"dead_letter\"\ndead_letter_topic = \"dlq.{topic}\"\ncreate_topics = true\n", """
                [[sinks.branches]]
                name = "clicks"
                when = { path = "type", equals = "click" }
                target_table = "clicks"
                """, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), "the pipeline flows on: " + engine.failure());

        assertEquals("1\t5\n5\t6\n", TestServices.sql("SELECT id, n FROM " + db + ".clicks ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(topic, 0), 6L), TestServices.committed("g-" + s),
            "every offset committed, dead letters included");
        final DeadLetters d = engine.pipelines().get(0).deadLetters();
        assertEquals(3, d.written(DeadLetterReason.INVALID));
        assertEquals(1, d.written(DeadLetterReason.UNROUTED));
        assertEquals(0, d.notWritten());

        final List<ConsumerRecord<byte[], byte[]>> dlq = KafkaRecords.readAll("dlq." + topic);
        assertEquals(4, dlq.size(), "offsets 1, 2, 3 and 5");
        final long[] offsets = {1, 2, 3, 5};
        final String[] reasons = {"invalid", "unrouted", "invalid", "invalid"};
        // offset 1 is found malformed when its branch's columns are scanned (the classifier's field came first)
        final String[] stages = {"parse", "classify", "convert", "parse"};
        for (int i = 0; i < dlq.size(); i++)
        {
            final ConsumerRecord<byte[], byte[]> r = dlq.get(i);
            final ProducerRecord<byte[], byte[]> original = input.get((int)offsets[i]);
            assertArrayEquals(original.value(), r.value(), "value byte for byte");
            assertArrayEquals(original.key(), r.key(), "key byte for byte");
            assertTrue(r.timestamp() > T0 + 1_800_000, "time-stamped when produced, not an hour back as the record "
                + "(its own timestamp is in sluice.errors.timestamp): " + r.timestamp());
            final List<String> own = new ArrayList<>();
            original.headers().forEach(h -> own.add(h.key() + "=" + (h.value() == null
                ? "null"
                : new String(h.value(),
                    java.nio.charset.StandardCharsets.UTF_8))));
            assertEquals(own, KafkaRecords.ownHeaders(r, "__connect.errors.", "sluice.errors."),
                "the record's own headers, in order, nulls kept");
            assertEquals(topic, header(r, "__connect.errors.topic"));
            assertEquals("0", header(r, "__connect.errors.partition"));
            assertEquals(Long.toString(offsets[i]), header(r, "__connect.errors.offset"));
            assertEquals("dl", header(r, "sluice.errors.pipeline"));
            assertEquals(reasons[i], header(r, "sluice.errors.reason"));
            assertEquals(stages[i], header(r, "sluice.errors.stage"), "offset " + offsets[i]);
            assertEquals(Long.toString(original.timestamp()), header(r, "sluice.errors.timestamp"));
            assertEquals("CreateTime", header(r, "sluice.errors.timestamp.type"));
            assertNull(header(r, "__connect.errors.exception.class.name"), "no exception decided it");
        }
        assertTrue(header(dlq.get(0), "__connect.errors.exception.message").startsWith("malformed JSON"),
            header(dlq.get(0), "__connect.errors.exception.message"));
        assertTrue(header(dlq.get(1), "__connect.errors.exception.message").startsWith("no branch matches"));
        final ConsumerRecord<byte[], byte[]> conversion = dlq.get(2);
        assertEquals("clicks", header(conversion, "sluice.errors.branch"));
        assertEquals(db + ".clicks", header(conversion, "sluice.errors.table"));
        assertEquals("n", header(conversion, "sluice.errors.column"));
        assertEquals("n", header(conversion, "sluice.errors.path"));
        assertTrue(header(conversion, "__connect.errors.exception.message").startsWith("column n (UInt8) from path n"),
            header(conversion, "__connect.errors.exception.message"));
        ScatterEndToEndIT.deleteTopics(java.util.Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendTombstonesAndValuesThatAreNoObjectToTheDeadLetterTopicByTheirOwnPolicies() throws Exception
    {
        final String s = unique("");
        final String topic = "dl-tomb-" + s;
        final String db = "dl_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".clicks (id UInt32, n UInt8) ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> input = List.of(
            record(topic, "k0", utf8("{\"type\":\"click\",\"id\":1,\"n\":5}")),
            new ProducerRecord<>(topic, 0, T0 + 1, utf8("k1"), null,
                new RecordHeaders().add("op", utf8("delete"))),
            record(topic, "k2", utf8("[{\"type\":\"click\",\"id\":2,\"n\":1}]")),
            record(topic, "k3", utf8("42")),
            record(topic, "k4", utf8("{\"type\":\"click\",\"id\":5,\"n\":6}")),
            record(topic, "k5", utf8("{\"type\":\"click\",\"id\":6,\"n\":1,\"pad\":\"" + "x".repeat(20_000) + "\"}"),
                "trace", "t-5"));
        KafkaRecords.produce(input);
        // a tombstone goes to the dead letter by its own policy; a value that is no object is an error (on_error)
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "tombstones = \"dead_letter\"\n"
            + "on_error = \"dead_letter\"\ndead_letter_topic = \"dlq.{topic}\"\ncreate_topics = true\n", """
                [[sinks.branches]]
                name = "clicks"
                target_table = "clicks"
                """, 60_000) + "[engine]\nmax_record_bytes = 8192\n");
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), "the pipeline flows on: " + engine.failure());

        assertEquals("1\t5\n5\t6\n", TestServices.sql("SELECT id, n FROM " + db + ".clicks ORDER BY id"),
            "no row from the tombstone, the array, the number or the record above max_record_bytes");
        assertEquals(Map.of(new TopicPartition(topic, 0), 6L), TestServices.committed("g-" + s));
        final DeadLetters d = engine.pipelines().get(0).deadLetters();
        assertEquals(1, d.written(DeadLetterReason.TOMBSTONE));
        assertEquals(3, d.written(DeadLetterReason.INVALID));
        final List<ConsumerRecord<byte[], byte[]>> dlq = KafkaRecords.readAll("dlq." + topic);
        assertEquals(4, dlq.size(), "offsets 1, 2, 3 and 5");
        // the record too large for the ring: its value is omitted (it was never copied), its key and headers are kept
        final ConsumerRecord<byte[], byte[]> big = dlq.get(3);
        assertEquals("5", header(big, "__connect.errors.offset"));
        assertNull(big.value());
        assertArrayEquals(utf8("k5"), big.key());
        assertEquals(List.of("trace=t-5"), KafkaRecords.ownHeaders(big, "__connect.errors.", "sluice.errors."));
        assertTrue(header(big, "sluice.errors.value.omitted") != null, "the dead letter says its value is omitted");
        assertNull(dlq.get(0).value(), "the tombstone stays a tombstone");
        assertArrayEquals(utf8("k1"), dlq.get(0).key());
        assertEquals("tombstone", header(dlq.get(0), "sluice.errors.reason"));
        assertEquals("1", header(dlq.get(0), "__connect.errors.offset"));
        assertEquals(List.of("op=delete"), KafkaRecords.ownHeaders(dlq.get(0), "__connect.errors.", "sluice.errors."));
        for (int i = 1; i < 3; i++)
        {
            assertArrayEquals(input.get(i + 1).value(), dlq.get(i).value(), "value byte for byte");
            assertEquals("invalid", header(dlq.get(i), "sluice.errors.reason"));
            assertEquals("parse", header(dlq.get(i), "sluice.errors.stage"));
            assertEquals(Integer.toString(i + 1), header(dlq.get(i), "__connect.errors.offset"));
        }
        assertTrue(header(dlq.get(1), "__connect.errors.exception.message").contains("array"),
            header(dlq.get(1), "__connect.errors.exception.message"));
        assertTrue(header(dlq.get(2), "__connect.errors.exception.message").contains("number"),
            header(dlq.get(2), "__connect.errors.exception.message"));
        ScatterEndToEndIT.deleteTopics(java.util.Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldCommitPastADeadLetterOnlyOnceTheBrokerHasItAndStallWhileItCannotBeWritten() throws Exception
    {
        final String s = unique("");
        final String topic = "dl-stall-" + s;
        final String dlq = "dlq-stall-" + s;
        final String db = "dl_stall_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32) ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 1);
        KafkaRecords.produce(List.of(record(topic, "a", utf8("{\"id\":1}")), record(topic, "b", utf8("{\"id\":")),
            record(topic, "c", utf8("{\"id\":3}"))));
        final String toml = sinkToml(topic, "g-" + s, db, "on_error = \"dead_letter\"\ndead_letter_topic = \"" + dlq
            + "\"\n", "target_table = \"t\"\n", 4_000);
        final long start = System.nanoTime();
        final SluiceEngine stalled = engine(toml);
        assertEquals(SluiceEngine.EXIT_FAILURE, stalled.run(), "the stall limit ends the run");
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        final String failure = stalled.failure();
        assertTrue(failure.contains(topic + "-0@1") && failure.contains("its dead letter could not be written")
            && failure.contains("dead-letter topic " + dlq + " does not exist"), failure);
        assertTrue(seconds < 60, "ended by the stall limit, after " + seconds + " s");
        final Long committed = TestServices.committed("g-" + s).get(new TopicPartition(topic, 0));
        assertTrue(committed == null || committed <= 1, "nothing committed past the record whose dead letter is not "
            + "written: " + committed);
        assertFalse(KafkaRecords.exists(dlq), "create_topics = false: the topic is not created");
        assertTrue(stalled.pipelines().get(0).deadLetters().notWritten() > 0, "counted as not written");

        TestServices.createTopic(dlq, 1);
        final SluiceEngine written = engine(toml);
        assertEquals(SluiceEngine.EXIT_OK, written.run(), written.failure());
        assertEquals(Map.of(new TopicPartition(topic, 0), 3L), TestServices.committed("g-" + s));
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll(dlq);
        final DeadLetters d = written.pipelines().get(0).deadLetters();
        assertEquals(1, letters.size(), "the dead letter of offset 1 in " + dlq + " (end offsets "
            + TestServices.endOffsets(dlq, 1) + "); the run counted " + d.written(DeadLetterReason.INVALID)
            + " written, " + d.notWritten() + " not written (" + d.lastError() + ")");
        assertArrayEquals(utf8("{\"id\":"), letters.get(0).value());
        assertEquals("1", header(letters.get(0), "__connect.errors.offset"));
        assertEquals("1\n3\n", TestServices.sql("SELECT DISTINCT id FROM " + db + ".t ORDER BY id"));
        ScatterEndToEndIT.deleteTopics(java.util.Set.of(topic, dlq));
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendTheRowsOfABatchClickHouseRefusesForItsDataOnceReadAgain() throws Exception
    {
        final String s = unique("");
        final String topic = "dl-insert-" + s;
        final String db = "dl_insert_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        // the MATERIALIZED expression fails for d = 0 when the server computes it: ClickHouse error 153
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32, d Int32, m Int32 MATERIALIZED intDiv(100, d)) "
            + "ENGINE = MergeTree ORDER BY id");
        TestServices.createTopic(topic, 1);
        KafkaRecords.produce(List.of(record(topic, "a", utf8("{\"id\":1,\"d\":2}")),
            record(topic, "b", utf8("{\"id\":2,\"d\":0}")), record(topic, "c", utf8("{\"id\":3,\"d\":5}"))));
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "on_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"dlq.{topic}\"\ncreate_topics = true\n", "target_table = \"t\"\nmax_rows = 1\n",
            60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals("1\t50\n3\t20\n", TestServices.sql("SELECT DISTINCT id, m FROM " + db + ".t ORDER BY id"),
            "each row its own batch (max_rows = 1): only the refused one is missing");
        assertEquals(Map.of(new TopicPartition(topic, 0), 3L), TestServices.committed("g-" + s));
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll("dlq." + topic);
        assertEquals(1, letters.size());
        final ConsumerRecord<byte[], byte[]> r = letters.get(0);
        assertArrayEquals(utf8("{\"id\":2,\"d\":0}"), r.value());
        assertArrayEquals(utf8("b"), r.key());
        assertEquals("insert", header(r, "sluice.errors.stage"));
        assertEquals("insert", header(r, "sluice.errors.reason"));
        assertEquals("153", header(r, "sluice.errors.code"));
        assertEquals(db + ".t", header(r, "sluice.errors.table"));
        assertEquals("io.sluice.core.gather.sink.SinkException", header(r, "__connect.errors.exception.class.name"));
        assertTrue(header(r, "__connect.errors.exception.message").contains("ILLEGAL_DIVISION"),
            header(r, "__connect.errors.exception.message"));
        assertEquals(1, engine.pipelines().get(0).deadLetters().written(DeadLetterReason.INSERT));
        ScatterEndToEndIT.deleteTopics(java.util.Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendARecordTheRuleCannotPlaceToTheSourcesDeadLetterTopic(@TempDir final Path dir) throws Exception
    {
        final String s = unique("");
        final String prefix = "dl-scatter-" + s;
        final Path file = dir.resolve("in.jsonl");
        Files.writeString(file, "{\"user\":{\"id\":\"a\"}}\n{\"user\":{}}\n{\"user\":{\"id\":\"b\"}}\n");
        final SluiceEngine engine = engine("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[[sources]]\nname = \"users\"\nkind = \"file\"\npath = \"" + file + "\"\ncreate_topics = true\n"
            + "on_error = \"dead_letter\"\ndead_letter_topic = \"" + prefix + ".dlq\"\n"
            + "[[sources.topics]]\ntopic = { strategy = \"field\", path = \"user.id\", template = \"" + prefix
            + ".{value}\" }\n");
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(1, KafkaRecords.readAll(prefix + ".a").size());
        assertEquals(1, KafkaRecords.readAll(prefix + ".b").size());
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll(prefix + ".dlq");
        assertEquals(1, letters.size());
        final ConsumerRecord<byte[], byte[]> r = letters.get(0);
        assertArrayEquals(utf8("{\"user\":{}}"), r.value());
        assertEquals("route", header(r, "sluice.errors.stage"));
        assertEquals("routing", header(r, "sluice.errors.reason"));
        assertEquals("1", header(r, "__connect.errors.offset"), "the line index");
        assertTrue(header(r, "__connect.errors.exception.message").contains("the rule has no fallback"),
            header(r, "__connect.errors.exception.message"));
        assertEquals(1, engine.scatters().get(0).deadLetters().written(DeadLetterReason.ROUTING));
        ScatterEndToEndIT.deleteTopics(java.util.Set.of(prefix + ".a", prefix + ".b", prefix + ".dlq"));
    }
}
