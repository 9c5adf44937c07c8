package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.dropDatabase;
import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.header;
import static io.sluice.engine.KafkaRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Issue 25 item 1 on the real broker and ClickHouse 18.16: what the server would refuse for a whole block is found per
 * record. Nested columns: sub-arrays of unequal length are a record error under on_error, a missing member is filled to
 * its sibling's length, the nested-object form is read, and the good records of the batch are written. Values only
 * the server refuses (a MATERIALIZED {@code throwIf}): the refused batch is inserted in parts until the refused records
 * are known; they are skipped, dead-lettered with the server's code and message, or stop the pipeline naming the
 * record, and the rest of the batch is written.
 */
class NestedAndRefusedRecordsIT
{
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000 - 3_600_000;

    private static SluiceEngine engine(final String toml)
    {
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new ClickHouseDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
    }

    private static String sinkToml(final String topic, final String group, final String db, final String policy,
        final int maxRows, final long stallMs)
    {
        return "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\nstalled_fail_after_ms = " + stallMs + "\ncommit_interval_ms = 200\n"
            + "[[sinks]]\nname = \"nr\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\non_error = \"" + policy + "\"\n"
            + ("dead_letter".equals(policy) ? "dead_letter_topic = \"dlq.{topic}\"\ncreate_topics = true\n" : "")
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db + "\"\n"
            + "max_rows = " + maxRows + "\nlinger_ms = 2000\nretry_backoff_ms = 100\nretry_backoff_max_ms = 400\n"
            + "target_table = \"t\"\n";
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final int partition, final String json)
    {
        return new ProducerRecord<>(topic, partition, T0, utf8("k"), utf8(json));
    }

    /** The table, with inputs beyond the issue's: sizes 0 to 5, both forms, missing members, mismatches. */
    private static final List<String> NESTED = List.of(
        "{\"id\":1,\"n.a\":[1,2],\"n.b\":[\"x\",\"y\"]}",
        "{\"id\":2,\"n.a\":[1,2],\"n.b\":[\"x\"]}",
        "{\"id\":3,\"n.a\":[],\"n.b\":[]}",
        "{\"id\":4,\"n.a\":[5,6,7]}",
        "{\"id\":5,\"n\":{\"a\":[7],\"b\":[\"z\"]}}",
        "{\"id\":6,\"n.b\":[\"q\"],\"n\":{\"a\":[9]}}",
        "{\"id\":7,\"n\":[{\"a\":1,\"b\":\"x\"}]}",
        "{\"id\":8,\"n.b\":[\"p\",\"q\"]}",
        "{\"id\":9,\"n.a\":[1,2,3,4,5],\"n.b\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}",
        "{\"id\":10,\"n.a\":[1],\"n\":{\"a\":[2],\"b\":[\"w\"]}}",
        "{\"id\":11,\"n\":{\"a\":[],\"b\":[\"lonely\"]}}",
        "{\"id\":12}");

    /** The rows ClickHouse holds for the good records of {@link #NESTED} (ids 2, 7, 10 and 11 are refused). */
    private static final String NESTED_ROWS = """
        1\t[1,2]\t['x','y']
        3\t[]\t[]
        4\t[5,6,7]\t['','','']
        5\t[7]\t['z']
        6\t[9]\t['q']
        8\t[0,0]\t['p','q']
        9\t[1,2,3,4,5]\t['a','b','c','d','e']
        12\t[]\t[]
        """;

