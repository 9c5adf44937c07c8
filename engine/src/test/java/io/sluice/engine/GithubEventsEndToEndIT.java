package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * The main job on the real services: the bundled GitHub sample, produced into a topic of 4 partitions, runs through
 * the shipped example configuration (examples/github-events.toml, with its own database, topic and group) into
 * ClickHouse. Every event lands in the table of its type, once; committed offsets equal the end offsets; a second
 * run after completion inserts nothing.
 */
class GithubEventsEndToEndIT
{
    private static final Map<String, String> TABLE_BY_TYPE = Map.of(
        "PushEvent", "push_events",
        "WatchEvent", "watch_events",
        "CreateEvent", "create_events",
        "IssuesEvent", "issues_events",
        "PullRequestEvent", "pull_request_events",
        "IssueCommentEvent", "issue_comment_events",
        "ForkEvent", "fork_events");

    private static String suffix;
    private static String database;
    private static String topic;
    private static String group;
    private static List<byte[]> lines;

    @BeforeAll
    static void setUp() throws Exception
    {
        suffix = Long.toString(System.currentTimeMillis(), 36);
        database = "github_it_" + suffix;
        topic = "github-it-" + suffix + ".events";
        group = "sluice-github-it-" + suffix;
        final Path root = TestServices.projectRoot();
        TestServices.sqlFile(root.resolve("examples/github-events.sql"),
            Map.of("github.", database + ".", "DATABASE IF NOT EXISTS github", "DATABASE IF NOT EXISTS " + database));
        lines = TestServices.sampleLines();
        TestServices.createTopic(topic, 4);
        TestServices.produce(topic, lines);
    }

    private static SluiceConfig config() throws Exception
    {
        return config(0);
    }

    /** @param metricsPort the metrics listener's port, 0 for none */
    private static SluiceConfig config(final int metricsPort) throws Exception
    {
        final String toml = Files.readString(TestServices.projectRoot().resolve("examples/github-events.toml"))
            .replace("127.0.0.1:${SLUICE_KAFKA_PORT:-19092}", TestServices.bootstrap())
            .replace("http://127.0.0.1:${SLUICE_CLICKHOUSE_HTTP_PORT:-18123}", TestServices.clickhouse())
            .replace("database = \"github\"", "database = \"" + database + "\"")
            .replace("pattern = 'github\\.events'", "pattern = '" + topic.replace(".", "\\.") + "'")
            .replace("group_id = \"sluice-github\"", "group_id = \"" + group + "\"")
            .replace("[checkpoint]", "[engine]\nstatus_interval_ms = 2000\n\n"
                + (metricsPort > 0 ? "[metrics]\nlisten = \"127.0.0.1:" + metricsPort + "\"\n\n" : "")
                + "[checkpoint]");
        return ConfigLoader.parse(toml);
    }

    private static int runUntilCaughtUp() throws Exception
    {
        return new SluiceEngine(config(), s -> new ClickHouseDriver(), new GatherPipeline.RunOptions(true)).run();
    }

    @Test
    void shouldLandEverySampleEventOnceInTheTableOfItsTypeAndCommitToTheEnd() throws Exception
    {
        // scraped every 100 ms while it runs: each scrape must parse with Prometheus' own parser, and together they
        // must show every gather and process series of docs/metrics.md with its documented labels
        final int port = TestServices.freePort();
        final List<String> scrapes = new CopyOnWriteArrayList<>();
        final SluiceEngine engine = new SluiceEngine(config(port), s -> new ClickHouseDriver(),
            new GatherPipeline.RunOptions(true));
        final Thread scraper = new Thread(() ->
        {
            while (!engine.finished())
            {
                final String body = MetricsContract.scrape(port);
                if (body != null && body.contains("sluice_records_in_total"))
                {
                    scrapes.add(body);
                }
                try
                {
                    Thread.sleep(100);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "scraper");
        scraper.start();
        assertEquals(SluiceEngine.EXIT_OK, engine.run());
        scraper.join(10_000);
        assertTrue(scrapes.size() >= 2, "scrapes during the run: " + scrapes.size());
        for (final String scrape : scrapes)
        {
            MetricsContract.assertParses(scrape);
        }
        MetricsContract.assertDocumentedSeries(scrapes, "Gather", "Process");

        final Map<String, Long> expected = expectedRowsPerTable();
        final Map<String, Long> actual = new TreeMap<>();
        for (final String table : expected.keySet())
        {
            actual.put(table, TestServices.sqlLong("SELECT count() FROM " + database + "." + table));
        }
        assertEquals(expected, actual, "rows per table");
        assertEquals(lines.size(), TestServices.sqlLong("SELECT uniqExact(id) FROM (" + unionOfIds() + ")"),
            "distinct ids");

        final Map<TopicPartition, Long> end = TestServices.endOffsets(topic, 4);
        assertEquals(end, TestServices.committed(group), "committed offsets equal end offsets");

        // a restart after completion finds nothing to do and inserts nothing twice
        assertEquals(SluiceEngine.EXIT_OK, runUntilCaughtUp());
        assertEquals(lines.size(), TestServices.sqlLong("SELECT count() FROM (" + unionOfIds() + ")"),
            "rows after restart");
        assertEquals(end, TestServices.committed(group));
    }

    @Test
    void shouldWriteTypedValuesFaithfully() throws Exception
    {
        // independent of test order: the other test may not have run yet, so make sure the data is there
        if (TestServices.sqlLong("SELECT count() FROM " + database + ".push_events") == 0)
        {
            assertEquals(SluiceEngine.EXIT_OK, runUntilCaughtUp());
        }
        // the first event of the sample, compared field by field with its text
        final String first = new String(lines.get(0), StandardCharsets.UTF_8);
        assertTrue(first.startsWith("{\"id\":\"2489368070\",\"type\":\"PushEvent\""), first.substring(0, 60));
        final String row = TestServices
            .sql("SELECT id, created_at, actor_login, repo_name, push_id, size, distinct_size, ref, head FROM "
                + database + ".push_events WHERE id = 2489368070 FORMAT TabSeparated")
            .trim();
        assertEquals("2489368070\t2015-01-01 00:00:00\tdavidjhulse\tdavidjhulse/davesbingrewardsbot\t536740396\t1\t1"
            + "\trefs/heads/master\ta9b22a6d80c1e0bb49c1cf75a3c075b642c28f81", row);
    }

    private static String unionOfIds()
    {
        final StringBuilder sb = new StringBuilder();
        for (final String t : expectedRowsPerTable().keySet())
        {
            if (sb.length() > 0)
            {
                sb.append(" UNION ALL ");
            }
            sb.append("SELECT id FROM ").append(database).append('.').append(t);
        }
        return sb.toString();
    }

    private static Map<String, Long> expectedRowsPerTable()
    {
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("type")), 64);
        final JsonValueView v = new JsonValueView();
        final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);
        final Map<String, Long> counts = new HashMap<>();
        for (final byte[] line : lines)
        {
            assertEquals(JsonError.NONE, scanner.scan(new UnsafeBuffer(line), 0, line.length));
            scanner.value(0, v);
            final int n = RoutingValues.derive(v, out, 0);
            final String type = out.getStringWithoutLengthUtf8(0, n);
            counts.merge(TABLE_BY_TYPE.getOrDefault(type, "other_events"), 1L, Long::sum);
        }
        return new TreeMap<>(counts);
    }
}
