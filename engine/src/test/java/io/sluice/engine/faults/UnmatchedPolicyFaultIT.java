package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 6 (e): {@code unmatched = "skip"} vs {@code "fail"}, with the counter checked, for what SplitEmbeddedIT and
 * MetricsEndpointIT do not cover: the split that a TOML {@code [[sinks.branches]]} configuration builds (those two
 * use the embedded Java split, or skip only), run as users run it ({@code java -jar engine.jar}), case S1:
 * partition 0, offsets 0–3 = click, view, purchase, click.
 *
 * <ul>
 *   <li>skip: {@code clicks} gets offsets 0 and 3, {@code views} offset 1; the Prometheus endpoint counts offset 2 as
 *       {@code sluice_records_dropped_total{reason="unrouted"} 1} (and nothing as invalid); the committed offset
 *       becomes 4; SIGTERM exits 0.</li>
 *   <li>fail: the engine exits 1 naming record {@code topic-0@2} and the unmatched policy; the committed offset does not
 *       pass 2; offset 2 is in no table; the run's summary counts 0 records dropped as unrouted (a failed record is
 *       not a dropped one).</li>
 * </ul>
 */
class UnmatchedPolicyFaultIT
{
    private static String config(final String topic, final String group, final String db, final String policy,
        final int metricsPort)
    {
        return "[kafka]\nbootstrap_servers = \"" + Faults.bootstrap() + "\"\n"
            + "[checkpoint]\ncommit_interval_ms = 100\nstalled_fail_after_ms = 20000\n"
            + "[engine]\nkafka_check_timeout_ms = 60000\nstatus_interval_ms = 0\n"
            + "[metrics]\nlisten = \"127.0.0.1:" + metricsPort + "\"\n"
            + "[[sinks]]\nname = \"s1\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n"
            + "unmatched = \"" + policy + "\"\n"
            + "[sinks.plugin_config]\nendpoint = \"" + Faults.sharedClickHouse() + "\"\ndatabase = \"" + db
            + "\"\nlinger_ms = 100\n"
            + "[[sinks.branches]]\nname = \"clicks\"\nwhen = { path = \"type\", equals = \"click\" }\ntarget_table = \"clicks\"\n"
            + "[[sinks.branches]]\nname = \"views\"\nwhen = { path = \"type\", equals = \"view\" }\ntarget_table = \"views\"\n";
    }

