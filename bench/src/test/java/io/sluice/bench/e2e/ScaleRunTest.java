package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;

/**
 * The cost curve's parts that need no services: the step's configuration derived from
 * {@code examples/users-three-lines.toml} is the three-line design with the step's names, the report's comparison
 * against the goals, the distribution and the chart.
 */
class ScaleRunTest
{
    private static final ScaleSink.Step STEP = new ScaleSink.Step(100, 20_000, "sluice-scale-x-100.users",
        "sluice-scale-x-100.signups", "g-signups", "g-users", "sluice_scale_x_100");

    @Test
    void shouldDeriveTheStepsPipelineFromTheExample() throws Exception
    {
        final Path root = Path.of("..").toAbsolutePath().normalize();
        final String toml = new ClickHouseScaleSink("http://127.0.0.1:1", root, 5000).config(STEP, "127.0.0.1:2");
        final SluiceConfig c = ConfigLoader.parse(toml);
        final SluiceConfig.Sink sink = c.sinks().get(0);
        assertEquals("user_{topic_segment[-1]}", sink.branches().get(0).targetTable());
        assertTrue(toml.contains("pattern = 'sluice-scale-x-100\\.users\\..*'"), toml);
        assertTrue(toml.contains("template = \"sluice-scale-x-100.users.{value}\""), toml);
        assertTrue(toml.contains("(id UInt64, user_id String, event String, at DateTime DEFAULT now())"), toml);
        assertTrue(toml.contains("max_new_topics_per_minute = 5000"), toml);
        assertTrue(toml.contains("database = \"sluice_scale_x_100\""), toml);
        assertTrue(toml.contains("input_topics = [\"sluice-scale-x-100.signups\"]"), toml);
        assertTrue(toml.contains("bootstrap_servers = \"127.0.0.1:2\""), toml);
        assertTrue(toml.contains("endpoint = \"http://127.0.0.1:1\""), toml);
        assertEquals("user_42", STEP.tableOf(42));
        // a topic per user: the example's small ack window, and the step's own engine key in the same [engine] table
        final SluiceConfig withCheck = ConfigLoader
            .parse(ScaleRun.withEngineKey(toml, "kafka_check_timeout_ms = 60000"));
        assertEquals(8192, withCheck.engine().ackWindow());
        assertEquals(60_000, withCheck.engine().kafkaCheckTimeoutMs());
        assertEquals(4096, withCheck.sinks().get(0).plugin().maxRows());
        // a topic per user: the scatter producer's small batches, so that every user's partition has one open
        assertEquals("4096", withCheck.kafka().producerProperties().get("batch.size"));
        assertEquals("67108864", withCheck.kafka().producerProperties().get("buffer.memory"));
        assertEquals("false", withCheck.kafka().producerProperties().get("enable.metrics.push"));
        assertEquals("false", withCheck.kafka().consumerProperties().get("enable.metrics.push"));
        assertTrue(ScaleRun.withEngineKey("[kafka]\n", "ack_window = 64").endsWith("\n[engine]\nack_window = 64\n"));
        // the example's [metrics] table (histograms summed over the users' tables) gets the step's listener
        final SluiceConfig served = ConfigLoader.parse(ScaleRun.withMetricsListen(toml, "127.0.0.1:9999"));
        assertEquals("127.0.0.1:9999", served.metrics().listen());
        assertFalse(served.metrics().tableHistograms());
        assertTrue(
            ScaleRun.withMetricsListen("[kafka]\n", "127.0.0.1:1").endsWith("\n[metrics]\nlisten = \"127.0.0.1:1\"\n"));
    }

