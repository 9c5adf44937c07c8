package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.MetricsEndpoint;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.SinkProviders;

/**
 * The {@code kind} label on the real broker, ClickHouse and PostgreSQL (issue 22 item 8): one pipeline of kind
 * {@code clickhouse} whose branch {@code b} writes through a {@code postgres} sink. Every gather series carries
 * {@code kind}; the pipeline's series the pipeline's own kind; each table's series and each insert worker's the kind of
 * the sink it is written through; PostgreSQL's rows per COPY ({@code sluice_batch_rows}) and transaction time
 * ({@code sluice_insert_duration_seconds}) add up to the rows PostgreSQL holds. Every scrape parses with promtool.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MetricsKindIT
{
    private static final Pattern SAMPLE = Pattern.compile("^(sluice_[a-z_]+)(\\{[^}]*\\})? (\\S+)$",
        Pattern.MULTILINE);

    @Test
    void everyGatherSeriesNamesTheKindOfTheSinkItIsAbout() throws Exception
    {
        final String sfx = Long.toString(System.nanoTime(), 36);
        final String topic = "mkind-" + sfx;
        final String db = "mkind_" + sfx;
        final String schema = "mkind_" + sfx;
        final Map<String, String> secrets = TestServices.secrets();
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".a (n UInt32) ENGINE = MergeTree() ORDER BY n");
        PostgresSinkIT.sql("CREATE SCHEMA \"" + schema + "\"", "CREATE TABLE \"" + schema + "\".\"b\" (n integer)");
        TestServices.createTopic(topic, 2);
        final List<byte[]> records = new ArrayList<>();
        int toPostgres = 0;
        for (int i = 0; i < 250; i++)
        {
            final boolean pg = i % 5 < 2;
            toPostgres += pg ? 1 : 0;
            records.add(("{\"t\":\"" + (pg ? "b" : "a") + "\",\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, records);
        final int port;
        try (ServerSocket s = new ServerSocket(0))
        {
            port = s.getLocalPort();
        }
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse("[kafka]\nbootstrap_servers = \""
            + TestServices.bootstrap() + "\"\n[metrics]\nlisten = \"127.0.0.1:" + port + "\"\n"
            + "[engine]\nstatus_interval_ms = 0\n"
            + "[[sinks]]\nname = \"ch\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"g-" + sfx
            + "\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse() + "\"\ndatabase = \"" + db
            + "\"\nlinger_ms = 50\n"
            + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"t\", equals = \"a\" }\ntarget_table = \"a\"\n"
            + "[[sinks.branches]]\nname = \"b\"\nwhen = { path = \"t\", equals = \"b\" }\nsink = \"pg\"\n"
            + "[[sinks]]\nname = \"pg\"\nkind = \"postgres\"\n[sinks.plugin_config]\nurl = \"" + PostgresSinkIT.url()
            + "\"\nusername = \"" + secrets.get("SLUICE_TEST_POSTGRES_USER") + "\"\npassword = \""
            + secrets.get("SLUICE_TEST_POSTGRES_PASSWORD") + "\"\nschema = \"" + schema
            + "\"\ntarget_table = \"b\"\nlinger_ms = 50\n"),
            sink -> SinkProviders.installed().provider(sink.kind()).driver(), new GatherPipeline.RunOptions(false));
        final Thread runner = new Thread(engine::run, "engine");
        runner.start();
        final String pgTable = schema + ".b";
        final String chTable = db + ".a";
        String body = "";
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline)
            {
                Thread.sleep(200);
                final String b = MetricsContract.scrape(port);
                body = b == null ? body : b;
                if (value(body, "sluice_rows_written_total", "kind=\"postgres\",pipeline=\"ch\",table=\"" + pgTable
                    + "\"") == toPostgres
                    && value(body, "sluice_rows_written_total", "kind=\"clickhouse\",pipeline=\"ch\",table=\""
                        + chTable + "\"") == 250 - toPostgres
                    && value(body, "sluice_end_to_end_latency_seconds_count",
                        "kind=\"clickhouse\",pipeline=\"ch\"") == 250)
                {
                    break;
                }
            }
            MetricsContract.assertParses(body);
            final String pg = "kind=\"postgres\",pipeline=\"ch\",table=\"" + pgTable + "\"";
            final String ch = "kind=\"clickhouse\",pipeline=\"ch\",table=\"" + chTable + "\"";
            assertEquals(toPostgres, value(body, "sluice_rows_written_total", pg), body);
            assertEquals(250 - toPostgres, value(body, "sluice_rows_written_total", ch), body);
            assertEquals(250, value(body, "sluice_records_in_total", "kind=\"clickhouse\",pipeline=\"ch\""), body);
            // rows per COPY and transaction time per PostgreSQL table: one observation per committed transaction
            final double copies = value(body, "sluice_inserts_total", pg);
            assertTrue(copies >= 1, body);
            assertEquals(toPostgres, value(body, "sluice_batch_rows_sum", pg), body);
            assertEquals(copies, value(body, "sluice_batch_rows_count", pg), body);
            assertEquals(copies, value(body, "sluice_insert_duration_seconds_count", pg), body);
            assertTrue(value(body, "sluice_insert_duration_seconds_sum", pg) > 0, body);
            assertTrue(value(body, "sluice_written_bytes_total", pg) > 0, body);
            assertEquals(0, value(body, "sluice_insert_failures_total", "class=\"permanent\"," + pg), body);
            // metrics.table_histograms = false: the same histograms summed per pipeline and kind, no table label;
            // the per-table counters stay
            final String summed = MetricsEndpoint.scrape(engine::pipelines, List::of, false);
            MetricsContract.assertParses(summed);
            assertFalse(summed.contains("sluice_batch_rows_count{kind=\"postgres\",pipeline=\"ch\",table="), summed);
            assertEquals(toPostgres, value(summed, "sluice_batch_rows_sum", "kind=\"postgres\",pipeline=\"ch\""),
                summed);
            assertEquals(250 - toPostgres,
                value(summed, "sluice_batch_rows_sum", "kind=\"clickhouse\",pipeline=\"ch\""), summed);
            assertEquals(value(body, "sluice_inserts_total", ch),
                value(summed, "sluice_insert_duration_seconds_count", "kind=\"clickhouse\",pipeline=\"ch\""),
                summed);
            assertEquals(toPostgres, value(summed, "sluice_rows_written_total", pg), summed);
            // one insert worker per kind: each labelled with the kind it writes to
            final Set<String> workerKinds = new TreeSet<>();
            final Matcher w = Pattern.compile("^sluice_breaker_state\\{kind=\"([a-z]+)\",pipeline=\"ch\"",
                Pattern.MULTILINE).matcher(body);
            while (w.find())
            {
                workerKinds.add(w.group(1));
            }
            assertEquals(Set.of("clickhouse", "postgres"), workerKinds, body);
            // every gather series carries kind (the scatter side has none here: no scatter source runs)
            final List<String> without = new ArrayList<>();
            final Matcher m = SAMPLE.matcher(body);
            while (m.find())
            {
                final String name = m.group(1);
                if (!name.startsWith("sluice_scatter_") && !name.equals("sluice_build_info")
                    && !name.equals("sluice_ready") && (m.group(2) == null || !m.group(2).contains("kind=\"")))
                {
                    without.add(m.group());
                }
            }
            assertTrue(without.isEmpty(), "series without kind: " + without);
            assertEquals(List.of(Integer.toString(toPostgres)),
                PostgresSinkIT.rows("SELECT count(*) FROM \"" + schema + "\".\"b\""), "PostgreSQL's rows");
        }
        finally
        {
            engine.shutdown();
            runner.join(60_000);
        }
        TestServices.sql("DROP DATABASE " + db);
        PostgresSinkIT.sql("DROP SCHEMA \"" + schema + "\" CASCADE");
        ScatterEndToEndIT.deleteTopics(Set.of(topic));
    }

    /** @return the value of the sample {@code name{labels}}, or -1 when the scrape has none */
    private static double value(final String body, final String name, final String labels)
    {
        final String prefix = name + "{" + labels + "} ";
        for (final String line : body.split("\n"))
        {
            if (line.startsWith(prefix))
            {
                return Double.parseDouble(line.substring(prefix.length()).trim());
            }
        }
        return -1;
    }
}
