package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.source.FileCheckpoint;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * File sources on the real broker. A file source with {@code checkpoint_file}, over five runs of the engine:
 * <ol>
 *   <li>line 121 has no value and the rule no fallback: the run ends (exit 1) and the checkpoint holds line 120;</li>
 *   <li>with a fallback, the run resumes at line 121: lines 1-120 are in Kafka exactly once in the end;</li>
 *   <li>50 lines appended: only they are produced;</li>
 *   <li>the input truncated below the checkpoint: exit 1 naming both files, nothing produced;</li>
 *   <li>the input rewritten (another first line): exit 1, nothing produced.</li>
 * </ol>
 * Each line is about 330 bytes, so the input is larger than the 64 KiB the checkpoint identifies it by.
 */
class FileCheckpointIT
{
    private static final String PAD = "x".repeat(300);

    @TempDir
    Path dir;

    @Test
    void shouldResumeAfterTheLastLineInKafkaAndRefuseAnInputThatIsNotTheSame() throws Exception
    {
        final String t = "cp-it-" + Long.toString(System.nanoTime(), 36);
        final Path input = dir.resolve("in.jsonl");
        final Path pos = dir.resolve("in.pos");
        final List<String> lines = new ArrayList<>();
        for (int n = 0; n < 300; n++)
        {
            lines.add(n == 120 ? "{\"n\":120,\"pad\":\"" + PAD + "\"}" : line(n));
        }
        Files.write(input, lines, StandardCharsets.UTF_8);

        // 1: no fallback, line 121 has no "kind": the run ends at the stall limit; lines before it are in Kafka
        final SluiceEngine first = engine(t, input, pos, false);
        assertEquals(SluiceEngine.EXIT_FAILURE, first.run());
        assertTrue(first.failure().contains("line 121"), first.failure());
        assertEquals(120, FileCheckpoint.read(pos).line(), Files.readString(pos));

        // 2: with a fallback the next run resumes at line 121, not at line 1
        final SluiceEngine second = engine(t, input, pos, true);
        assertEquals(SluiceEngine.EXIT_OK, second.run(), second.failure());
        assertEquals(300, FileCheckpoint.read(pos).line());
        Map<Integer, Integer> seen = counts(t);
        for (int n = 0; n < 300; n++)
        {
            assertTrue(seen.getOrDefault(n, 0) >= 1, "line " + (n + 1) + " is in Kafka");
        }
        for (int n = 0; n < 120; n++)
        {
            assertEquals(1, seen.get(n), "line " + (n + 1) + " was produced by the first run only");
        }
        final int afterTwo = total(seen);

        // 3: appended lines are read, and only they
        final List<String> more = new ArrayList<>();
        for (int n = 300; n < 350; n++)
        {
            more.add(line(n));
        }
        Files.write(input, more, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        assertEquals(SluiceEngine.EXIT_OK, engine(t, input, pos, true).run());
        assertEquals(350, FileCheckpoint.read(pos).line());
        seen = counts(t);
        assertEquals(afterTwo + 50, total(seen), "only the 50 new lines were produced");
        for (int n = 300; n < 350; n++)
        {
            assertEquals(1, seen.get(n), "appended line " + (n + 1));
        }

        // 4: truncated below the checkpoint (still longer than 64 KiB): refused, nothing produced
        final String saved = Files.readString(pos);
        Files.write(input, lines.subList(0, 250), StandardCharsets.UTF_8);
        assertTrue(Files.size(input) > FileCheckpoint.PREFIX_BYTES);
        final SluiceEngine truncated = engine(t, input, pos, true);
        assertEquals(SluiceEngine.EXIT_FAILURE, truncated.run());
        assertTrue(truncated.failure().contains("has 250 lines, but its checkpoint_file " + pos + " says 350"),
            truncated.failure());
        assertEquals(saved, Files.readString(pos), "the checkpoint is left as it was");

        // 5: rewritten: another first line
        final List<String> rewritten = new ArrayList<>(lines);
        rewritten.set(0, line(1000));
        Files.write(input, rewritten, StandardCharsets.UTF_8);
        final SluiceEngine replaced = engine(t, input, pos, true);
        assertEquals(SluiceEngine.EXIT_FAILURE, replaced.run());
        assertTrue(replaced.failure().contains("is not the input its checkpoint_file " + pos + " was written for"),
            replaced.failure());
        assertEquals(saved, Files.readString(pos));
        assertEquals(afterTwo + 50, total(counts(t)), "nothing was produced by the refused runs");
        ScatterEndToEndIT.deleteTopics(topics(t));
    }

    /**
     * A file 25 times its source's replay buffer (5,000 lines of about 330 bytes through 64 KiB): the buffer wraps
     * around hundreds of times and every line lands once. Before the fix, a source that had caught up with the buffer
     * published the padding at its end as a record (line -1) and failed once it had read one buffer's worth.
     */
    @Test
    void shouldScatterAFileManyTimesLargerThanItsReplayBuffer() throws Exception
    {
        final String t = "cp-wrap-it-" + Long.toString(System.nanoTime(), 36);
        final Path input = dir.resolve("big.jsonl");
        final List<String> lines = new ArrayList<>();
        for (int n = 0; n < 5_000; n++)
        {
            lines.add(line(n));
        }
        Files.write(input, lines, StandardCharsets.UTF_8);
        assertTrue(Files.size(input) > 25L * 65_536);
        final String toml = "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[engine]\nmax_record_bytes = 4096\n"
            + "[[sources]]\nname = \"wrap\"\nkind = \"file\"\npath = '" + input + "'\nreplay_buffer_bytes = 65536\n"
            + "create_topics = true\n"
            + "[[sources.topics]]\ntopic = { strategy = \"field\", path = \"kind\", template = \"" + t
            + ".{value}\" }\n";
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), sink ->
        {
            throw new IllegalStateException("no sinks");
        }, source -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
        assertEquals(SluiceEngine.EXIT_OK, engine.run(), engine.failure());
        final Map<Integer, Integer> seen = counts(t);
        assertEquals(5_000, seen.size(), "every line");
        assertEquals(5_000, total(seen), "each once");
        ScatterEndToEndIT.deleteTopics(topics(t));
    }

