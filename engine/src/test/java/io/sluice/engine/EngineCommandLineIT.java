package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code java -jar engine.jar} as users run it, against the real services: exit codes and the messages a user acts
 * on (unreachable ClickHouse named with its address, a missing table named with its database, a value that does not
 * convert named with topic, partition, offset, path and type), {@code on_error = "skip"}, and SIGTERM draining and
 * committing exactly what was written.
 */
class EngineCommandLineIT
{
    private static final String[] ABC = {"{\"n\":1,\"s\":\"a\"}", "{\"n\":2,\"s\":\"b\"}", "{\"n\":3,\"s\":\"c\"}"};

    private static String unique(final String prefix)
    {
        return prefix + Long.toString(System.nanoTime(), 36);
    }

    private static String config(final String topic, final String group, final String database, final String table,
        final String extraSink)
    {
        return "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 200\nstalled_fail_after_ms = 20000\n"
            + "[[sinks]]\nname = \"t\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n"
            + extraSink
            + "[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + database
            + "\"\n"
            + "target_table = \"" + table + "\"\nmax_rows = 1000\nlinger_ms = 200\n";
    }

    /** A fresh database with table t (n UInt8, s String) and a fresh topic holding {@code records}. */
    private record Fixture(String topic, String db)
    {
        static Fixture of(final String prefix, final int partitions, final String... records) throws Exception
        {
            final Fixture x = new Fixture(unique(prefix), unique("cli_db_"));
            TestServices.sql("CREATE DATABASE " + x.db);
            TestServices.sql("CREATE TABLE " + x.db + ".t (n UInt8, s String) ENGINE = MergeTree() ORDER BY n");
            TestServices.createTopic(x.topic, partitions);
            TestServices.produce(x.topic, java.util.Arrays.stream(records).map(EngineCommandLineIT::bytes).toList());
            return x;
        }

        /** The sink's configuration with max_rows far above the records and a linger of 10 minutes. */
        Path longLingerConfig(final String group) throws Exception
        {
            return EngineProcess.writeConfig(config(topic, group, db, "t", "")
                .replace("max_rows = 1000\nlinger_ms = 200\n", "max_rows = 100000\nlinger_ms = 600000\n"));
        }
    }

    @Test
    void shouldExitTwoAndNameEveryProblemOnABadConfiguration() throws Exception
    {
        final Path f = EngineProcess
            .writeConfig("[kafka]\nbootstrap_servers = \"x:1\"\n[[sinks]]\nname = \"s\"\nkind = \"clickhouse\"\n"
                + "group_id = \"g\"\npattern = \"a\"\nlinger = 5\n[sinks.plugin_config]\nendpoint = \"http://h:1\"\ntarget_table = \"t\"\nmax_rows = -3\n");
        try (EngineProcess p = EngineProcess.start("check", "--config", f.toString()))
        {
            assertEquals(2, p.waitFor(60));
            assertTrue(p.output().contains("sinks[0].linger (line 8): unknown key"), p.output());
            assertTrue(p.output().contains("sinks[0].plugin_config.max_rows (line 12): -3 is out of range"),
                p.output());
        }
        try (EngineProcess p = EngineProcess.start("--config", f.toString()))
        {
            assertEquals(2, p.waitFor(60), p.output());
        }
    }

    @Test
    void shouldAcceptTheShippedExample() throws Exception
    {
        try (EngineProcess p = EngineProcess.start("check", "--config",
            TestServices.projectRoot().resolve("examples/github-events.toml").toString()))
        {
            assertEquals(0, p.waitFor(60), p.output());
        }
    }

