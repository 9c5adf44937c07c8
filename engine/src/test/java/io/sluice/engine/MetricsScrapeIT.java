package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/**
 * Both directions in one engine on the real services: a file source scatters the GitHub sample into one topic per
 * event type (created on first use), and a sink follows those topics into ClickHouse. The metrics listener is scraped
 * every 100 ms while it runs. Every scrape parses with Prometheus' own parser ({@code promtool check metrics}); every
 * series docs/metrics.md lists (gather, scatter, process) appears with exactly its documented labels; every series
 * the Grafana dashboard (docs/grafana/sluice.json) and the alert rules (docs/grafana/alerts.yml, which promtool
 * accepts) use exists in a real scrape.
 */
class MetricsScrapeIT
{
    @Test
    void shouldExposeEveryDocumentedSeriesAndEverySeriesTheDashboardAndAlertsUse() throws Exception
    {
        final String suffix = Long.toString(System.currentTimeMillis(), 36);
        final String prefix = "scrape-" + suffix;
        final String db = "scrape_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".events (id UInt64, type String, created_at DateTime) "
            + "ENGINE = MergeTree() ORDER BY id");
        final int port = TestServices.freePort();
        final long expected = TestServices.sampleLines().size();
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse("[kafka]\nbootstrap_servers = \""
            + TestServices.bootstrap() + "\"\n[metrics]\nlisten = \"127.0.0.1:" + port + "\"\n"
            + "[engine]\nstatus_interval_ms = 1000\n"
            + "[[sources]]\nname = \"scatter\"\nkind = \"file\"\npath = \""
            + TestServices.projectRoot().resolve("examples/data/github-events.jsonl.gz") + "\"\n"
            + "create_topics = true\npartitions = 2\n"
            + "[[sources.topics]]\ntopic = { strategy = \"field\", path = \"type\", template = \"" + prefix
            + ".{value}\", fallback = \"" + prefix + ".other\" }\n"
            + "[[sinks]]\nname = \"gather\"\nkind = \"clickhouse\"\npattern = '" + prefix.replace("-", "\\-")
            + "\\..*'\ngroup_id = \"g-" + suffix + "\"\ntopic_refresh_ms = 1000\n[sinks.plugin_config]\n"
            + "endpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db + "\"\ntarget_table = \"events\"\n"
            + "linger_ms = 200\n"),
            sink -> new ClickHouseDriver(), source -> new KafkaScatterDriver(), new GatherPipeline.RunOptions(false));
        final List<String> scrapes = new CopyOnWriteArrayList<>();
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
        final Thread runner = new Thread(engine::run, "engine");
        runner.start();
        scraper.start();
        try
        {
            final long deadline = System.nanoTime() + 120_000_000_000L;
            while (System.nanoTime() < deadline
                && TestServices.sqlLong("SELECT count() FROM " + db + ".events") < expected)
            {
                Thread.sleep(200);
            }
            assertEquals(expected, TestServices.sqlLong("SELECT count() FROM " + db + ".events"));
            Thread.sleep(1500); // a commit interval: lag samples and end-to-end latencies of the last rows
        }
        finally
        {
            engine.shutdown();
            runner.join(60_000);
            scraper.join(10_000);
        }
        assertTrue(scrapes.size() >= 5, "scrapes: " + scrapes.size());
        for (final String scrape : scrapes)
        {
            MetricsContract.assertParses(scrape);
        }
        MetricsContract.assertDocumentedSeries(scrapes, "Gather", "Scatter", "Process");

        final Set<String> exposed = MetricsContract.samples(scrapes).keySet();
        final Path grafana = TestServices.projectRoot().resolve("docs/grafana");
        final Set<String> used = new TreeSet<>();
        final JsonNode dashboard = new ObjectMapper().readTree(grafana.resolve("sluice.json").toFile());
        final List<String> queries = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
        dashboard.findValues("query").forEach(q -> queries.add(q.asText()));
        assertTrue(queries.size() > 30, "dashboard queries: " + queries.size());
        for (final String q : queries)
        {
            used.addAll(MetricsContract.seriesIn(q));
        }
        MetricsContract.assertRulesParse(grafana.resolve("alerts.yml"));
        for (final String line : Files.readAllLines(grafana.resolve("alerts.yml")))
        {
            if (line.strip().startsWith("expr:"))
            {
                used.addAll(MetricsContract.seriesIn(line));
            }
        }
        final Set<String> missing = new TreeSet<>(used);
        missing.removeAll(exposed);
        assertTrue(missing.isEmpty(), "the dashboard or the alerts use series no scrape has: " + missing);
        assertTrue(used.size() > 40, "series used: " + used);
        // the scatter side counted what it produced per topic, and the gather side read it all
        final String last = scrapes.get(scrapes.size() - 1);
        assertTrue(last.contains("sluice_scatter_topic_produced_total{pipeline=\"scatter\",topic=\"" + prefix
            + ".PushEvent\"}"), last);
    }
}
