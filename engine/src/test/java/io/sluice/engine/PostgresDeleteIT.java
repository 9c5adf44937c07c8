package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.kafka.KafkaScatterDriver;
import io.sluice.sinks.postgres.PostgresDriver;
import io.sluice.sinks.postgres.PostgresIdentifiers;

/**
 * {@code tombstones = "delete"} on the real broker and the real PostgreSQL (issue 22, item 6): a tombstone deletes
 * the row its Kafka key names in the same transaction as the upserts, in offset order, within one batch and across
 * batches; a key that names no row is a record error under {@code on_error}. Each run works in a schema of its own.
 */
class PostgresDeleteIT
{
    private static final String SCHEMA = "pgdel_" + Long.toString(System.currentTimeMillis(), 36);
    private static final List<String> TOPICS = new ArrayList<>();

    @BeforeAll
    static void createSchema() throws SQLException
    {
        sql("CREATE SCHEMA " + PostgresIdentifiers.quote(SCHEMA));
    }

    @AfterAll
    static void dropAll() throws Exception
    {
        sql("DROP SCHEMA IF EXISTS " + PostgresIdentifiers.quote(SCHEMA) + " CASCADE");
        ScatterEndToEndIT.deleteTopics(new TreeSet<>(TOPICS));
    }

    private static String table(final String name)
    {
        return PostgresIdentifiers.qualified(SCHEMA, name);
    }

    private static String topic(final String name) throws Exception
    {
        TestServices.createTopic(name, 1);
        TOPICS.add(name);
        return name;
    }

