package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
        PostgresSinkIT.sql("CREATE SCHEMA \"" + schema + "\"", "CREATE TABLE \"" + schema + "\".\"b\" (n integer)");
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
            + "[sinks.plugin_config]\nurl = \"" + PostgresSinkIT.url() + "\"\nusername = \""
            + secrets.get("SLUICE_TEST_POSTGRES_USER") + "\"\npassword = \""
            + secrets.get("SLUICE_TEST_POSTGRES_PASSWORD") + "\"\nschema = \"" + schema
            + "\"\ntarget_table = \"b\"\nlinger_ms = 50\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n");
        final String out;
        final int rc;
        try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
        {
            ReplayOnceIT.awaitLine(e, "assigned " + topic + "-0", 60);
            TestServices.produce(topic, SplitAcrossSinksIT.records(0, "a", "b", "a", "b"));
            SplitAcrossSinksIT.await(() -> SplitAcrossSinksIT.committed(group, tp) == 4, 60, "offsets 0-3 committed",
                e);
            assertEquals("0\n2\n", TestServices.sql("SELECT n FROM " + db + ".a ORDER BY n"), "ClickHouse's table");
            assertEquals(List.of("1", "3"), PostgresSinkIT.rows("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n"),
                "PostgreSQL's table");

            // PostgreSQL's table away: ClickHouse keeps taking rows, the commit is held at offset 5
            PostgresSinkIT.sql("ALTER TABLE \"" + schema + "\".\"b\" RENAME TO \"b_away\"");
            TestServices.produce(topic, SplitAcrossSinksIT.records(4, "a", "b", "a", "b", "a"));
            SplitAcrossSinksIT.await(
                () -> "0\n2\n4\n6\n8\n".equals(SplitAcrossSinksIT.sql("SELECT n FROM " + db + ".a ORDER BY n")), 60,
                "ClickHouse's rows 4, 6, 8 while PostgreSQL's table is away", e);
            holdsAtMost(group, tp, 5, e);
            PostgresSinkIT.sql("ALTER TABLE \"" + schema + "\".\"b_away\" RENAME TO \"b\"");
            SplitAcrossSinksIT.await(() -> SplitAcrossSinksIT.committed(group, tp) == 9, 90,
                "every offset committed once PostgreSQL's table is back", e);

            // ClickHouse's table away: PostgreSQL keeps taking rows, the commit is held at offset 9
            TestServices.sql("RENAME TABLE " + db + ".a TO " + db + ".a_away");
            TestServices.produce(topic, SplitAcrossSinksIT.records(9, "a", "b", "a", "b"));
            SplitAcrossSinksIT.await(() -> List.of("1", "3", "5", "7", "10", "12")
                .equals(pgRowsUnchecked("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n")), 60,
                "PostgreSQL's rows 10, 12 while ClickHouse's table is away", e);
            holdsAtMost(group, tp, 9, e);
            TestServices.sql("RENAME TABLE " + db + ".a_away TO " + db + ".a");
            SplitAcrossSinksIT.await(() -> SplitAcrossSinksIT.committed(group, tp) == 13, 90,
                "every offset committed once ClickHouse's table is back", e);
            e.terminate();
            rc = e.waitFor(60);
            out = e.output();
        }
        assertEquals(0, rc, out);
        assertEquals("0\n2\n4\n6\n8\n9\n11\n", TestServices.sql("SELECT n FROM " + db + ".a ORDER BY n"),
            "ClickHouse's table, each row once after both re-reads");
        assertEquals(List.of("1", "3", "5", "7", "10", "12"),
            PostgresSinkIT.rows("SELECT n FROM \"" + schema + "\".\"b\" ORDER BY n"),
            "PostgreSQL's table, each row once");
        TestServices.sql("DROP DATABASE " + db);
        PostgresSinkIT.sql("DROP SCHEMA \"" + schema + "\" CASCADE");
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
    }

    /** Over 40 commit intervals, nothing is committed past {@code limit}. */
    private static void holdsAtMost(final String group, final TopicPartition tp, final long limit,
        final EngineProcess e) throws InterruptedException
    {
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (System.nanoTime() < until)
        {
            final long c = SplitAcrossSinksIT.committed(group, tp);
            assertTrue(c <= limit, "committed " + c + " past the missing table's first record (" + limit + "):\n"
                + e.output());
            Thread.sleep(100);
        }
    }

    private static List<String> pgRowsUnchecked(final String query)
    {
        try
        {
            return PostgresSinkIT.rows(query);
        }
        catch (final SQLException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
