package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split across kinds (issue 21) on the real broker, ClickHouse and PostgreSQL, through {@code engine.jar}: sink
 * {@code ch} (ClickHouse) consumes one topic and writes branch {@code a} to its own table, branch {@code b}
 * ({@code sink = "pg"}) to the PostgreSQL sink {@code pg}, a target with no topics of its own. Rows land in both. Then
 * each table in turn is renamed away: the other keeps taking rows, the commit is held at the first record of the
 * missing table's branch (the shared ack), and once the table is back the partition is re-read and both tables hold
 * each row once.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SplitAcrossKindsIT
{
    @Test
    void oneSplitWritesClickHouseAndPostgresAndEachDeadTableHoldsTheCommit(@TempDir final Path dir)
        throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String topic = "xkind-" + sfx;
        final String db = "xkind_" + sfx;
        final String schema = "xkind_" + sfx;
        final String group = "xkind-" + sfx;
        final Map<String, String> secrets = TestServices.secrets();
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".a (n UInt32) ENGINE = MergeTree() ORDER BY n");
        pg("CREATE SCHEMA \"" + schema + "\"", "CREATE TABLE \"" + schema + "\".\"b\" (n integer)");
        TestServices.createTopic(topic, 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        final Path cfg = dir.resolve("xkind.toml");
        Files.writeString(cfg, "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\nstalled_fail_after_ms = 90000\n"
            + "[engine]\nstatus_interval_ms = 1000\n"
            + "[[sinks]]\nname = \"ch\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
            + "\"\nlinger_ms = 100\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n"
            + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equals = \"a\" }\ntarget_table = \"a\"\n"
            + "[[sinks.branches]]\nname = \"b\"\nwhen = { path = \"t\", equals = \"b\" }\nsink = \"pg\"\n"
            + "[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\n"
            + "[sinks.plugin_config]\nurl = \"" + pgUrl() + "\"\nusername = \""
            + secrets.get("SLUICE_TEST_POSTGRES_USER") + "\"\npassword = \""
            + secrets.get("SLUICE_TEST_POSTGRES_PASSWORD") + "\"\nschema = \"" + schema
            + "\"\ntarget_table = \"b\"\nlinger_ms = 50\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n");
        final String out;
        final int rc;
        try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
        {
            ReplayOnceIT.awaitLine(e, "assigned " + topic + "-0", 60);
            TestServices.produce(topic, records(0, "a", "b", "a", "b"));
            await(() -> committed(group, tp) == 4, 60, "offsets 0-3 committed", e);
            assertEquals("0\n2\n", TestServices.sql("SELECT n FROM " + db + ".a ORDER BY n"), "ClickHouse's table");
            assertEquals(List.of("1", "3"), pgRows("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n"),
                "PostgreSQL's table");

            // PostgreSQL's table away: ClickHouse keeps taking rows, the commit is held at offset 5
            pg("ALTER TABLE \"" + schema + "\".\"b\" RENAME TO \"b_away\"");
            TestServices.produce(topic, records(4, "a", "b", "a", "b", "a"));
            await(() -> "0\n2\n4\n6\n8\n".equals(chSql("SELECT n FROM " + db + ".a ORDER BY n")), 60,
                "ClickHouse's rows 4, 6, 8 while PostgreSQL's table is away", e);
            holdsAtMost(group, tp, 5, e);
            pg("ALTER TABLE \"" + schema + "\".\"b_away\" RENAME TO \"b\"");
            await(() -> committed(group, tp) == 9, 90, "every offset committed once PostgreSQL's table is back", e);

            // ClickHouse's table away: PostgreSQL keeps taking rows, the commit is held at offset 9
            TestServices.sql("RENAME TABLE " + db + ".a TO " + db + ".a_away");
            TestServices.produce(topic, records(9, "a", "b", "a", "b"));
            await(() -> List.of("1", "3", "5", "7", "10", "12")
                .equals(pgRowsUnchecked("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n")), 60,
                "PostgreSQL's rows 10, 12 while ClickHouse's table is away", e);
            holdsAtMost(group, tp, 9, e);
            TestServices.sql("RENAME TABLE " + db + ".a_away TO " + db + ".a");
            await(() -> committed(group, tp) == 13, 90, "every offset committed once ClickHouse's table is back", e);
            e.terminate();
            rc = e.waitFor(60);
            out = e.output();
        }
        assertEquals(0, rc, out);
        assertEquals("0\n2\n4\n6\n8\n9\n11\n", TestServices.sql("SELECT n FROM " + db + ".a ORDER BY n"),
            "ClickHouse's table, each row once after both re-reads");
        assertEquals(List.of("1", "3", "5", "7", "10", "12"),
            pgRows("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n"), "PostgreSQL's table, each row once");
        TestServices.sql("DROP DATABASE " + db);
        pg("DROP SCHEMA \"" + schema + "\" CASCADE");
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
    }

    /** Over 40 commit intervals, nothing is committed past {@code limit}. */
    private static void holdsAtMost(final String group, final TopicPartition tp, final long limit,
        final EngineProcess e) throws InterruptedException
    {
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (System.nanoTime() < until)
        {
            final long c = committed(group, tp);
            assertTrue(c <= limit, "committed " + c + " past the missing table's first record (" + limit + "):\n"
                + e.output());
            Thread.sleep(100);
        }
    }

    private static String pgUrl()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    private static Connection open() throws SQLException
    {
        final Map<String, String> secrets = TestServices.secrets();
        final Properties p = new Properties();
        p.setProperty("user", secrets.get("SLUICE_TEST_POSTGRES_USER"));
        p.setProperty("password", secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(pgUrl(), p);
    }

    private static void pg(final String... statements) throws SQLException
    {
        try (Connection c = open(); Statement s = c.createStatement())
        {
            for (final String q : statements)
            {
                s.execute(q);
            }
        }
    }

    private static List<String> pgRows(final String query) throws SQLException
    {
        final List<String> out = new ArrayList<>();
        try (Connection c = open(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(query))
        {
            while (r.next())
            {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    private static List<String> pgRowsUnchecked(final String query)
    {
        try
        {
            return pgRows(query);
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static List<byte[]> records(final int first, final String... branches)
    {
        final List<byte[]> records = new ArrayList<>();
        for (final String t : branches)
        {
            records.add(("{\"t\":\"" + t + "\",\"n\":" + (first + records.size()) + "}")
                .getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }

    private static long committed(final String group, final TopicPartition tp)
    {
        try
        {
            final Long v = TestServices.committed(group).get(tp);
            return v == null ? -1 : v;
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static String chSql(final String query)
    {
        try
        {
            return TestServices.sql(query);
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static void await(final BooleanSupplier condition, final long seconds, final String what,
        final EngineProcess e) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("not within " + seconds + " s: " + what + "\n" + e.output());
            }
            Thread.sleep(100);
        }
    }
}
