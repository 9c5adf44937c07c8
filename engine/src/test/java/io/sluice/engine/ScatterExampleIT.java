package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.MetricsEndpoint;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * The shipped example, examples/scatter-users.toml (with its own topic names), on the real broker: two file sources
 * read the bundled GitHub sample; every event lands in the topic of its type, and in the user shard Kafka's
 * partitioner would give its actor's login among 8 partitions; the run ends with exit 0 once the file is in Kafka.
 */
class ScatterExampleIT
{
    @Test
    void shouldScatterTheSampleByTypeAndByUserShard() throws Exception
    {
        final String s = "scatter-it-" + Long.toString(System.nanoTime(), 36);
        final String toml = Files.readString(TestServices.projectRoot().resolve("examples/scatter-users.toml"))
            .replace("127.0.0.1:${SLUICE_KAFKA_PORT:-19092}", TestServices.bootstrap())
            .replace("path = \"examples/data/", "path = \"" + TestServices.projectRoot().resolve("examples/data") + "/")
            .replace("template = \"github.", "template = \"" + s + ".github.")
            .replace("fallback = \"github.", "fallback = \"" + s + ".github.");
        final SluiceConfig config = ConfigLoader.parse(toml);
        assertEquals(2, config.sources().size());

        final long start = System.nanoTime();
        final SluiceEngine engine = new SluiceEngine(config, sink ->
        {
            throw new IllegalStateException("no sinks");
        }, source -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
        final int code = engine.run();
        final long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(SluiceEngine.EXIT_OK, code);

        final List<byte[]> lines = TestServices.sampleLines();
        final Map<String, Long> expected = new TreeMap<>();
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("type", "actor.login")), 64);
        final JsonValueView v = new JsonValueView();
        final UnsafeBuffer out = new UnsafeBuffer(new byte[512]);
        final Map<String, String> shardOfLogin = new HashMap<>();
        for (final byte[] line : lines)
        {
            scanner.scan(new UnsafeBuffer(line), 0, line.length);
            scanner.value(0, v);
            expected.merge(s + ".github." + out.getStringWithoutLengthUtf8(0, RoutingValues.derive(v, out, 0)), 1L,
                Long::sum);
            scanner.value(1, v);
            final int n = RoutingValues.derive(v, out, 0);
            final byte[] login = new byte[n];
            out.getBytes(0, login);
            final String shard = s + ".github.users." + BuiltInPartitioner.partitionForKey(login, 8);
            expected.merge(shard, 1L, Long::sum);
            shardOfLogin.put(new String(login, StandardCharsets.UTF_8), shard);
        }

        final Set<String> topics = new TreeSet<>();
        try (Admin admin = TestServices.admin())
        {
            for (final String t : admin.listTopics().names().get())
            {
                if (t.startsWith(s + "."))
                {
                    topics.add(t);
                }
            }
        }
        // with create_topics the rule's fallback is created at start (outside max_new_topics_per_minute), so that a
        // record the broker refuses can go there at once; it stays empty here
        final Set<String> expectedTopics = new TreeSet<>(expected.keySet());
        expectedTopics.add(s + ".github.unrouted");
        assertEquals(expectedTopics, topics, "one topic per type, 8 user shards and the (empty) fallback");
        final Map<String, Long> actual = new TreeMap<>();
        final JsonScanner login = new JsonScanner(JsonPathSet.compile(List.of("actor.login")), 64);
        for (final ConsumerRecord<byte[], byte[]> r : ScatterEndToEndIT.readAll(topics))
        {
            actual.merge(r.topic(), 1L, Long::sum);
            if (r.topic().contains(".users."))
            {
                login.scan(new UnsafeBuffer(r.value()), 0, r.value().length);
                login.value(0, v);
                final String who = out.getStringWithoutLengthUtf8(0, RoutingValues.derive(v, out, 0));
                assertEquals(shardOfLogin.get(who), r.topic(), who);
            }
        }
        assertEquals(expected, actual, "every event once per source, in the right topic");
        assertTrue(actual.size() > 8);

        // what the metrics endpoint reports for the run: the same counts, per source
        final String metrics = MetricsEndpoint.scrape(engine::pipelines, engine::scatters);
        final long types = expected.keySet().stream().filter(t -> !t.contains(".users.")).count();
        for (final String source : List.of("github-by-type", "github-users"))
        {
            final long topicsOfSource = source.equals("github-users") ? 8 : types;
            assertEquals(lines.size(), metric(metrics, "sluice_scatter_records_in_total", source), metrics);
            assertEquals(lines.size(), metric(metrics, "sluice_scatter_routed_total", source), metrics);
            assertEquals(lines.size(), metric(metrics, "sluice_scatter_produced_total", source), metrics);
            assertEquals(0, metric(metrics, "sluice_scatter_fallback_total", source), metrics);
            assertEquals(0, metric(metrics, "sluice_scatter_failed_total", source), metrics);
            assertEquals(0, metric(metrics, "sluice_scatter_produce_errors_total", source), metrics);
            assertEquals(topicsOfSource + (source.equals("github-by-type") ? 1 : 0),
                metric(metrics, "sluice_scatter_topics_created_total", source), metrics);
            // the fallback topic (github-by-type's github.unrouted) is known from the start, used or not
            assertEquals(topicsOfSource + (source.equals("github-by-type") ? 1 : 0),
                metric(metrics, "sluice_scatter_topics", source), metrics);
            assertEquals(0, metric(metrics, "sluice_scatter_in_flight", source), metrics);
        }
        System.out.printf("scatter example IT: 2 x %d events into %d topics in %d ms%n", lines.size(), topics.size(),
            ms);
        ScatterEndToEndIT.deleteTopics(topics);
    }

    /** @return the value of {@code name{pipeline="..."}} in Prometheus text, as a whole number; fails when absent */
    private static long metric(final String text, final String name, final String source)
    {
        final String prefix = name + "{pipeline=\"" + source + "\"} ";
        for (final String line : text.split("\n"))
        {
            if (line.startsWith(prefix))
            {
                return (long)Double.parseDouble(line.substring(prefix.length()).trim());
            }
        }
        throw new AssertionError("no " + prefix + "in:\n" + text);
    }
}