    private static String createNested(final String s) throws Exception
    {
        final String db = "nr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32, n Nested(a UInt8, b String)) ENGINE = MergeTree "
            + "ORDER BY id");
        return db;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSkipNestedRecordsTheServerWouldRefuseAndWriteTheRestOfTheirBatch() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-nested-" + s;
        final String db = createNested(s);
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        NESTED.forEach(j -> in.add(record(topic, 0, j)));
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "skip", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(NESTED_ROWS, TestServices.sql("SELECT id, n.a, n.b FROM " + db + ".t ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(topic, 0), (long)NESTED.size()), TestServices.committed("g-" + s));
        assertEquals(4, engine.pipelines().get(0).stats().droppedInvalid.get());
        assertEquals(0, engine.pipelines().get(0).stats().insertFailures.get(), "no block was refused");
        dropDatabase(db);
    }

    /** Under fail, the run stops at the first such record, naming it, the group and the lengths. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStopAtTheFirstNestedMismatchNamingTheRecordUnderFail() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-nfail-" + s;
        final String db = createNested(s);
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        NESTED.forEach(j -> in.add(record(topic, 0, j)));
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "fail", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String failure = engine.failure();
        assertTrue(failure.contains("record " + topic + "-0@1") && failure.contains("Nested n: n.b has 1 element(s) "
            + "but n.a has 2"), failure);
        final Long committed = TestServices.committed("g-" + s).get(new TopicPartition(topic, 0));
        assertTrue(committed == null || committed <= 1, "nothing committed past the record: " + committed);
        dropDatabase(db);
    }

    /** Under dead_letter, each such record is a dead letter of stage convert naming its column; the rest is written. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldDeadLetterNestedRecordsTheServerWouldRefuse() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-ndl-" + s;
        final String db = createNested(s);
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        NESTED.forEach(j -> in.add(record(topic, 0, j)));
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "dead_letter", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(NESTED_ROWS, TestServices.sql("SELECT id, n.a, n.b FROM " + db + ".t ORDER BY id"));
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll("dlq." + topic);
        assertEquals(List.of(1L, 6L, 9L, 10L), letters.stream().map(r -> Long.valueOf(header(r,
            "__connect.errors.offset"))).sorted().toList());
        final ConsumerRecord<byte[], byte[]> first = letters.stream()
            .filter(r -> "1".equals(header(r, "__connect.errors.offset"))).findFirst().orElseThrow();
        assertArrayEquals(utf8(NESTED.get(1)), first.value());
        assertEquals("convert", header(first, "sluice.errors.stage"));
        assertEquals("n.b", header(first, "sluice.errors.column"));
        assertTrue(header(first, "__connect.errors.exception.message").contains("n.b has 1 element(s) but n.a has 2"),
            header(first, "__connect.errors.exception.message"));
        ScatterEndToEndIT.deleteTopics(Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }

    /**
     * Names with two dots (F2): 18.16's {@code Nested::splitName} splits only {@code identifier.identifier}, so
     * {@code x.y.z} and {@code x.y.w} are in no group; only {@code x.r} is. Each record is also inserted by SQL, leaving
     * out the columns the record lacks, into a twin table: the rows Sluice writes must be the rows the server itself
     * stores, and none of the records is refused.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldWriteMultiDotArrayColumnsAsTheServerStoresThemWithoutSiblings() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-dots-" + s;
        final String db = "nr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        for (final String table : List.of("t", "bysql"))
        {
            TestServices.sql("CREATE TABLE " + db + "." + table + " (id UInt32, `x.y.z` Array(UInt8), `x.y.w` "
                + "Array(String), `x.q` UInt8 DEFAULT 0, `x.r` Array(UInt8)) ENGINE = MergeTree ORDER BY id");
        }
        // record, then the same row as an INSERT of the columns it has
        final String[][] rows = {
            {"{\"id\":10,\"x.y.z\":[1,2],\"x.r\":[1]}", "(id, `x.y.z`, `x.r`) VALUES (10, [1,2], [1])"},
            {"{\"id\":11,\"x.y.z\":[1],\"x.q\":5}", "(id, `x.y.z`, `x.q`) VALUES (11, [1], 5)"},
            {"{\"id\":12,\"x.y.z\":[1,2],\"x.y.w\":[\"a\"],\"x.r\":[]}",
                "(id, `x.y.z`, `x.y.w`, `x.r`) VALUES (12, [1,2], ['a'], [])"},
            {"{\"id\":13,\"x.y.z\":[1,2]}", "(id, `x.y.z`) VALUES (13, [1,2])"},
            {"{\"id\":14,\"x.y.w\":[\"p\",\"q\",\"r\"],\"x.r\":[7,8]}",
                "(id, `x.y.w`, `x.r`) VALUES (14, ['p','q','r'], [7,8])"},
            {"{\"id\":15,\"x\":{\"y\":{\"z\":[4]}},\"x.r\":[6,6,6]}",
                "(id, `x.y.z`, `x.r`) VALUES (15, [4], [6,6,6])"},
            {"{\"id\":16}", "(id) VALUES (16)"}};
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        for (final String[] row : rows)
        {
            in.add(record(topic, 0, row[0]));
            TestServices.sql("INSERT INTO " + db + ".bysql " + row[1]);
        }
        TestServices.createTopic(topic, 1);
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "fail", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        final String select = "SELECT id, `x.y.z`, `x.y.w`, `x.q`, `x.r` FROM " + db + ".";
        final String bySql = TestServices.sql(select + "bysql ORDER BY id");
        assertEquals(rows.length, bySql.lines().count(), bySql);
        assertEquals(bySql, TestServices.sql(select + "t ORDER BY id"));
        assertTrue(bySql.contains("13\t[1,2]\t[]\t0\t[]\n"), "18.16 fills no sibling of x.y.z: " + bySql);
        assertEquals(Map.of(new TopicPartition(topic, 0), (long)rows.length), TestServices.committed("g-" + s));
        dropDatabase(db);
    }

    /**
     * A constant array DEFAULT on a Nested member (F3: {@code MODIFY COLUMN n.b Array(String) DEFAULT ['c1','c2']})
     * is evaluated once at bind and checked against its siblings like a value of the record: a record whose
     * {@code n.a} is not 2 long is refused by Sluice (the server would refuse its whole block), the others store the
     * DEFAULT as the server does for an INSERT that leaves {@code n.b} out.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldCheckAConstantArrayDefaultOfANestedMemberAgainstItsSiblings() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-cdef-" + s;
        final String db = createNested(s);
        TestServices.sql("ALTER TABLE " + db + ".t MODIFY COLUMN `n.b` Array(String) DEFAULT ['c1','c\\'2']");
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        for (final String json : List.of("{\"id\":1,\"n.a\":[1,2]}", "{\"id\":2,\"n.a\":[1]}",
            "{\"id\":3,\"n.a\":[3],\"n.b\":[\"x\"]}", "{\"id\":4,\"n\":{\"a\":[4,5]}}", "{\"id\":5}"))
        {
            in.add(record(topic, 0, json));
        }
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "skip", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals("1\t[1,2]\t['c1','c\\'2']\n3\t[3]\t['x']\n4\t[4,5]\t['c1','c\\'2']\n",
            TestServices.sql("SELECT id, n.a, n.b FROM " + db + ".t ORDER BY id"));
        // ids 2 (1 element against the DEFAULT's 2) and 5 (none against 2) are refused by Sluice, not by the server
        assertEquals(2, engine.pipelines().get(0).stats().droppedInvalid.get());
        assertEquals(0, engine.pipelines().get(0).stats().insertFailures.get(), "no block was refused");
        dropDatabase(db);
    }

    /** A table whose MATERIALIZED column refuses x = 13 for the row (ClickHouse 395, found by the server only). */
    private static String createThrowing(final String s) throws Exception
    {
        final String db = "nr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32, x UInt32, c UInt8 MATERIALIZED throwIf(x = 13)) "
            + "ENGINE = MergeTree ORDER BY id");
        return db;
    }

