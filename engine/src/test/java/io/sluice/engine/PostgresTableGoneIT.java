package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.PostgresSinkIT.rows;
import static io.sluice.engine.PostgresSinkIT.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.core.engine.SluiceEngine;
import io.sluice.sinks.postgres.PostgresIdentifiers;

/**
 * A table dropped or renamed away while the engine runs (issue 22, item 2), on the real broker and PostgreSQL: the
 * failed write (42P01) makes the engine forget the table's columns; with {@code create_table} the table is created
 * again and the records of the failed batch are read and written again, none lost and none twice; without it the
 * partition stops and the run ends naming the table.
 */
class PostgresTableGoneIT
{
    @RegisterExtension
    static final PostgresFixtures.Schema DB = new PostgresFixtures.Schema("pggone_");

    private static void produce(final String topic, final int from, final int to) throws Exception
    {
        final List<byte[]> values = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            values.add(("{\"id\":" + i + ",\"v\":\"v" + i + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, values);
    }

    private static String config(final String group, final String topic, final String plugin)
    {
        return PostgresFixtures
            .config(DB.name, group, List.of(topic), "", "target_table = \"{topic}\"\nlinger_ms = 50\n"
                + "retry_backoff_ms = 100\n" + plugin, "")
            .replace("commit_interval_ms = 100", "commit_interval_ms = 100\nstalled_fail_after_ms = 5000");
    }

    /** Waits at most 60 s for a condition, failing with the message. */
    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    private static long count(final String query)
    {
        try
        {
            final List<String> r = rows(query);
            return Long.parseLong(r.get(0));
        }
        catch (final SQLException e)
        {
            return -1; // the table is not there (yet)
        }
    }

    private static DestinationFixtures.Running running(final String toml)
    {
        return new DestinationFixtures.Running(PostgresFixtures.engine(toml, false));
    }

    /** DROP, then RENAME, while running with create_table: created again, the failed records written once. */
    @Test
    void shouldCreateAgainATableDroppedOrRenamedWhileRunning() throws Exception
    {
        final String s = unique("");
        final String group = "g-pggone-" + s;
        final String topic = "pg-gone-" + s;
        DB.topic(topic);
        final String t = DB.table(topic);
        final DestinationFixtures.Running running = running(config(group, topic, """
            create_table = true
            create_table_ddl = "CREATE TABLE {schema}.{table} (id bigint PRIMARY KEY, v text)"
            """));
        produce(topic, 0, 100);
        await(() -> count("SELECT count(*) FROM " + t) == 100, "the first 100 rows");

        sql("DROP TABLE " + t);
        produce(topic, 100, 250);
        await(() -> count("SELECT count(*) FROM " + t) == 150, "the 150 rows after the DROP in the new table");
        assertEquals(List.of("150|100|249"), rows("SELECT count(DISTINCT id), min(id), max(id) FROM " + t));

        sql("ALTER TABLE " + t + " RENAME TO " + PostgresIdentifiers.quote("moved-" + s));
        produce(topic, 250, 300);
        await(() -> count("SELECT count(*) FROM " + t) == 50, "the 50 rows after the RENAME in the new table");
        assertEquals(List.of("50|250|299"), rows("SELECT count(DISTINCT id), min(id), max(id) FROM " + t));
        assertEquals(List.of("150"), rows("SELECT count(*) FROM " + DB.table("moved-" + s)),
            "the renamed table is never written again");
        assertEquals(SluiceEngine.EXIT_OK, running.stop(), running.engine.failure());
        assertEquals(Map.of(new TopicPartition(topic, 0), 300L), TestServices.committed(group));
    }

    /** Without create_table the partition stops and the run ends naming the table. */
    @Test
    void shouldStopNamingATableDroppedWhileRunningWithoutCreateTable() throws Exception
    {
        final String s = unique("");
        final String group = "g-pggone-" + s;
        final String topic = "pg-gone-nc-" + s;
        DB.topic(topic);
        final String t = DB.table(topic);
        sql("CREATE TABLE " + t + " (id bigint PRIMARY KEY, v text)");
        final DestinationFixtures.Running running = running(config(group, topic, ""));
        produce(topic, 0, 20);
        await(() -> count("SELECT count(*) FROM " + t) == 20, "the first 20 rows");
        sql("DROP TABLE " + t);
        produce(topic, 20, 30);
        running.thread.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(running.thread.isAlive(), "the run ends after stalled_fail_after_ms");
        assertEquals(SluiceEngine.EXIT_FAILURE, running.code);
        final String f = running.engine.failure();
        assertTrue(f.contains(t), f);
        assertTrue(f.contains("42P01") || f.contains("does not exist") || f.contains("no longer exists"), f);
        assertEquals(Map.of(new TopicPartition(topic, 0), 20L), TestServices.committed(group));
    }
}
