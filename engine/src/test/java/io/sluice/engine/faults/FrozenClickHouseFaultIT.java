package io.sluice.engine.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 12, item 3: stops are bounded whatever blocks. A ClickHouse server of the test's own (started with
 * {@code scripts/services.sh start clickhouse} on free ports, found by its listening port) is frozen with SIGSTOP, or
 * killed, while records are in flight: its insert requests neither answer nor fail, so the insert workers hang inside
 * them and the route stage's hand-offs fill. In both thread layouts:
 * <ul>
 * <li>{@code checkpoint.stalled_fail_after_ms} ends the run with exit 1, in time, naming the stall (before: in the
 * fused layout the source thread waited in {@code RouteStage.seal()} and the run never ended);</li>
 * <li>SIGTERM ends it within {@code checkpoint.drain_timeout_ms} plus the consumer's close, exit 1 naming what did not
 * drain (before: 65-81 s past a 30 s limit);</li>
 * <li>the consumer is never evicted meanwhile: {@code max.poll.interval.ms} is shorter than the freeze, and no
 * partition is lost or revoked (the source keeps polling, paused);</li>
 * <li>nothing is committed past what ClickHouse holds.</li>
 * </ul>
 * The server is resumed (SIGCONT) or restarted after each case, and stopped at the end.
 */
class FrozenClickHouseFaultIT
{
    static final long STALL_MS = 8_000;
    static final long DRAIN_MS = 4_000;
    static final long MAX_POLL_INTERVAL_MS = 5_000;
    /** The consumer's close (10 s at most, a few ms here), the final commit and the JVM's exit. */
    static final long EXIT_MARGIN_MS = 8_000;
    static final int PARTITIONS = 2;
    static final int BATCH = 1_000;

    private static Path dir;
    private static ClickHouseOutageFaultIT.Services services;
    private static Faults.ClickHouse ch;
    private static int httpPort;

    @BeforeAll
    static void startClickHouse() throws Exception
    {
        dir = Faults.workDir("frozen-" + Faults.suffix());
        httpPort = Faults.freePort();
        int tcpPort = Faults.freePort();
        while (tcpPort == httpPort || tcpPort == httpPort + 1)
        {
            tcpPort = Faults.freePort();
        }
        services = new ClickHouseOutageFaultIT.Services(dir, dir.resolve("sluice-home"), httpPort, tcpPort);
        services.run("start");
        ch = new Faults.ClickHouse("http://127.0.0.1:" + httpPort);
    }

    @AfterAll
    static void stopClickHouse() throws Exception
    {
        if (services != null)
        {
            signal("CONT");
            services.run("stop");
        }
    }