    /** 2 partitions of {@code perPartition} records; ids 0.., x = 13 for the ids in {@code bad}, else 1. */
    private static void produceThrowing(final String topic, final int perPartition, final Set<Integer> bad)
        throws Exception
    {
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        for (int id = 0; id < 2 * perPartition; id++)
        {
            in.add(record(topic, id % 2, "{\"id\":" + id + ",\"x\":" + (bad.contains(id) ? 13 : 1) + "}"));
        }
        KafkaRecords.produce(in);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSkipTheRecordsTheServerRefusesAndWriteTheRestOfTheBatch() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-skip-" + s;
        final String db = createThrowing(s);
        TestServices.createTopic(topic, 2);
        produceThrowing(topic, 150, Set.of(41, 200));
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "skip", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals("298\t298\t0\n", TestServices.sql("SELECT count(), uniqExact(id), countIf(id IN (41, 200)) FROM "
            + db + ".t"));
        assertEquals(Map.of(new TopicPartition(topic, 0), 150L, new TopicPartition(topic, 1), 150L),
            TestServices.committed("g-" + s));
        assertEquals(2, engine.pipelines().get(0).stats().droppedRefused.get());
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldDeadLetterTheRecordTheServerRefusesWithItsCodeAndMessage() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-dl-" + s;
        final String db = createThrowing(s);
        TestServices.createTopic(topic, 2);
        produceThrowing(topic, 50, Set.of(57));
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "dead_letter", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals("99\t0\n", TestServices.sql("SELECT uniqExact(id), countIf(id = 57) FROM " + db + ".t"));
        assertEquals(Map.of(new TopicPartition(topic, 0), 50L, new TopicPartition(topic, 1), 50L),
            TestServices.committed("g-" + s));
        final List<ConsumerRecord<byte[], byte[]>> letters = KafkaRecords.readAll("dlq." + topic);
        assertEquals(1, letters.size());
        final ConsumerRecord<byte[], byte[]> r = letters.get(0);
        assertArrayEquals(utf8("{\"id\":57,\"x\":13}"), r.value());
        assertEquals("1", header(r, "__connect.errors.partition"));
        assertEquals("28", header(r, "__connect.errors.offset"));
        assertEquals("insert", header(r, "sluice.errors.stage"));
        assertEquals("395", header(r, "sluice.errors.code"));
        final String message = header(r, "__connect.errors.exception.message");
        assertTrue(message.startsWith("record " + topic + "-1@28: ") && message.contains("refused it on its own")
            && message.contains("FUNCTION_THROW_IF_VALUE_IS_NON_ZERO") && message.contains("throwIf"), message);
        assertEquals(1, engine.pipelines().get(0).deadLetters().written(DeadLetterReason.INSERT));
        ScatterEndToEndIT.deleteTopics(Set.of(topic, "dlq." + topic));
        dropDatabase(db);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStopNamingTheRecordTheServerRefusesUnderFail() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-fail-" + s;
        final String db = createThrowing(s);
        TestServices.createTopic(topic, 2);
        produceThrowing(topic, 50, Set.of(60));
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "fail", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String failure = engine.failure();
        assertTrue(failure.contains("record " + topic + "-0@30") && failure.contains("395")
            && !failure.contains("batch of 100 rows for"), failure);
        final Long committed = TestServices.committed("g-" + s).get(new TopicPartition(topic, 0));
        assertTrue(committed == null || committed <= 30, "nothing committed past the record: " + committed);
        assertEquals("0\n", TestServices.sql("SELECT countIf(id = 60) FROM " + db + ".t"));
        assertFalse(TestServices.sql("SELECT count() FROM " + db + ".t WHERE id < 60 AND id % 2 = 0").equals("0\n"),
            "the rows before it are written");
        dropDatabase(db);
    }