    @Test
    void shouldExitOneNamingAnUnreachableClickHouseAndAMissingTable() throws Exception
    {
        final String topic = unique("cli-unreach-");
        TestServices.createTopic(topic, 1);
        final String db = unique("cli_db_");
        TestServices.sql("CREATE DATABASE " + db);
        final Path unreachable = EngineProcess.writeConfig(config(topic, unique("g"), db, "t", "")
            .replace(TestServices.clickhouse(), "http://127.0.0.1:1"));
        try (EngineProcess p = EngineProcess.start("--config", unreachable.toString()))
        {
            assertEquals(1, p.waitFor(120), p.output());
            assertTrue(p.output().contains("http://127.0.0.1:1"), p.output());
        }
        final Path missing = EngineProcess.writeConfig(config(topic, unique("g"), db, "no_such_table", ""));
        try (EngineProcess p = EngineProcess.start("--config", missing.toString()))
        {
            assertEquals(1, p.waitFor(120), p.output());
            assertTrue(p.output().contains("table " + db + ".no_such_table does not exist in database " + db),
                p.output());
        }
    }

    @Test
    void shouldStopOnAValueThatDoesNotConvertNamingWhereAndCommitNothingPastIt() throws Exception
    {
        final Fixture x = Fixture.of("cli-conv-", 1, "{\"n\":1,\"s\":\"a\"}", "{\"n\":300,\"s\":\"b\"}",
            "{\"n\":2,\"s\":\"c\"}");
        final String topic = x.topic();
        final String db = x.db();
        final String group = unique("g");
        final Path f = EngineProcess.writeConfig(config(topic, group, db, "t", ""));
        try (EngineProcess p = EngineProcess.start("--config", f.toString(), "--until-caught-up"))
        {
            assertEquals(1, p.waitFor(120), p.output());
            assertTrue(p.output().contains("record " + topic + "-0@1: column n (UInt8) from path n: "), p.output());
            assertTrue(p.output().contains("(table " + db + ".t)"), p.output());
        }
        final Long committed = TestServices.committed(group).get(new TopicPartition(topic, 0));
        assertTrue(committed == null || committed <= 1, "committed " + committed);
        assertEquals(0, TestServices.sqlLong("SELECT count() FROM " + db + ".t WHERE s = 'b'"),
            "the bad record was never written");

        final String skipGroup = unique("g");
        final Path skip = EngineProcess.writeConfig(config(topic, skipGroup, db, "t", "on_error = \"skip\"\n"));
        try (EngineProcess p = EngineProcess.start("--config", skip.toString(), "--until-caught-up"))
        {
            assertEquals(0, p.waitFor(120), p.output());
            assertTrue(p.output().contains("skipped record " + topic + "-0@1"), p.output());
        }
        assertEquals(Map.of(new TopicPartition(topic, 0), 3L), TestServices.committed(skipGroup));
        assertEquals("a\nc\n", TestServices.sql("SELECT DISTINCT s FROM " + db + ".t ORDER BY s"));
    }

    @Test
    void shouldSealOpenBatchesOnceReadToTheEndInsteadOfWaitingOutTheLinger() throws Exception
    {
        // linger_ms of 10 minutes and max_rows far above the records: before, --until-caught-up waited out the linger
        // (the batch sealed 10 minutes later); now the batch is sealed once every partition is read to its end
        final Fixture x = Fixture.of("cli-end-", 2, ABC);
        final String db = x.db();
        final String group = unique("g");
        final Path f = x.longLingerConfig(group);
        final long start = System.nanoTime();
        try (EngineProcess p = EngineProcess.start("--config", f.toString(), "--until-caught-up"))
        {
            assertEquals(0, p.waitFor(120), p.output());
        }
        final long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(seconds < 120, "ran " + seconds + " s");
        assertEquals("a\nb\nc\n", TestServices.sql("SELECT s FROM " + db + ".t ORDER BY s"));
        long committed = 0;
        for (final Long c : TestServices.committed(group).values())
        {
            committed += c;
        }
        assertEquals(3, committed);
    }

