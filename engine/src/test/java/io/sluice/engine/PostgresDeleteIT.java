package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.core.engine.SluiceEngine;

/**
 * {@code tombstones = "delete"} on the real broker and the real PostgreSQL (issue 22, item 6): a tombstone deletes
 * the row its Kafka key names in the same transaction as the upserts, in offset order, within one batch and across
 * batches; a key that names no row is a record error under {@code on_error}. Each run works in a schema of its own.
 */
class PostgresDeleteIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pgdel_");

    private static void produce(final String topic, final String... keyValues) throws Exception
    {
        PostgresFixtures.produceKeyed(topic, keyValues);
    }

    private static SluiceEngine engine(final String group, final String topic, final String onError,
        final String extra)
    {
        return engine(group, topic, onError, "target_table = \"{topic}\"\n" + extra, "");
    }

    /** An upsert pipeline with tombstones = "delete" whose plugin_config ends with {@code plugin}. */
    private static SluiceEngine engine(final String group, final String topic, final String onError,
        final String plugin, final String branches)
    {
        return PostgresFixtures.engine(PostgresFixtures.config(DB.name, group, List.of(topic),
            "on_error = \"" + onError + "\"\ntombstones = \"delete\"", "insert_mode = \"upsert\"\n" + plugin,
            branches), true);
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
        final String kv = DB.topic("pg-del-" + s);
        sql("CREATE TABLE " + DB.table(kv) + " (id bigint PRIMARY KEY, v text, tag text DEFAULT 'dflt')",
            "INSERT INTO " + DB.table(kv) + " VALUES (5, 'old', 'keep'), (6, 'old', 'keep'), (7, 'old', 'keep')");
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
            rows("SELECT id, v, tag FROM " + DB.table(kv) + " ORDER BY id"));
        assertEquals(Map.of(new TopicPartition(kv, 0), 11L), TestServices.committed(group));
        // the summary's counters: a tombstone's delete is no row written
        assertEquals(6, first.pipelines().get(0).stats().rowsWritten.get(), "six records with a value");
        assertEquals(5, first.pipelines().get(0).stats().rowsDeleted.get(), "five tombstones");

        produce(kv,
            "4", null,
            "1", "{\"id\":1,\"v\":\"again\"}",
            "{\"id\":2}", null);
        final SluiceEngine second = engine(group, kv, "fail", "linger_ms = 2000");
        assertEquals(SluiceEngine.EXIT_OK, second.run(), second.failure());
        assertEquals(List.of("1|again|dflt", "6|new|dflt", "7|old|keep"),
            rows("SELECT id, v, tag FROM " + DB.table(kv) + " ORDER BY id"));

        produce(kv,
            "6", null,
            "6", "{\"id\":6,\"v\":\"back\"}",
            "1", null,
            "7", "{\"id\":7,\"v\":\"upd\"}",
            "7", null);
        final SluiceEngine third = engine(group, kv, "fail", "max_rows = 1\nlinger_ms = 50");
        assertEquals(SluiceEngine.EXIT_OK, third.run(), third.failure());
        assertEquals(List.of("6|back|dflt"), rows("SELECT id, v, tag FROM " + DB.table(kv) + " ORDER BY id"));
        assertEquals(2, third.pipelines().get(0).stats().rowsWritten.get(), "one-row batches: two rows");
        assertEquals(3, third.pipelines().get(0).stats().rowsDeleted.get(), "one-row batches: three deletes");
        assertEquals(Map.of(new TopicPartition(kv, 0), 19L), TestServices.committed(group));
    }

    /**
     * Under {@code delivery = "exactly_once"} a tombstone is checked against the table's stored position as a row is
     * (hostile review of issue 23): after the group is reset to 0 the replay must neither delete a row the table
     * holds again since (the re-insert after the tombstone) nor move the position, nor stall; one record per batch,
     * so the tombstone can be a batch of its own.
     */
    @Test
    void shouldNotApplyATombstoneTheTableHoldsAgainOnAReplayUnderExactlyOnce() throws Exception
    {
        final String s = unique("");
        final String group = "g-pgdel-eo-" + s;
        final String kv = DB.topic("pg-del-eo-" + s);
        sql("CREATE TABLE " + DB.table(kv) + " (id bigint PRIMARY KEY, v text)");
        produce(kv,
            "1", "{\"id\":1,\"v\":\"a\"}",
            "1", null,
            "1", "{\"id\":1,\"v\":\"b\"}",
            "2", "{\"id\":2,\"v\":\"x\"}");
        final String plugin = "target_table = \"{topic}\"\ndelivery = \"exactly_once\"\nmax_rows = 1\nlinger_ms = 50";
        final SluiceEngine first = engine(group, kv, "fail", plugin, "");
        assertEquals(SluiceEngine.EXIT_OK, first.run(), first.failure());
        final String select = "SELECT id, v FROM " + DB.table(kv) + " ORDER BY id";
        assertEquals(List.of("1|b", "2|x"), rows(select));
        final String position = "SELECT next_offset FROM " + DB.table("sluice_offsets") + " WHERE group_id = '" + group
            + "'";
        assertEquals(List.of("4"), rows(position));

        try (Admin a = TestServices.admin())
        {
            a.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(kv, 0), new OffsetAndMetadata(0))).all()
                .get();
        }
        final SluiceEngine replay = engine(group, kv, "fail", plugin, "");
        assertEquals(SluiceEngine.EXIT_OK, replay.run(), replay.failure());
        assertEquals(List.of("1|b", "2|x"), rows(select), "the replayed tombstone deleted nothing");
        assertEquals(List.of("4"), rows(position), "the position did not move back");
        assertEquals(0, replay.pipelines().get(0).stats().rowsDeleted.get(), "no delete was sent");
        assertEquals(Map.of(new TopicPartition(kv, 0), 4L), TestServices.committed(group));
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
        final String pair = DB.topic("pg-delkeys-" + s);
        sql("CREATE TABLE " + DB.table(pair) + " (a int, b text, v text, PRIMARY KEY (a, b))",
            "INSERT INTO " + DB.table(pair) + " VALUES (1, 'x', 'keep'), (2, 'y', 'keep')");
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
        assertEquals(List.of("2|y|keep", "3|z|new"), rows("SELECT a, b, v FROM " + DB.table(pair) + " ORDER BY a"));
        assertEquals(Map.of(new TopicPartition(pair, 0), 10L), TestServices.committed(group));

        final String strict = DB.topic("pg-delkeys-fail-" + s);
        sql("CREATE TABLE " + DB.table(strict) + " (a int, b text, v text, PRIMARY KEY (a, b))",
            "INSERT INTO " + DB.table(strict) + " VALUES (7, 'q', 'keep')");
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
        assertEquals(List.of("1"), rows("SELECT count(*) FROM " + DB.table(strict)), "no row was deleted");
    }

    /**
     * Branches that split a topic into two tables by a value field: a tombstone has no value to pick one by, so it
     * is a record error naming both tables; a topic whose branches all write to one table deletes there.
     */
    @Test
    void shouldRefuseATombstoneWhoseTopicSplitsIntoTwoTables() throws Exception
    {
        final String s = unique("");
        final String split = DB.topic("pg-delsplit-" + s);
        sql("CREATE TABLE " + DB.table("a_" + s) + " (id int PRIMARY KEY, t text)",
            "CREATE TABLE " + DB.table("b_" + s) + " (id int PRIMARY KEY, t text)");
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

        // under skip the refused tombstone is counted as a dropped tombstone, not as an invalid record
        final SluiceEngine skip = engine("g-pgdel2-" + s, split, "skip", "linger_ms = 1000", branches);
        assertEquals(SluiceEngine.EXIT_OK, skip.run(), skip.failure());
        assertEquals(1, skip.pipelines().get(0).stats().droppedTombstone.get());
        assertEquals(0, skip.pipelines().get(0).stats().droppedInvalid.get());
        assertEquals(2, skip.pipelines().get(0).stats().rowsWritten.get());
        assertEquals(0, skip.pipelines().get(0).stats().rowsDeleted.get());
    }

}