    /**
     * A Nested member whose DEFAULT only the server evaluates ({@code n.c ... DEFAULT arrayResize([1], k)}, added by
     * ALTER) is left out of the rows, so the encoder cannot check its length: the server refuses the block (190
     * SIZES_OF_ARRAYS_DOESNT_MATCH, checked on 18.16), and the split finds the two records whose {@code k} is not
     * their arrays' length among 40; the other 38 are written with {@code n.c} as long as {@code n.a}.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldFindTheRecordsWhoseServerDefaultMemberTheServerRefuses() throws Exception
    {
        final String s = unique("");
        final String topic = "nr-ndef-" + s;
        final String db = "nr_" + s;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (id UInt32, k UInt8, n Nested(a UInt8, b String)) "
            + "ENGINE = MergeTree ORDER BY id");
        TestServices.sql("ALTER TABLE " + db + ".t ADD COLUMN n.c Array(UInt8) DEFAULT arrayResize([toUInt8(1)], k)");
        TestServices.createTopic(topic, 1);
        final List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
        for (int id = 0; id < 40; id++)
        {
            final int length = id % 5;
            final StringBuilder a = new StringBuilder();
            final StringBuilder b = new StringBuilder();
            for (int i = 0; i < length; i++)
            {
                a.append(i == 0 ? "" : ",").append(i);
                b.append(i == 0 ? "" : ",").append("\"").append(id).append('"');
            }
            final int k = id == 7 || id == 22 ? length + 1 : length;
            in.add(record(topic, 0, "{\"id\":" + id + ",\"k\":" + k + ",\"n.a\":[" + a + "],\"n.b\":[" + b + "]}"));
        }
        KafkaRecords.produce(in);
        final SluiceEngine engine = engine(sinkToml(topic, "g-" + s, db, "skip", 10_000, 60_000));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals("38\t38\t0\t38\n", TestServices.sql("SELECT count(), uniqExact(id), countIf(id IN (7, 22)), "
            + "countIf(length(n.c) = length(n.a) AND length(n.b) = length(n.a) AND length(n.a) = id % 5) FROM " + db
            + ".t"));
        assertEquals(Map.of(new TopicPartition(topic, 0), 40L), TestServices.committed("g-" + s));
        assertEquals(2, engine.pipelines().get(0).stats().droppedRefused.get());
        dropDatabase(db);
    }
}
