package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * The Prometheus endpoint on a running engine: the counters it reports agree with what ClickHouse holds, dropped
 * records are counted by reason, and checkpoint lag and breaker state are exposed per partition and worker.
 */
class MetricsEndpointIT
{
    @Test
    void shouldReportRowsPerTableDropsByReasonLagAndBreakers() throws Exception
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final String topic = "metrics-" + suffix;
        final String db = "metrics_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        TestServices.sql("CREATE TABLE " + db + ".a (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.sql("CREATE TABLE " + db + ".b (n UInt32) ENGINE = MergeTree() ORDER BY n");
        TestServices.createTopic(topic, 2);
        final List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            final String kind = i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c";
            records.add(("{\"kind\":\"" + kind + "\",\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        TestServices.produce(topic, records);
        final int port;
        try (ServerSocket s = new ServerSocket(0))
        {
            port = s.getLocalPort();
        }
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse("[kafka]\nbootstrap_servers = \""
            + TestServices.bootstrap() + "\"\n"
            + "[metrics]\nlisten = \"127.0.0.1:" + port + "\"\n[engine]\nstatus_interval_ms = 0\n"
            + "[[sinks]]\nname = \"m\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"g-" + suffix
            + "\"\n"
            + "unmatched = \"skip\"\n[sinks.plugin_config]\nendpoint = \"" + TestServices.clickhouse()
            + "\"\ndatabase = \"" + db + "\"\n"
            + "linger_ms = 50\n"
            + "[[sinks.branches]]\nname = \"a\"\nwhen = { path = \"kind\", equals = \"a\" }\ntarget_table = \"a\"\n"
            + "[[sinks.branches]]\nname = \"b\"\nwhen = { path = \"kind\", equals = \"b\" }\ntarget_table = \"b\"\n"),
            s -> new ClickHouseDriver(), new GatherPipeline.RunOptions(false));
        final Thread runner = new Thread(engine::run, "engine");
        runner.start();
        try
        {
            final long deadline = System.nanoTime() + 60_000_000_000L;
            String body = "";
            while (System.nanoTime() < deadline)
            {
                Thread.sleep(200);
                try
                {
                    body = scrape(port);
                }
                catch (final ConnectException e)
                {
                    continue; // the engine has not bound the port yet
                }
                // end-to-end latency is recorded when the offsets commit, a little after the rows are counted
                if (body.contains(
                    "sluice_rows_written_total{kind=\"clickhouse\",pipeline=\"m\",table=\"" + db + ".b\"} 100.0")
                    && body.contains(
                        "sluice_rows_written_total{kind=\"clickhouse\",pipeline=\"m\",table=\"" + db + ".a\"} 100.0")
                    && body.contains("sluice_end_to_end_latency_seconds_count{kind=\"clickhouse\",pipeline=\"m\"} 200"))
                {
                    break;
                }
            }
            assertTrue(
                body.contains(
                    "sluice_rows_written_total{kind=\"clickhouse\",pipeline=\"m\",table=\"" + db + ".a\"} 100.0"),
                body);
            assertTrue(
                body.contains(
                    "sluice_records_dropped_total{kind=\"clickhouse\",pipeline=\"m\",reason=\"unrouted\"} 100.0"),
                body);
            assertTrue(body.contains("sluice_records_in_total{kind=\"clickhouse\",pipeline=\"m\"} 300.0"), body);
            assertTrue(body.contains("sluice_inserts_total{kind=\"clickhouse\",pipeline=\"m\",table=\"" + db + ".b\"}"),
                body);
            assertTrue(
                body.contains(
                    "sluice_checkpoint_lag_records{kind=\"clickhouse\",partition=\"1\",pipeline=\"m\",topic=\"" + topic
                        + "\"}"),
                body);
            assertTrue(
                body.contains("sluice_breaker_state{kind=\"clickhouse\",pipeline=\"m\",shard=\"0\",worker=\"0\"} 0"),
                body);
            assertTrue(body.contains("sluice_end_to_end_latency_seconds_count{kind=\"clickhouse\",pipeline=\"m\"} 200"),
                body);
            assertEquals(100, TestServices.sqlLong("SELECT count() FROM " + db + ".a"));
        }
        finally
        {
            engine.shutdown();
            runner.join(60_000);
        }
    }

    private static String scrape(final int port) throws Exception
    {
        return HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    }
}
