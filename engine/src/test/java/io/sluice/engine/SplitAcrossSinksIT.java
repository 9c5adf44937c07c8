package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split across sinks on the real broker and server, through {@code engine.jar}: sink {@code ta} consumes one topic
 * and writes branch {@code a} to its own database, branch {@code b} (with {@code sink = "tb"}) to sink {@code tb}, a
 * target with no topics of its own, another database and other settings (one insert worker, its own linger, its own
 * table default). Rows land in both. Then tb's table is renamed away: ta's rows keep landing, but the commit is held
 * at the first record of tb's branch (the shared ack, as across tables of one sink); once the table is back the
 * partition is re-read, tb gets its rows and ta's table keeps each row once.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SplitAcrossSinksIT
{
    @Test
    void oneSplitWritesTwoSinksAndOneDeadTableHoldsTheCommit(@TempDir final Path dir) throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String topic = "xsink-" + sfx;
        final String dbA = "xsink_a_" + sfx;
        final String dbB = "xsink_b_" + sfx;
        final String group = "xsink-" + sfx;
        TestServices.sql("CREATE DATABASE " + dbA);
        TestServices.sql("CREATE DATABASE " + dbB);
        TestServices.sql("CREATE TABLE " + dbA + ".a (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.sql("CREATE TABLE " + dbB + ".b (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        final Path cfg = dir.resolve("xsink.toml");
        Files.writeString(cfg, "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\nstalled_fail_after_ms = 60000\n"
            + "[engine]\nstatus_interval_ms = 1000\n"
            + "[[sinks]]\nname = \"ta\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + dbA
            + "\"\nlinger_ms = 100\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n"
            + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equals = \"a\" }\ntarget_table = \"a\"\n"
            + "[[sinks.branches]]\nname = \"b\"\nwhen = { path = \"t\", equals = \"b\" }\nsink = \"tb\"\n"
            + "[[sinks]]\nname = \"tb\"\nkind = \"clickhouse\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + dbB
            + "\"\ntarget_table = \"b\"\ninsert_workers = 1\nlinger_ms = 50\nretry_backoff_ms = 200\n"
            + "retry_backoff_max_ms = 1000\n");
        final String out;
        final int rc;
        try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
        {
            ReplayOnceIT.awaitLine(e, "assigned " + topic + "-0", 60);
            TestServices.produce(topic, records(0, "a", "b", "a", "b"));
            await(() -> committed(group, tp) == 4, 60, "offsets 0-3 committed", e);
            assertEquals("0\n2\n", TestServices.sql("SELECT n FROM " + dbA + ".a ORDER BY n"), "ta's table");
            assertEquals("1\n3\n", TestServices.sql("SELECT n FROM " + dbB + ".b ORDER BY n"), "tb's table");

            TestServices.sql("RENAME TABLE " + dbB + ".b TO " + dbB + ".b_away");
            TestServices.produce(topic, records(4, "a", "b", "a", "b", "a"));
            // ta's table keeps taking rows while tb's is gone ...
            await(() -> "0\n2\n4\n6\n8\n".equals(sql("SELECT n FROM " + dbA + ".a ORDER BY n")), 60,
                "ta's rows 4, 6, 8 while tb's table is away", e);
            // ... but nothing is committed past offset 5, tb's first record since (observed over 40 commit intervals)
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < until)
            {
                final long c = committed(group, tp);
                assertTrue(c <= 5, "committed " + c + " past tb's first failed record (5):\n" + e.output());
                Thread.sleep(100);
            }
            TestServices.sql("RENAME TABLE " + dbB + ".b_away TO " + dbB + ".b");
            await(() -> committed(group, tp) == 9, 60, "every offset committed once tb's table is back", e);
            e.terminate();
            rc = e.waitFor(60);
            out = e.output();
        }
        assertEquals(0, rc, out);
        assertEquals("0\n2\n4\n6\n8\n", TestServices.sql("SELECT n FROM " + dbA + ".a ORDER BY n"),
            "ta's table, each row once after the re-read");
        assertEquals("1\n3\n5\n7\n", TestServices.sql("SELECT n FROM " + dbB + ".b ORDER BY n"),
            "tb's table, each row once");
        assertTrue(out.contains("tb: no pattern or topics"), "tb runs no pipeline of its own:\n" + out);
        assertTrue(out.lines().anyMatch(l -> l.contains("are written already and are not sent again")),
            "the re-read left ta's rows out:\n" + out);
        TestServices.sql("DROP DATABASE " + dbA);
        TestServices.sql("DROP DATABASE " + dbB);
    }

    static List<byte[]> records(final int first, final String... branches)
    {
        final List<byte[]> records = new ArrayList<>();
        for (final String t : branches)
        {
            records.add(("{\"t\":\"" + t + "\",\"n\":" + (first + records.size()) + "}")
                .getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }

    static long committed(final String group, final TopicPartition tp)
    {
        try
        {
            final Long v = TestServices.committed(group).get(tp);
            return v == null ? -1 : v;
        }
        catch (final Exception e)
        {
            // a broker slow to answer under load (a retriable error) is "not known yet": the caller's bounded wait
            // asks again; anything else fails the test
            if (e.getCause() instanceof RetriableException)
            {
                return -1;
            }
            throw new IllegalStateException(e);
        }
    }

    static String sql(final String query)
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

    static void await(final BooleanSupplier condition, final long seconds, final String what,
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