    @Test
    void shouldSealTheReReadRecordsOnceReadToTheEndAgain() throws Exception
    {
        // the batch fails (its table renamed away between the destination's binding and the insert), the partition
        // is re-read: those records must be sealed at once too, not linger_ms = 600000 later. The rename races the
        // insert, so a try whose insert won is started again (at most 5)
        for (int attempt = 0; attempt < 5; attempt++)
        {
            final Fixture x = Fixture.of("cli-reread-", 1, ABC);
            final String topic = x.topic();
            final String db = x.db();
            final String group = unique("g");
            final Path f = x.longLingerConfig(group);
            try (EngineProcess p = EngineProcess.start("--config", f.toString(), "--until-caught-up"))
            {
                final long deadline = System.nanoTime() + 60_000_000_000L;
                while (!p.output().contains("destination `" + db + "`.`t` ") && System.nanoTime() < deadline)
                {
                    Thread.sleep(5);
                }
                TestServices.sql("RENAME TABLE " + db + ".t TO " + db + ".away");
                if (TestServices.sqlLong("SELECT count() FROM " + db + ".away") > 0)
                {
                    continue; // the insert came first: nothing was re-read
                }
                while (!p.output().contains("doesn't exist") && System.nanoTime() < deadline)
                {
                    Thread.sleep(20);
                }
                assertTrue(p.output().contains("doesn't exist"), p.output());
                TestServices.sql("RENAME TABLE " + db + ".away TO " + db + ".t");
                final long start = System.nanoTime();
                assertEquals(0, p.waitFor(120), p.output());
                final long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                assertTrue(seconds < 120, "ran " + seconds + " s after the table came back");
            }
            assertEquals("a\nb\nc\n", TestServices.sql("SELECT s FROM " + db + ".t ORDER BY s"));
            assertEquals(Map.of(new TopicPartition(topic, 0), 3L), TestServices.committed(group));
            return;
        }
        throw new AssertionError("the insert came before the rename in every try");
    }

