package io.sluice.bench.scatter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.scatter.internal.TopicRouter;
import io.sluice.core.scatter.internal.TopicTable;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The per-record work of the scatter route stage on the bundled GitHub sample (8,502 real events, 0.3 to 60 KB):
 * evaluate the rule ({@link TopicRouter}: derive, render, sanitise) and find the topic's id ({@link TopicTable}).
 * Scores are per record. Rules: {@code field actor.login} into one topic per user (thousands of topics),
 * {@code field type} (14 topics), {@code hash} of {@code repo.name} into 16 buckets, and {@code key}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TopicRouterBenchmark
{
    private static final int RECORDS = 8192;

    /** The rule, as written in a source's [[sources.topics]] block. */
    @Param({
        "{ strategy = \"field\", path = \"actor.login\", template = \"users.{value}\" }",
        "{ strategy = \"field\", path = \"type\", template = \"events.{value}\" }",
        "{ strategy = \"hash\", path = \"repo.name\", buckets = 16, template = \"shard.{value}\" }",
        "{ strategy = \"key\", template = \"keys.{value}\" }"})
    public String rule;

    private final RecordEvent[] records = new RecordEvent[RECORDS];
    private TopicRouter router;
    private TopicTable table;

    /** Loads the sample into record events (value, and the event id as key) and compiles the rule. */
    @Setup
    public void setUp()
    {
        final List<byte[]> lines = sample();
        for (int i = 0; i < RECORDS; i++)
        {
            final byte[] value = lines.get(i % lines.size());
            final byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            final RecordEvent e = new RecordEvent(new UnsafeBuffer(new byte[value.length + key.length + 64]));
            e.beginRecord(null, value.length + key.length, 0, 0, i, 0L, 0, 1);
            e.putValue(value);
            e.putKey(key);
            records[i] = e;
        }
        router = new TopicRouter(ConfigLoader.parse("[kafka]\nbootstrap_servers = \"x:1\"\n[[sources]]\nname = \"b\"\n"
            + "kind = \"stdin\"\n[[sources.topics]]\ntopic = " + rule + "\n").sources().get(0).rule());
        table = new TopicTable();
        for (final RecordEvent e : records)
        {
            route(e);
        }
    }

    private int route(final RecordEvent e)
    {
        final int result = router.route(e);
        return result == TopicRouter.MISSING ? -1 : table.intern(router.topic(), router.topicLength());
    }

    /**
     * Rule evaluation and topic lookup for every record of the sample, in order.
     *
     * @return a sum of topic ids (keeps the work alive)
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long routeAndLookUp()
    {
        long sum = 0;
        for (final RecordEvent e : records)
        {
            sum += route(e);
        }
        return sum;
    }

    private static List<byte[]> sample()
    {
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent())
        {
            final Path file = d.resolve("examples/data/github-events.jsonl.gz");
            if (Files.isRegularFile(file))
            {
                final List<byte[]> out = new ArrayList<>();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                    Files.newInputStream(file)), StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = r.readLine()) != null)
                    {
                        if (!line.isBlank())
                        {
                            out.add(line.getBytes(StandardCharsets.UTF_8));
                        }
                    }
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(e);
                }
                return out;
            }
        }
        throw new IllegalStateException("examples/data/github-events.jsonl.gz not found above " + dir);
    }
}