    @Test
    void shouldCompareEveryStepWithTheSmallestFinishedOneAgainstTheGoals()
    {
        final List<Map<String, Object>> steps = new ArrayList<>();
        steps.add(step(10, 10_000, 50e6, true));
        steps.add(step(1_000, 6_000, 50e6 + 990 * 80 * 1024, true)); // 0.6 of the records/s, 80 KiB per topic
        steps.get(0).put("warm_records_per_s", 40_000.0);
        steps.get(0).put("warm_engine_cpu_us_per_record", 10.0);
        steps.get(1).put("warm_records_per_s", 30_000.0); // 0.75 of the warm records/s
        steps.get(1).put("warm_engine_cpu_us_per_record", 15.0);
        steps.add(step(10_000, Double.NaN, Double.NaN, false));
        final Map<String, Object> c = ScaleReport.comparison(steps);
        assertEquals(10, c.get("base_topics"));
        @SuppressWarnings("unchecked")
        final List<Map<String, Object>> per = (List<Map<String, Object>>)c.get("steps");
        assertEquals(0.6, (double)per.get(1).get("records_per_s_vs_base"), 1e-9);
        assertEquals(false, per.get(1).get("goal_records_per_s_met"));
        assertEquals(0.75, (double)per.get(1).get("warm_records_per_s_vs_base"), 1e-9);
        assertEquals(true, per.get(1).get("goal_warm_records_per_s_met"));
        assertEquals(1.5, (double)per.get(1).get("warm_cpu_per_record_vs_base"), 1e-9);
        assertFalse(per.get(0).containsKey("goal_records_per_s_met"), "the base step has no goal of its own");
        assertEquals(80 * 1024, (double)per.get(1).get("heap_bytes_per_extra_topic"), 1e-6);
        assertEquals(false, per.get(1).get("goal_memory_per_topic_met"));
        assertEquals(false, per.get(2).get("finished_and_verified"));
        assertEquals(false, per.get(2).get("goal_records_per_s_met"), "a step that did not finish misses its goal");
        final Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("run", "x");
        summary.put("sink", "clickhouse");
        summary.put("records_per_step", 20_000L);
        summary.put("machine", Map.of("summary", "test machine"));
        summary.put("load_average_at_start", "1 1 1");
        summary.put("load_average_at_end", "1 1 1");
        summary.put("command", "scripts/bench.sh --scale");
        summary.put("comparison", c);
        summary.put("steps", steps);
        final Map<String, Object> rows = new LinkedHashMap<>(Map.of("period_ms", 250L, "calls", 400L,
            "ms_per_call", 12.5, "ms_max", 80.0));
        final Map<String, Object> scrape = new LinkedHashMap<>(Map.of("period_ms", 2000L, "calls", 50L,
            "ms_per_call", 30.25, "ms_max", 90.0));
        final Map<String, Object> probes = new LinkedHashMap<>();
        probes.put("rows", rows);
        probes.put("engine_metrics", scrape);
        probes.put("probes_ms_per_s", 61.0);
        probes.put("bench_cpu_ms_per_s", 44.0);
        probes.put("engine_cpu_ms_per_metrics_scrape", 27.5);
        steps.get(1).put("probes", probes);
        final Map<String, Object> growth = new LinkedHashMap<>();
        growth.put("base_topics", 10);
        growth.put("1000", Map.of("total_bytes_per_extra_topic", 115_000.0, "top_classes", List.of(
            Map.of("class", "[J", "bytes_per_extra_topic", 65_536.0, "instances_per_extra_topic", 1.0))));
        summary.put("heap_growth_by_class", growth);
        final String text = ScaleReport.text(summary);
        assertTrue(text.contains("x0.60 (goal >= 0.7: NOT met)"), text);
        assertTrue(text.contains("warm pass records/s x0.75 (met), CPU per record x1.50"), text);
        assertTrue(text.matches("(?s).*\\|   1,000 \\|     6,000 \\| .*\\|    30,000 \\|      15\\.0 \\| .*"), text);
        assertTrue(text.contains("The bench's own cost, 1,000 topics: probes 61.0 ms of every second"), text);
        assertTrue(text.contains("the engine 27.5 ms CPU per /metrics scrape"), text);
        assertTrue(text.contains(" rows (250: 400 x 12.5, 80) engine_metrics (2000: 50 x 30.3, 90)"), text);
        assertTrue(text.contains("Live heap by class, 1000 topics against 10"), text);
        assertTrue(text.contains("115,000 bytes per extra topic in all"), text);
        assertTrue(text.matches("(?s).*65,536 B/topic +1\\.0 instances/topic  \\[J\n.*"), text);
        assertTrue(text.contains("10,000 topics did not finish: broker: test"), text);
        final String svg = ScaleChart.svg(summary);
        assertTrue(svg.startsWith("<svg") && svg.strip().endsWith("</svg>"), svg);
        assertTrue(svg.contains("did not finish"), svg);
        assertTrue(svg.contains("10,000"), svg);
        assertTrue(svg.contains("warm pass (they exist)"), svg);
    }