    /** Topic with case S1 on partition 0 (n = the offset), database with the two tables; returns {topic, db, group}. */
    private static String[] setUp(final String name) throws Exception
    {
        final String sfx = Faults.suffix();
        final String topic = "faults-s1-" + name + "-" + sfx;
        final String db = "faults_s1_" + name + "_" + sfx;
        final Faults.ClickHouse ch = new Faults.ClickHouse(Faults.sharedClickHouse());
        ch.sql("CREATE DATABASE " + db);
        ch.sql("CREATE TABLE " + db + ".clicks (n UInt32, user String) ENGINE = MergeTree() ORDER BY n");
        ch.sql("CREATE TABLE " + db + ".views (n UInt32, page String) ENGINE = MergeTree() ORDER BY n");
        try (Admin a = Faults.admin())
        {
            a.createTopics(Set.of(new NewTopic(topic, 1, (short)1))).all().get();
        }
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Faults.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p))
        {
            for (final String r : List.of("{\"n\":0,\"type\":\"click\",\"user\":\"u1\"}",
                "{\"n\":1,\"type\":\"view\",\"page\":\"/home\"}",
                "{\"n\":2,\"type\":\"purchase\",\"user\":\"u1\"}", "{\"n\":3,\"type\":\"click\",\"user\":\"u2\"}"))
            {
                producer.send(new ProducerRecord<>(topic, 0, null, r.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        return new String[]{topic, db, "faults-s1-" + name + "-" + sfx};
    }

    private static void cleanUp(final String[] t) throws Exception
    {
        new Faults.ClickHouse(Faults.sharedClickHouse()).sql("DROP DATABASE " + t[1]);
        try (Admin a = Faults.admin())
        {
            a.deleteTopics(List.of(t[0])).all().get();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void skipDropsTheUnmatchedRecordCountsItAsUnroutedAndCommitsPastIt() throws Exception
    {
        final String[] t = setUp("skip");
        final Faults.ClickHouse ch = new Faults.ClickHouse(Faults.sharedClickHouse());
        final int port = Faults.freePort();
        final Path dir = Faults.workDir("e-unmatched-" + t[0]);
        final Path cfg = Faults.writeConfig(dir, "skip.toml", config(t[0], t[2], t[1], "skip", port));
        String metrics = "";
        long committed = -1;
        try (EngineRun e = EngineRun.start(dir, "skip", "--config", cfg.toString()); Admin admin = Faults.admin())
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && e.alive())
            {
                committed = Faults.committed(admin, t[2], t[0], 1)[0];
                metrics = scrape(port);
                if (committed == 4
                    && metrics.contains("sluice_rows_written_total{kind=\"clickhouse\",pipeline=\"s1\",table=\"" + t[1]
                        + ".clicks\"} 2.0"))
                {
                    break;
                }
                Thread.sleep(100);
            }
            e.terminate();
            assertEquals(0, e.waitFor(60), "SIGTERM: drain, commit, exit 0; log " + e.logFile());
        }
        assertEquals(4, committed, "the committed offset passes the skipped record");
        assertTrue(metrics.contains(
            "sluice_records_dropped_total{kind=\"clickhouse\",pipeline=\"s1\",reason=\"unrouted\"} 1.0"), metrics);
        assertTrue(metrics.contains(
            "sluice_records_dropped_total{kind=\"clickhouse\",pipeline=\"s1\",reason=\"invalid\"} 0.0"), metrics);
        assertTrue(metrics.contains("sluice_records_in_total{kind=\"clickhouse\",pipeline=\"s1\"} 4.0"), metrics);
        assertTrue(
            metrics.contains(
                "sluice_rows_written_total{kind=\"clickhouse\",pipeline=\"s1\",table=\"" + t[1] + ".views\"} 1.0"),
            metrics);
        assertEquals("0\tu1\n3\tu2\n", ch.sql("SELECT n, user FROM " + t[1] + ".clicks ORDER BY n"));
        assertEquals("1\t/home\n", ch.sql("SELECT n, page FROM " + t[1] + ".views ORDER BY n"));
        Faults.report(
            "FAULT(e) unmatched=skip: offset 2 dropped, sluice_records_dropped_total{reason=\"unrouted\"}=1, clicks={0,3}, "
                + "views={1}, committed 4, exit 0 on SIGTERM");
        cleanUp(t);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void failStopsOnTheUnmatchedRecordAndNeverWritesOrCommitsPastIt() throws Exception
    {
        final String[] t = setUp("fail");
        final Faults.ClickHouse ch = new Faults.ClickHouse(Faults.sharedClickHouse());
        final Path dir = Faults.workDir("e-unmatched-" + t[0]);
        final Path cfg = Faults.writeConfig(dir, "fail.toml", config(t[0], t[2], t[1], "fail", Faults.freePort()));
        final int rc;
        final String out;
        try (EngineRun e = EngineRun.start(dir, "fail", "--config", cfg.toString(), "--until-caught-up"))
        {
            rc = e.waitFor(60);
            out = e.output();
        }
        final long committed;
        try (Admin admin = Faults.admin())
        {
            committed = Faults.committed(admin, t[2], t[0], 1)[0];
        }
        assertEquals(1, rc, "exit code; log " + dir.resolve("fail.log"));
        assertTrue(out.contains("record " + t[0] + "-0@2: no branch matches the record (unmatched = fail)"), out);
        assertTrue(out.contains("stopped with a failure: sink s1: record " + t[0] + "-0@2"), out);
        assertTrue(out.contains("dropped unrouted=0 "), "a failed record is not counted as dropped:\n" + out);
        assertTrue(committed <= 2, "committed " + committed);
        assertEquals(0,
            ch.sqlLong("SELECT count() FROM (SELECT n FROM " + t[1] + ".clicks WHERE n = 2 UNION ALL SELECT n FROM "
                + t[1] + ".views WHERE n = 2)"),
            "offset 2 is never written");
        Faults.report("FAULT(e) unmatched=fail: exit 1 naming record " + t[0] + "-0@2, committed " + committed
            + " (<= 2), offset 2 in no table, dropped unrouted=0");
        cleanUp(t);
    }

    private static String scrape(final int port)
    {
        try
        {
            return Faults.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
        catch (final java.io.IOException e)
        {
            return ""; // not bound yet
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