    @Test
    void shouldLogOneJsonObjectPerLineWithStructuredFieldsAndTextWithAnIsoDate() throws Exception
    {
        final String topic = unique("cli-json-");
        final String db = unique("cli_db_");
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (n UInt8, s String) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic,
            List.of(bytes("{\"n\":1,\"s\":\"a\"}"), bytes("{\"n\":300,\"s\":\"b\"}"), bytes("{\"n\":2,\"s\":\"c\"}")));
        final Pattern iso = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})");
        final String toml = config(topic, unique("g"), db, "t", "on_error = \"skip\"\n")
            .replace("[checkpoint]", "[engine]\nstatus_interval_ms = 100\n[checkpoint]");
        final ObjectMapper json = new ObjectMapper();
        try (EngineProcess p = EngineProcess.start("--log-format", "json", "--config",
            EngineProcess.writeConfig(toml).toString(), "--until-caught-up"))
        {
            assertEquals(0, p.waitFor(120), p.output());
            int lines = 0;
            boolean status = false;
            boolean coordinates = false;
            for (final String line : p.output().split("\n"))
            {
                if (line.isEmpty())
                {
                    continue;
                }
                final JsonNode n = json.readTree(line); // throws on a line that is not JSON
                assertTrue(n.isObject(), line);
                for (final String field : List.of("time", "level", "logger", "thread", "message"))
                {
                    assertTrue(n.hasNonNull(field), field + " missing: " + line);
                }
                assertTrue(iso.matcher(n.get("time").asText()).find(), line);
                status |= "status".equals(n.path("event").asText()) && "t".equals(n.path("pipeline").asText())
                    && n.has("records_in") && n.has("rows");
                coordinates |= n.has("topic") && n.has("partition") && n.has("offset") && n.has("pipeline");
                lines++;
            }
            assertTrue(lines > 5, p.output());
            assertTrue(status, "no structured status event: " + p.output());
            assertTrue(coordinates, "no event with pipeline, topic, partition, offset: " + p.output());
        }
        try (EngineProcess p = EngineProcess.start("--config", EngineProcess.writeConfig(
            toml.replace("group_id = \"", "group_id = \"text-")).toString(), "--until-caught-up"))
        {
            assertEquals(0, p.waitFor(120), p.output());
            for (final String line : p.output().split("\n"))
            {
                if (!line.isEmpty() && !line.startsWith("\t") && !line.startsWith("  "))
                {
                    assertTrue(iso.matcher(line).find(), "no ISO-8601 date and zone: " + line);
                }
            }
        }
    }

    @Test
    void shouldPrintOnSigusr1UnderFlightRecorderAndDrainCommitAndExitZeroOnSigterm() throws Exception
    {
        final String topic = unique("cli-term-");
        final String db = unique("cli_db_");
        final Path root = TestServices.projectRoot();
        TestServices.sqlFile(root.resolve("examples/github-events.sql"),
            Map.of("github.", db + ".", "DATABASE IF NOT EXISTS github",
                "DATABASE IF NOT EXISTS " + db));
        final List<byte[]> lines = TestServices.sampleLines();
        TestServices.createTopic(topic, 4);
        final String group = unique("g");
        final String toml = Files.readString(root.resolve("examples/github-events.toml"))
            .replace("127.0.0.1:${SLUICE_KAFKA_PORT:-19092}", TestServices.bootstrap())
            .replace("http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}", TestServices.clickhouse())
            .replace("database = \"github\"", "database = \"" + db + "\"")
            .replace("pattern = 'github\\.events'", "pattern = '" + topic + "'")
            .replace("group_id = \"sluice-github\"", "group_id = \"" + group + "\"")
            .replace("linger_ms = 1000", "linger_ms = 100\nmax_rows = 50");
        final Path f = EngineProcess.writeConfig(toml.replace("max_rows = 20000\n", ""));
        final String union = "SELECT id FROM " + db + ".push_events UNION ALL SELECT id FROM " + db
            + ".watch_events UNION ALL SELECT id FROM "
            + db + ".create_events UNION ALL SELECT id FROM " + db + ".issues_events UNION ALL SELECT id FROM " + db
            + ".pull_request_events UNION ALL SELECT id FROM " + db + ".issue_comment_events UNION ALL SELECT id FROM "
            + db
            + ".fork_events UNION ALL SELECT id FROM " + db + ".other_events";
        // under Java Flight Recorder's thread sampler, which HotSpot drives with SIGUSR2 on Linux: the engine must
        // leave that signal to the JVM (a handler on it took the sampler's signals, 40-125 a second)
        final Path jfr = Files.createTempDirectory(Path.of("target"), "jfr-").toAbsolutePath();
        try (EngineProcess p = EngineProcess.start(List.of("-XX:StartFlightRecording=settings=profile,filename="
            + jfr.resolve("run.jfr")), "--config", f.toString()))
        {
            // feed the topic while the engine runs, and stop it in the middle
            TestServices.produce(topic, lines.subList(0, lines.size() / 2));
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (TestServices.sqlLong("SELECT count() FROM (" + union + ")") == 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(100);
            }
            // kill -USR1: the counters and latencies so far, the run goes on
            p.signal("USR1");
            final long printed = System.nanoTime() + 30_000_000_000L;
            while (!p.output().contains("[SIGUSR1 handler]") && System.nanoTime() < printed)
            {
                Thread.sleep(100);
            }
            assertTrue(p.output().contains("[SIGUSR1 handler]"), "SIGUSR1 prints the summary so far: " + p.output());
            assertFalse(p.output().contains("[SIGUSR2 handler]"), "no handler on the JVM's SIGUSR2");
            TestServices.produce(topic, lines.subList(lines.size() / 2, lines.size()));
            p.terminate();
            assertEquals(0, p.waitFor(120), p.output());
            assertTrue(p.output().contains("signal TERM received: draining"), p.output());
        }
        final long written = TestServices.sqlLong("SELECT count() FROM (" + union + ")");
        final long committed = TestServices.committed(group).values().stream().mapToLong(Long::longValue).sum();
        assertEquals(written, committed, "a drained stop commits exactly what it wrote");
        // a restart picks up where it stopped: every event once, no duplicates
        try (EngineProcess p = EngineProcess.start("--config", f.toString(), "--until-caught-up"))
        {
            assertEquals(0, p.waitFor(180), p.output());
        }
        assertEquals(lines.size(), TestServices.sqlLong("SELECT count() FROM (" + union + ")"));
        assertEquals(lines.size(), TestServices.sqlLong("SELECT uniqExact(id) FROM (" + union + ")"));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
