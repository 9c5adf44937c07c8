package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Case T8 (issue 12, item 2) on the real broker and server: partition 0, offsets 0-4 go to tables A, B, A, B, A;
 * table B does not exist for 6 s (renamed away after the start, so the engine has resolved it), then is back. B's
 * inserts fail for good (UNKNOWN_TABLE), so the partition is re-read from its watermark (1) with backoff, several
 * times. A re-read sends only what was not written yet: afterwards A holds offsets 0, 2, 4 once each, B holds 1, 3
 * once each, and the committed offset is 5. Before the fix every re-read inserted A's 2 and 4 again. In both thread
 * layouts.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplayOnceIT
{
    @ParameterizedTest(name = "layout {0}")
    @ValueSource(strings = {"fused", "split"})
    void aReReadWritesEachRowOnce(final String layout, @TempDir final Path dir) throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String topic = "t8-" + layout + "-" + sfx;
        final String db = "t8_" + layout + "_" + sfx;
        final String group = "t8-" + sfx;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".a (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.sql("CREATE TABLE " + db + ".b (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 1);
        final Path cfg = dir.resolve("t8.toml");
        Files.writeString(cfg, "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\nstalled_fail_after_ms = 60000\n"
            + "[engine]\nstatus_interval_ms = 1000\n[tuning]\nlayout = \"" + layout + "\"\n"
            + "[[sinks]]\nname = \"t8\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
            + "\"\nlinger_ms = 100\nretry_backoff_ms = 200\nretry_backoff_max_ms = 1000\n"
            + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equals = \"a\" }\ntarget_table = \"a\"\n"
            + "[[sinks.branches]]\nname = \"b\"\nwhen = { path = \"t\", equals = \"b\" }\ntarget_table = \"b\"\n");
        final String out;
        final int rc;
        final long committed;
        try (EngineProcess e = EngineProcess.start("--config", cfg.toString()))
        {
            awaitLine(e, "assigned " + topic + "-0", 60);
            TestServices.sql("RENAME TABLE " + db + ".b TO " + db + ".b_away");
            final List<byte[]> records = new ArrayList<>();
            for (final String t : new String[]{"a", "b", "a", "b", "a"})
            {
                records.add(("{\"t\":\"" + t + "\",\"n\":" + records.size() + "}").getBytes(StandardCharsets.UTF_8));
            }
            TestServices.produce(topic, records);
            Thread.sleep(6_000);
            TestServices.sql("RENAME TABLE " + db + ".b_away TO " + db + ".b");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long c = -1;
            while (System.nanoTime() < deadline)
            {
                final Long v = TestServices.committed(group).get(new TopicPartition(topic, 0));
                c = v == null ? -1 : v;
                if (c == 5)
                {
                    break;
                }
                Thread.sleep(100);
            }
            committed = c;
            e.terminate();
            rc = e.waitFor(60);
            out = e.output();
        }
        assertEquals(0, rc, out);
        assertEquals(5, committed, out);
        assertEquals("0\n2\n4\n", TestServices.sql("SELECT n FROM " + db + ".a ORDER BY n"), "table A, each once");
        assertEquals("1\n3\n", TestServices.sql("SELECT n FROM " + db + ".b ORDER BY n"), "table B, each once");
        final long rereads = out.lines().filter(l -> l.contains("are written already and are not sent again")).count();
        assertTrue(rereads >= 1, "the partition was re-read with A's rows left out:\n" + out);
        assertTrue(out.contains("UNKNOWN_TABLE") || out.contains("doesn't exist"), out);
        TestServices.sql("DROP DATABASE " + db);
    }

    static void awaitLine(final EngineProcess e, final String text, final long seconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!e.output().contains(text))
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no line with '" + text + "' within " + seconds + " s:\n" + e.output());
            }
            Thread.sleep(50);
        }
    }
}