    @ParameterizedTest(name = "{0} with ClickHouse {1}, {2} layout")
    @CsvSource({"stall, frozen, fused", "stall, frozen, split", "sigterm, frozen, fused", "sigterm, frozen, split",
        "sigterm, down, fused", "sigterm, down, split"})
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void shouldStopInTimeWhateverClickHouseDoes(final String stop, final String server, final String layout)
        throws Exception
    {
        final String sfx = Faults.suffix();
        final String topic = "frozen-" + sfx;
        final String group = "frozen-" + sfx;
        final String db = "frozen_" + sfx;
        ch.sql("CREATE DATABASE " + db);
        ch.sql("CREATE TABLE " + db + ".t (n UInt64) ENGINE = MergeTree() ORDER BY n");
        final long stallMs = "stall".equals(stop) ? STALL_MS : 300_000;
        final Path cfg = Faults.writeConfig(dir, sfx + ".toml", toml(topic, group, db, layout, stallMs));
        try (Admin admin = Faults.admin(); KafkaProducer<byte[], byte[]> producer = producer())
        {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short)1))).all().get();
            produce(producer, topic, 0, BATCH);
            final long stoppedAt;
            final long exitCode;
            final long exitMs;
            final String log;
            try (EngineRun e = EngineRun.start(dir, sfx, "--config", cfg.toString()))
            {
                awaitCommitted(admin, group, topic, BATCH, e);
                if ("frozen".equals(server))
                {
                    signal("STOP");
                }
                else
                {
                    signal("KILL");
                }
                final long frozenAt = System.nanoTime();
                produce(producer, topic, BATCH, 2 * BATCH);
                if ("sigterm".equals(stop))
                {
                    // the new records are polled and their inserts hang (frozen) or fail and are retried (down)
                    Thread.sleep(3_000);
                    assertTrue(e.alive(), "the engine exited before the SIGTERM:\n" + e.tail(40));
                    stoppedAt = System.nanoTime();
                    e.terminate();
                }
                else
                {
                    stoppedAt = frozenAt;
                }
                exitCode = e.waitFor(120);
                exitMs = TimeUnit.NANOSECONDS.toMillis(e.exitNanos() - stoppedAt);
                log = e.output();
            }
            finally
            {
                if ("frozen".equals(server))
                {
                    signal("CONT");
                }
                else
                {
                    services.run("start");
                }
            }
            final long committed = Faults.sum(Faults.committed(admin, group, topic, PARTITIONS));
            Faults.report(String.format("FAULT(12.3) %s with ClickHouse %s (%s layout): exit %d %d ms after the %s "
                + "(stalled_fail_after_ms %d, drain_timeout_ms %d, max.poll.interval.ms %d); committed %d of %d",
                stop, server, layout, exitCode, exitMs, "stall".equals(stop) ? "freeze" : "SIGTERM", stallMs,
                DRAIN_MS, MAX_POLL_INTERVAL_MS, committed, 2 * BATCH));
            assertStoppedInTime(stop, exitCode, exitMs, log, log, committed, "ClickHouse");
            ch.settle(db);
            final long below = distinctBelowCommitted(admin, group, topic, db);
            assertEquals(committed, below, "every committed record is in the table");
        }
        finally
        {
            ch.sql("DROP DATABASE IF EXISTS " + db);
        }
    }

    /**
     * What every case asserts about the stopped run, whichever database was frozen or down: exit 1 within the limit
     * ({@code stalled_fail_after_ms} + {@code drain_timeout_ms}, or the drain alone after a SIGTERM, plus
     * {@link #EXIT_MARGIN_MS}), the reason named, no partition lost or revoked in {@code sinceFault} (the log, or its
     * part from the fault on), and the committed offsets covering the first {@link #BATCH} records and none that
     * {@code database} did not take.
     */
    static void assertStoppedInTime(final String stop, final long exitCode, final long exitMs, final String log,
        final String sinceFault, final long committed, final String database)
    {
        assertEquals(1, exitCode, "exit 1: the run did not end cleanly; log:\n" + tail(log));
        final long limit = ("stall".equals(stop) ? STALL_MS + DRAIN_MS : DRAIN_MS) + EXIT_MARGIN_MS;
        assertTrue(exitMs <= limit, "exit " + exitMs + " ms after the " + stop + ", more than " + limit
            + " ms; log:\n" + tail(log));
        if ("stall".equals(stop))
        {
            assertTrue(exitMs >= STALL_MS - 1_000, "the stall limit fired after " + exitMs + " ms");
            assertTrue(log.contains("made no progress for " + STALL_MS + " ms (checkpoint.stalled_fail_after_ms)"),
                "the failure names the stall; log:\n" + tail(log));
        }
        else
        {
            assertTrue(log.contains("not written within " + DRAIN_MS + " ms (checkpoint.drain_timeout_ms)"),
                "the failure names what did not drain; log:\n" + tail(log));
        }
        assertFalse(sinceFault.contains("partitions lost"), "the consumer was evicted (lost its partitions)");
        assertFalse(sinceFault.contains("partitions revoked"), "the consumer was evicted (its partitions revoked)");
        assertTrue(committed >= BATCH && committed < 2 * BATCH,
            "committed " + committed + ": the first " + BATCH + " and none of what " + database + " did not take");
    }

    private static String toml(final String topic, final String group, final String db, final String layout,
        final long stallMs)
    {
        return "[kafka]\nbootstrap_servers = \"" + Faults.bootstrap() + "\"\n"
            + "[kafka.consumer]\n\"max.poll.interval.ms\" = \"" + MAX_POLL_INTERVAL_MS + "\"\n"
            + "\"session.timeout.ms\" = \"6000\"\n\"heartbeat.interval.ms\" = \"1500\"\n"
            + "[checkpoint]\ncommit_interval_ms = 200\nstalled_fail_after_ms = " + stallMs + "\n"
            + "drain_timeout_ms = " + DRAIN_MS + "\n"
            + "[engine]\nkafka_check_timeout_ms = 60000\n"
            + "[tuning]\nlayout = \"" + layout + "\"\n"
            + "[[sinks]]\nname = \"t\"\nkind = \"clickhouse\"\ntopics = [\"" + topic + "\"]\ngroup_id = \"" + group
            + "\"\n[sinks.plugin_config]\nendpoint = \"http://127.0.0.1:" + httpPort + "\"\ndatabase = \"" + db
            + "\"\ntarget_table = \"t\"\nmax_rows = 100\nlinger_ms = 50\n";
    }

    /** Sends SIGSTOP, SIGCONT or SIGKILL to the process listening on the test server's HTTP port. */
    private static void signal(final String name) throws IOException, InterruptedException
    {
        final long pid = pidListeningOn(httpPort);
        if (pid < 0)
        {
            return; // not running (already killed)
        }
        final Process p = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), "kill -" + name + " " + pid);
        if ("KILL".equals(name))
        {
            ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
        }
    }

    /** @return the pid of the process listening on the TCP port (ss -ltnp), or -1 */
    static long pidListeningOn(final int port) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder("ss", "-ltnpH", "sport = :" + port).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        final Matcher m = Pattern.compile("pid=(\\d+)").matcher(out);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static KafkaProducer<byte[], byte[]> producer()
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Faults.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p);
    }

    /** Produces {@code {"n":i}} for i in [from, to), spread round-robin over the partitions. */
    static void produce(final KafkaProducer<byte[], byte[]> producer, final String topic, final int from,
        final int to) throws Exception
    {
        final List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            sent.add(producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null,
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))));
        }
        for (final Future<RecordMetadata> f : sent)
        {
            f.get();
        }
    }

    /**
     * Waits until the engine has committed {@code n} records, before any fault: at most 180 s, as beside two CPU hogs
     * at load 30 an engine's JVM took 43 s to start and its consumer then held no partition for 45 s more.
     */
    static void awaitCommitted(final Admin admin, final String group, final String topic, final long n,
        final EngineRun e) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (Faults.sum(Faults.committed(admin, group, topic, PARTITIONS)) < n)
        {
            if (!e.alive() || System.nanoTime() > deadline)
            {
                fail("the engine did not commit the first " + n + " records; log " + e.logFile() + ":\n" + e.tail(40));
            }
            Thread.sleep(100);
        }
    }

    /** @return how many records below each partition's committed offset the table holds (n = offset*P + p) */
    private static long distinctBelowCommitted(final Admin admin, final String group, final String topic,
        final String db) throws Exception
    {
        final long[] c = Faults.committed(admin, group, topic, PARTITIONS);
        long n = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            // partition p holds n = p, p + P, p + 2P, ... in offset order: offset o carries n = o * P + p
            n += ch.sqlLong("SELECT count(DISTINCT n) FROM " + db + ".t WHERE n % " + PARTITIONS + " = " + p
                + " AND intDiv(n, " + PARTITIONS + ") < " + c[p]);
        }
        return n;
    }

    static String tail(final String log)
    {
        final String[] lines = log.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 50), lines.length));
    }
}