    /** Produces {key, value} pairs; a null value is a tombstone, a null key none. */
    private static void produce(final String topic, final String... keyValues) throws Exception
    {
        final List<byte[][]> records = new ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2)
        {
            records.add(new byte[][]{bytes(keyValues[i]), bytes(keyValues[i + 1])});
        }
        TestServices.produceKeyed(topic, records);
    }

    private static byte[] bytes(final String s)
    {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static SluiceEngine engine(final String group, final String topic, final String onError,
        final String extra)
    {
        return engine(group, topic, onError, "target_table = \"{topic}\"\n" + extra, "");
    }

    /** A pipeline whose plugin_config ends with {@code plugin} and whose sink ends with {@code branches}. */
    private static SluiceEngine engine(final String group, final String topic, final String onError,
        final String plugin, final String branches)
    {
        final Map<String, String> secrets = TestServices.secrets();
        final String toml = """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 100
            [engine]
            status_interval_ms = 0
            [[sinks]]
            name = "pg"
            kind = "postgres"
            topics = ["%s"]
            group_id = "%s"
            on_error = "%s"
            tombstones = "delete"
            [sinks.plugin_config]
            url = "%s"
            username = "%s"
            password = "%s"
            schema = "%s"
            insert_mode = "upsert"
            %s
            %s
            """.formatted(TestServices.bootstrap(), topic, group, onError, PostgresSinkIT.url(),
            secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), SCHEMA, plugin,
            branches);
        return new SluiceEngine(ConfigLoader.parse(toml), c -> new PostgresDriver(), c -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(true));
    }

    /**
     * Insert, update, delete and re-insert of one key in one batch, a delete of a key never written, a delete then a
     * re-insert of a stored row (a new row: its absent column takes the DEFAULT, not the stored value), then the
     * same across batches (a second run, and a third with one record per batch).
     */
    @Test
    void shouldApplyDeletesInOffsetOrderWithTheUpserts() throws Exception
    {
        final String s = unique("");
        final String group = "g-pgdel-" + s;
        final String kv = topic("pg-del-" + s);
        sql("CREATE TABLE " + table(kv) + " (id bigint PRIMARY KEY, v text, tag text DEFAULT 'dflt')",
            "INSERT INTO " + table(kv) + " VALUES (5, 'old', 'keep'), (6, 'old', 'keep'), (7, 'old', 'keep')");
        produce(kv,
            "{\"id\":1}", "{\"id\":1,\"v\":\"a\"}",
            "1", "{\"id\":1,\"v\":\"b\"}",
            "{\"id\":1}", null,
            "2", "{\"id\":2,\"v\":\"a\"}",
            "2", null,
            "2", "{\"id\":2,\"v\":\"c\"}",
            "3", null,
            "4", "{\"id\":4,\"v\":\"x\"}",
            "\"5\"", null,
            " { \"id\" : 6, \"other\": true } ", null,
            "6", "{\"id\":6,\"v\":\"new\"}");
        final SluiceEngine first = engine(group, kv, "fail", "linger_ms = 2000");
        assertEquals(SluiceEngine.EXIT_OK, first.run(), first.failure());
        assertEquals(List.of("2|c|dflt", "4|x|dflt", "6|new|dflt", "7|old|keep"),
            rows("SELECT id, v, tag FROM " + table(kv) + " ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(kv, 0), 11L), TestServices.committed(group));

        produce(kv,
            "4", null,
            "1", "{\"id\":1,\"v\":\"again\"}",
            "{\"id\":2}", null);
        final SluiceEngine second = engine(group, kv, "fail", "linger_ms = 2000");
        assertEquals(SluiceEngine.EXIT_OK, second.run(), second.failure());
        assertEquals(List.of("1|again|dflt", "6|new|dflt", "7|old|keep"),
            rows("SELECT id, v, tag FROM " + table(kv) + " ORDER BY id"));

        produce(kv,
            "6", null,
            "6", "{\"id\":6,\"v\":\"back\"}",
            "1", null,
            "7", "{\"id\":7,\"v\":\"upd\"}",
            "7", null);
        final SluiceEngine third = engine(group, kv, "fail", "max_rows = 1\nlinger_ms = 50");
        assertEquals(SluiceEngine.EXIT_OK, third.run(), third.failure());
        assertEquals(List.of("6|back|dflt"), rows("SELECT id, v, tag FROM " + table(kv) + " ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(kv, 0), 19L), TestServices.committed(group));
    }

    /**
     * Keys that name no row of a two-column key: not JSON, a member missing, null or of the wrong type, a scalar,
     * an array, no key at all. Under skip each is dropped and the good tombstone deletes its row; under fail the
     * pipeline stops naming the record and the column.
     */
    @Test
    void shouldRefuseKeysThatNameNoRow() throws Exception
    {
        final String s = unique("");
        final String group = "g-pgdel-" + s;
        final String pair = topic("pg-delkeys-" + s);
        sql("CREATE TABLE " + table(pair) + " (a int, b text, v text, PRIMARY KEY (a, b))",
            "INSERT INTO " + table(pair) + " VALUES (1, 'x', 'keep'), (2, 'y', 'keep')");
        produce(pair,
            "abc", null,
            "{\"a\":1}", null,
            "{\"a\":\"zz\",\"b\":\"x\"}", null,
            "{\"a\":1,\"b\":null}", null,
            "5", null,
            "[1,\"x\"]", null,
            null, null,
            "{\"a\":1,\"b\":\"x\"", null,
            "{\"a\":1,\"b\":\"x\"}", null,
            "{\"a\":3,\"b\":\"z\"}", "{\"a\":3,\"b\":\"z\",\"v\":\"new\"}");
        final SluiceEngine engine = engine(group, pair, "skip", "linger_ms = 1000");
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        assertEquals(List.of("2|y|keep", "3|z|new"), rows("SELECT a, b, v FROM " + table(pair) + " ORDER BY a"));
        assertEquals(Map.of(new TopicPartition(pair, 0), 10L), TestServices.committed(group));

        final String strict = topic("pg-delkeys-fail-" + s);
        sql("CREATE TABLE " + table(strict) + " (a int, b text, v text, PRIMARY KEY (a, b))",
            "INSERT INTO " + table(strict) + " VALUES (7, 'q', 'keep')");
        produce(strict,
            "{\"a\":7,\"b\":\"q\"}", "{\"a\":7,\"b\":\"q\",\"v\":\"upd\"}",
            "{\"a\":\"seven\",\"b\":\"q\"}", null);
        final SluiceEngine failing = engine(group + "-f", strict, "fail", "linger_ms = 1000");
        assertEquals(SluiceEngine.EXIT_FAILURE, failing.run());
        final String f = failing.failure();
        assertTrue(f.contains(strict + "-0@1"), f);
        assertTrue(f.contains("key column a (integer)") && f.contains("tombstone"), f);
        final long committed = TestServices.committed(group + "-f").getOrDefault(new TopicPartition(strict, 0), 0L);
        assertTrue(committed <= 1, "nothing is committed past the refused tombstone: " + committed);
        assertEquals(List.of("1"), rows("SELECT count(*) FROM " + table(strict)), "no row was deleted");
    }

    /**
     * Branches that split a topic into two tables by a value field: a tombstone has no value to pick one by, so it
     * is a record error naming both tables; a topic whose branches all write to one table deletes there.
     */
    @Test
    void shouldRefuseATombstoneWhoseTopicSplitsIntoTwoTables() throws Exception
    {
        final String s = unique("");
        final String split = topic("pg-delsplit-" + s);
        sql("CREATE TABLE " + table("a_" + s) + " (id int PRIMARY KEY, t text)",
            "CREATE TABLE " + table("b_" + s) + " (id int PRIMARY KEY, t text)");
        produce(split,
            "1", "{\"id\":1,\"t\":\"a\"}",
            "2", "{\"id\":2,\"t\":\"b\"}",
            "1", null);
        final String branches = """
            [[sinks.branches]]
            name = "a"
            when = { path = "t", equals = "a" }
            target_table = "a_%s"
            [[sinks.branches]]
            name = "b"
            target_table = "b_%s"
            """.formatted(s, s);
        final SluiceEngine engine = engine("g-pgdel-" + s, split, "fail", "linger_ms = 1000", branches);
        assertEquals(SluiceEngine.EXIT_FAILURE, engine.run());
        final String f = engine.failure();
        assertTrue(f.contains(split + "-0@2"), f);
        assertTrue(f.contains("more than one table") && f.contains("a_" + s) && f.contains("b_" + s), f);
    }

}
