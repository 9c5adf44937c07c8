package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.core.source.FileCheckpoint;

/**
 * Issue 17's one error path, on the real broker and server: a failpoint ({@code -Dsluice.failpoints}) makes one stage
 * throw on the record at offset 120 of 200, in {@code java -jar engine.jar} as users run it. Whatever the stage
 * (gather route, insert worker, Kafka source; scatter route, produce, admin, Kafka and file sources) and whatever the
 * thread layout (gather: fused and split), the run exits 1 at once, far inside {@code checkpoint.stalled_fail_after_ms}
 * (300 s here), naming the stage and the record; nothing is committed past the failing record, and every record below
 * the commit is in its table or topic.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class StageErrorIT
{
    private static final int RECORDS = 200;
    private static final long FAILING = 120;
    private static final long STALL_MS = 300_000;
    /** Far below the stall limit: a run that stopped only through it would take 300 s. */
    private static final long PROMPT_MS = 45_000;

    private static String unique(final String prefix)
    {
        return prefix + Long.toString(System.nanoTime(), 36);
    }

    private static List<byte[]> records()
    {
        final List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++)
        {
            out.add(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /** What one failing run left behind. */
    private record Run(int exit, long millis, String output)
    {
        void assertPromptFailure(final String failpoint, final String... named)
        {
            assertEquals(1, exit, output);
            assertTrue(millis < PROMPT_MS, "exit 1 after " + millis + " ms: not at once; output:\n" + output);
            assertTrue(output.contains("failpoint " + failpoint + " fired"), output);
            for (final String n : named)
            {
                assertTrue(output.contains(n), "the log names '" + n + "'; output:\n" + output);
            }
            final String last = output.lines().filter(l -> l.contains("stopped with a failure")).reduce((a, b) -> b)
                .orElse("");
            assertTrue(last.contains("failpoint " + failpoint), "the final line gives the reason: " + last);
            assertFalse(output.contains("(checkpoint.stalled_fail_after_ms) at"), "not the stall limit: " + output);
        }
    }

    private static Run run(final String failpoint, final String toml, final String... args) throws Exception
    {
        final Path f = EngineProcess.writeConfig(toml);
        final List<String> cmd = new ArrayList<>(List.of("--config", f.toString()));
        cmd.addAll(List.of(args));
        final long start = System.nanoTime();
        try (EngineProcess p = EngineProcess.start(List.of("-Dsluice.failpoints=" + failpoint),
            cmd.toArray(new String[0])))
        {
            final int exit = p.waitFor(STALL_MS / 1000 + 60);
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("stage error %s: exit %d after %d ms%n", failpoint, exit, ms);
            return new Run(exit, ms, p.output());
        }
    }

    private static String header(final String extra)
    {
        return "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 200\nstalled_fail_after_ms = " + STALL_MS + "\n"
            + "drain_timeout_ms = 20000\n" + extra;
    }

    private static long committed(final String group, final String topic) throws Exception
    {
        final Long c = TestServices.committed(group).get(new TopicPartition(topic, 0));
        return c == null ? 0 : c;
    }

    @ParameterizedTest(name = "{0} in the {1} layout")
    @CsvSource({"gather.route, fused", "gather.route, split", "gather.insert, fused", "gather.insert, split",
        "source, fused", "source, split"})
    void shouldExitOneAtOnceAndCommitNothingPastTheFailingRecordOfAGatherStage(final String stage, final String layout)
        throws Exception
    {
        final String topic = unique("stage-err-g-");
        final String db = unique("stage_err_");
        final String group = unique("g-");
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic, records());
        final String toml = header("[tuning]\nlayout = \"" + layout + "\"\n")
            + "[[sinks]]\nname = \"t\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
            + "\"\ntarget_table = \"t\"\nmax_rows = 50\nlinger_ms = 100\n";

        final Run r = run(stage + "@" + FAILING, toml, "--until-caught-up");

        final String where = topic + "-0@";
        switch (stage)
        {
            case "gather.route" -> r.assertPromptFailure(stage, "route stage failed on record " + where + FAILING);
            case "gather.insert" -> r.assertPromptFailure(stage, "insert worker t/shard-0-0 failed on batch of ",
                "(first record " + where);
            default -> r.assertPromptFailure(stage, "source failed on record " + where + FAILING);
        }
        assertTrue(r.output().contains("layout " + layout), r.output());
        final long committed = committed(group, topic);
        assertTrue(committed <= FAILING, "committed " + committed + ", past the failing record " + FAILING);
        assertEquals(committed, TestServices.sqlLong("SELECT count(DISTINCT n) FROM " + db + ".t WHERE n < "
            + committed), "every record below the commit is in the table");
        TestServices.sql("DROP DATABASE " + db);
    }

    /**
     * Issue 12, item 4: an {@link Error} (OutOfMemoryError, StackOverflowError) in any thread ends the run with exit 1
     * and a line naming the thread and the cause, as an exception does; before, Agrona's runner rethrew it past the
     * source's drain and the run could end "0 records in", exit 0, or hang with a dead source thread.
     */
    @ParameterizedTest(name = "{0}={2} in the {1} layout")
    @CsvSource({"source, fused, oom, t-source", "source, split, stackoverflow, t-source",
        "gather.route, split, oom, t-route", "gather.route, fused, stackoverflow, t-source",
        "gather.insert, split, oom, t-shard-0-0", "engine, fused, oom, main"})
    void shouldExitOneNamingTheThreadWhenAStageThrowsAnError(final String stage, final String layout,
        final String kind, final String thread) throws Exception
    {
        final String topic = unique("stage-error-g-");
        final String db = unique("stage_error_");
        final String group = unique("g-");
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".t (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 1);
        TestServices.produce(topic, records());
        final String toml = header("[tuning]\nlayout = \"" + layout + "\"\n")
            + "[[sinks]]\nname = \"t\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
            + "\"\ntarget_table = \"t\"\nmax_rows = 50\nlinger_ms = 100\n";

        final Run r = run(stage + ("engine".equals(stage) ? "" : "@" + FAILING) + "=" + kind, toml);

        final String error = "oom".equals(kind) ? "java.lang.OutOfMemoryError" : "java.lang.StackOverflowError";
        r.assertPromptFailure(stage, error + ": failpoint " + stage + " fired", "thread " + thread);
        final long committed = committed(group, topic);
        assertEquals(committed, TestServices.sqlLong("SELECT count(DISTINCT n) FROM " + db + ".t WHERE n < "
            + committed), "every record below the commit is in the table");
        if (!"engine".equals(stage))
        {
            assertTrue(committed <= FAILING, "committed " + committed + ", past the failing record " + FAILING);
        }
        TestServices.sql("DROP DATABASE " + db);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scatter.route", "scatter.produce", "source"})
    void shouldExitOneAtOnceAndCommitNothingPastTheFailingRecordOfAScatterStage(final String stage) throws Exception
    {
        final String input = unique("stage-err-s-");
        final String output = input + ".out";
        final String group = unique("g-");
        TestServices.createTopic(input, 1);
        TestServices.createTopic(output, 1);
        TestServices.produce(input, records());
        final String toml = header("")
            + "[[sources]]\nname = \"firehose\"\nkind = \"kafka\"\ninput_topics = [\"" + input + "\"]\ngroup_id = \""
            + group + "\"\n[[sources.topics]]\ntopic = \"" + output + "\"\n";

        final Run r = run(stage + "@" + FAILING, toml, "--until-caught-up");

        final String record = "record " + input + "-0@" + FAILING;
        r.assertPromptFailure(stage, switch (stage)
        {
            case "scatter.route" -> "route stage failed on " + record;
            case "scatter.produce" -> "produce stage failed on " + record;
            default -> "source failed on " + record;
        });
        final long committed = committed(group, input);
        assertTrue(committed <= FAILING, "committed " + committed + ", past the failing record " + FAILING);
        assertPresentBelow(committed, valuesIn(output));
    }

    @Test
    void shouldFailAtTheFirstAdminCallAndCommitNothing() throws Exception
    {
        final String input = unique("stage-err-a-");
        final String output = input + ".new";
        final String group = unique("g-");
        TestServices.createTopic(input, 1);
        TestServices.produce(input, records());
        final String toml = header("")
            + "[[sources]]\nname = \"firehose\"\nkind = \"kafka\"\ninput_topics = [\"" + input + "\"]\ngroup_id = \""
            + group + "\"\ncreate_topics = true\n[[sources.topics]]\ntopic = { strategy = \"field\", path = \"n\", "
            + "template = \"" + output + "{value}\" }\n";

        final Run r = run("scatter.admin", toml, "--until-caught-up");

        r.assertPromptFailure("scatter.admin", "admin failed on topics [" + output);
        assertEquals(0, committed(group, input), "no record was produced");
    }

    @Test
    void shouldFailAFileSourceAtOnceAndKeepItsCheckpointBelowTheFailingLine(@TempDir final Path dir) throws Exception
    {
        final String output = unique("stage-err-f-");
        TestServices.createTopic(output, 1);
        final Path file = dir.resolve("in.jsonl");
        final StringBuilder lines = new StringBuilder();
        for (final byte[] r : records())
        {
            lines.append(new String(r, StandardCharsets.UTF_8)).append('\n');
        }
        Files.writeString(file, lines);
        final Path checkpoint = dir.resolve("in.checkpoint");
        final String toml = header("")
            + "[[sources]]\nname = \"lines\"\nkind = \"file\"\npath = '" + file + "'\ncheckpoint_file = '" + checkpoint
            + "'\n[[sources.topics]]\ntopic = \"" + output + "\"\n";

        final Run r = run("source@" + FAILING, toml);

        r.assertPromptFailure("source", "source failed on line " + (FAILING + 1) + " of file " + file);
        final long line = FileCheckpoint.read(checkpoint).line();
        assertTrue(line <= FAILING, "the checkpoint says " + line + " lines are in Kafka, past the failing line");
        assertPresentBelow(line, valuesIn(output));
    }

    private static void assertPresentBelow(final long committed, final List<Long> values)
    {
        final TreeSet<Long> seen = new TreeSet<>(values);
        for (long n = 0; n < committed; n++)
        {
            assertTrue(seen.contains(n), "record " + n + " is below the commit (" + committed + ") but not in Kafka");
        }
    }

    /** Every value {@code {"n":i}} in a topic, read from the beginning to its end offsets. */
    private static List<Long> valuesIn(final String topic)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServices.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        final List<Long> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p))
        {
            final List<TopicPartition> tps = new ArrayList<>();
            for (final PartitionInfo info : c.partitionsFor(topic))
            {
                tps.add(new TopicPartition(topic, info.partition()));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            final Map<TopicPartition, Long> ends = c.endOffsets(tps);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp)) && System.nanoTime() < deadline)
            {
                for (final ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200)))
                {
                    final String v = new String(r.value(), StandardCharsets.UTF_8);
                    out.add(Long.parseLong(v.substring(v.indexOf(':') + 1, v.indexOf('}'))));
                }
            }
        }
        return out;
    }
}