    private static String line(final int n)
    {
        return "{\"n\":" + n + ",\"kind\":\"k" + (n % 3) + "\",\"pad\":\"" + PAD + "\"}";
    }

    private SluiceEngine engine(final String t, final Path input, final Path pos, final boolean fallback)
    {
        final String toml = "[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap() + "\"\n"
            + "[checkpoint]\nstalled_fail_after_ms = 2000\ncommit_interval_ms = 200\n"
            + "[[sources]]\nname = \"cp\"\nkind = \"file\"\npath = '" + input + "'\ncheckpoint_file = '" + pos + "'\n"
            + "create_topics = true\n"
            + "[[sources.topics]]\ntopic = { strategy = \"field\", path = \"kind\", template = \"" + t + ".{value}\""
            + (fallback ? ", fallback = \"" + t + ".fallback\"" : "") + " }\n";
        return new SluiceEngine(ConfigLoader.parse(toml), sink ->
        {
            throw new IllegalStateException("no sinks");
        }, source -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
    }

    private static Set<String> topics(final String t) throws Exception
    {
        final Set<String> out = new TreeSet<>();
        try (Admin admin = TestServices.admin())
        {
            for (final String name : admin.listTopics().names().get())
            {
                if (name.startsWith(t + "."))
                {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /** @return n -> how many records of line n the topics hold */
    private static Map<Integer, Integer> counts(final String t) throws Exception
    {
        final Map<Integer, Integer> out = new TreeMap<>();
        for (final ConsumerRecord<byte[], byte[]> r : ScatterEndToEndIT.readAll(topics(t)))
        {
            final String v = new String(r.value(), StandardCharsets.UTF_8);
            assertNotNull(v);
            final int n = Integer.parseInt(v.substring("{\"n\":".length(), v.indexOf(',')));
            out.merge(n, 1, Integer::sum);
        }
        return out;
    }

    private static int total(final Map<Integer, Integer> counts)
    {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }
}