    @Test
    void shouldTellAStepWhoseRowsWereNotCheckedFromOneThatFailedTheCheck()
    {
        final Map<String, Object> unchecked = step(10_000, 900, 1e9, false);
        unchecked.remove("failure");
        unchecked.put("verified", Map.of("ok", false, "error", "database: the verification query failed: timeout"));
        assertTrue(ScaleReport.line(unchecked).contains("not verified: database: the verification query failed"),
            ScaleReport.line(unchecked));
        final Map<String, Object> wrong = step(10_000, 900, 1e9, false);
        wrong.remove("failure");
        wrong.put("verified", Map.of("ok", false, "rows", 5L, "lost", 1L, "duplicates", 0L, "wrong", 0L));
        assertTrue(ScaleReport.line(wrong).contains("verification FAILED: 5 rows, 1 lost"), ScaleReport.line(wrong));
    }

    @Test
    void shouldNotCallAGoalMetByARunOfOneStep()
    {
        final Map<String, Object> c = ScaleReport.comparison(List.of(step(1_000, 6_000, 50e6, true)));
        @SuppressWarnings("unchecked")
        final Map<String, Object> only = ((List<Map<String, Object>>)c.get("steps")).get(0);
        assertEquals(1.0, (double)only.get("records_per_s_vs_base"), 1e-9);
        assertFalse(only.containsKey("goal_records_per_s_met"), only.toString());
    }

    @Test
    void shouldGiveTheDistributionOfPickUpTimes()
    {
        final Map<String, Object> d = ScaleReport.distribution(List.of(5L, 1L, 3L, 2L, 4L, 10L, 6L, 7L, 8L, 9L));
        assertEquals(10, d.get("n"));
        assertEquals(1L, d.get("min"));
        assertEquals(6L, d.get("p50"));
        assertEquals(10L, d.get("p90"));
        assertEquals(10L, d.get("max"));
        assertTrue(ScaleReport.distribution(List.of()).isEmpty());
        assertEquals(250_000, ScaleChart.niceCeiling(201_000), 1e-9);
        assertEquals(50, ScaleChart.niceCeiling(41), 1e-9);
    }

    @Test
    void shouldBlameTheServiceTheEnginesLogNames()
    {
        assertEquals("broker", ScaleReport.sideOf(
            "; the engine's log: ... ERROR [main] SluiceEngine - Kafka at 127.0.0.1:19092 did not answer within 10000 ms"));
        assertEquals("database", ScaleReport.sideOf("; the engine's log: ... ClickHouse refused the insert: Code: 252,"
            + " Too many parts (300)"));
        assertEquals(null, ScaleReport.sideOf("; the engine's log: ... source users: no progress for 5000 ms"));
    }

    private static Map<String, Object> step(final int topics, final double rps, final double liveHeap,
        final boolean ok)
    {
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("topics", topics);
        r.put("ok", ok);
        r.put("records_per_s", rps);
        r.put("engine_cpu_us_per_record", 20.0);
        r.put("heap_live_after_gc_bytes", liveHeap);
        if (!ok)
        {
            r.put("failure", "broker: test");
        }
        return r;
    }
}
