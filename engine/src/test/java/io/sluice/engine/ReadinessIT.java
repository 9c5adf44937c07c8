package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.Health;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.clickhouse.ClickHouseDriver;

/**
 * {@code /live} and {@code /ready} on the metrics listener, each condition flipped on the real services: 503 from the
 * first answer (the listener opens before the group join) until the assignment, then 200; 503 while a partition is
 * stalled beyond {@code metrics.ready_stalled_percent} of {@code checkpoint.stalled_fail_after_ms} and while a
 * circuit breaker is open (ClickHouse made unreachable by closing a TCP relay in front of the real server), 200 again
 * once it answers; 503 naming the authentication failure when the broker refuses the client's SASL handshake.
 */
class ReadinessIT
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** One probe answer. */
    record Probe(int status, String body)
    {
    }

    @Test
    void shouldAnswer503FromTheFirstProbeUntilAssignedThen200() throws Exception
    {
        final Setup s = new Setup("assign", TestServices.clickhouse(), "");
        final SluiceEngine engine = s.engine("");
        final List<Probe> probes = new CopyOnWriteArrayList<>();
        final Thread runner = new Thread(engine::run, "engine");
        runner.start();
        try
        {
            Probe p = null;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline)
            {
                p = probe(s.port, "/ready");
                if (p != null)
                {
                    probes.add(p);
                    if (p.status() == 200)
                    {
                        break;
                    }
                }
                Thread.sleep(5);
            }
            assertNotNull(p, "the listener never answered");
            assertEquals(503, probes.get(0).status(), "first answer: " + probes.get(0));
            assertTrue(probes.stream().anyMatch(x -> x.body().contains("waiting for its partition assignment"))
                || probes.get(0).body().contains("starting"), probes.toString());
            assertEquals(200, p.status(), "never ready: " + probes.get(probes.size() - 1));
            assertTrue(p.body().contains("\"status\":\"ready\""), p.body());
            final Probe live = probe(s.port, "/live");
            assertEquals(200, live.status(), live.body());
        }
        finally
        {
            engine.shutdown();
            runner.join(60_000);
        }
    }

    @Test
    void shouldAnswer503WhileAPartitionIsStalledAndWhileABreakerIsOpen() throws Exception
    {
        try (Relay relay = new Relay(URI.create(TestServices.clickhouse())))
        {
            // a stall shows after 10% of 20 s; the breaker opens after 3 retriable failures
            final Setup s = new Setup("stall", "http://127.0.0.1:" + relay.port(),
                "[checkpoint]\nstalled_fail_after_ms = 20000\n");
            final SluiceEngine engine = s.engine("retry_backoff_ms = 100\nretry_backoff_max_ms = 200\n"
                + "breaker_failures = 3\nbreaker_open_ms = 300\n", "ready_stalled_percent = 10\n", "");
            final Thread runner = new Thread(engine::run, "engine");
            runner.start();
            try
            {
                awaitProbe(s.port, p -> p.status() == 200, "ready at start");
                s.produce(20);
                awaitRows(s, 20);
                relay.down();
                s.produce(20);
                final Probe stalled = awaitProbe(s.port, p -> p.status() == 503 && p.body().contains("stalled for")
                    && p.body().contains("circuit breaker"), "stalled and breaker open");
                assertTrue(stalled.body().contains("10% of checkpoint.stalled_fail_after_ms = 20000 ms"),
                    stalled.body());
                relay.up();
                awaitProbe(s.port, p -> p.status() == 200, "ready again once ClickHouse answers");
                awaitRows(s, 40);
            }
            finally
            {
                engine.shutdown();
                runner.join(60_000);
            }
        }
    }

    @Test
    void shouldAnswer503NamingAKafkaAuthenticationFailure() throws Exception
    {
        // the broker's listener is PLAINTEXT: a client that opens with a SASL handshake is refused with
        // ILLEGAL_SASL_STATE, which Kafka's client reports as an AuthenticationException
        final Setup s = new Setup("auth", TestServices.clickhouse(), "");
        final SluiceEngine engine = s.engine("", "", "[kafka.consumer]\n\"security.protocol\" = \"SASL_PLAINTEXT\"\n"
            + "\"sasl.mechanism\" = \"PLAIN\"\n\"sasl.jaas.config\" = "
            + "\"org.apache.kafka.common.security.plain.PlainLoginModule required username='u' password='p';\"\n");
        final List<Health> seen = new CopyOnWriteArrayList<>();
        final List<Probe> http = new CopyOnWriteArrayList<>();
        final Thread runner = new Thread(engine::run, "engine");
        runner.start();
        try
        {
            while (runner.isAlive())
            {
                final Health h = engine.probes().ready();
                if (!h.ok())
                {
                    seen.add(h);
                }
                final Probe p = probe(s.port, "/ready");
                if (p != null && p.body().contains("authentication"))
                {
                    http.add(p);
                }
                Thread.sleep(2);
            }
        }
        finally
        {
            engine.shutdown();
            runner.join(60_000);
        }
        // a run that fails this early may end between two polls: what it answers once ended still names the cause
        final Health after = engine.probes().ready();
        assertEquals("stopping", after.status(), after.toString());
        seen.add(after);
        assertTrue(seen.stream().anyMatch(h -> h.reasons().stream()
            .anyMatch(r -> r.contains("Kafka authentication failed"))), seen.toString());
        for (final Probe p : http)
        {
            assertEquals(503, p.status(), p.body());
        }
        assertTrue(engine.failure() != null && engine.failure().contains("SaslState"), engine.failure());
    }

    private static Probe awaitProbe(final int port, final Predicate<Probe> want, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + 90_000_000_000L;
        Probe last = null;
        while (System.nanoTime() < deadline)
        {
            final Probe p = probe(port, "/ready");
            if (p != null)
            {
                last = p;
                if (want.test(p))
                {
                    return p;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError(what + ": last answer " + last);
    }

    private static void awaitRows(final Setup s, final long rows) throws Exception
    {
        final long deadline = System.nanoTime() + 90_000_000_000L;
        long n = -1;
        while (System.nanoTime() < deadline)
        {
            n = TestServices.sqlLong("SELECT count() FROM " + s.db + ".t");
            if (n >= rows)
            {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("rows in " + s.db + ".t: " + n + ", expected " + rows);
    }

    static Probe probe(final int port, final String path)
    {
        try
        {
            final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + path)).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return new Probe(r.statusCode(), r.body());
        }
        catch (final IOException e)
        {
            return null;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A topic, a database with table t, a metrics port, and the engine's configuration. */
    private static final class Setup
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final String topic;
        final String db;
        final int port = TestServices.freePort();
        final String clickhouse;
        final String extraTop;
        private int produced;

        Setup(final String name, final String clickhouse, final String extraTop) throws Exception
        {
            this.topic = "ready-" + name + "-" + suffix;
            this.db = "ready_" + name + "_" + suffix;
            this.clickhouse = clickhouse;
            this.extraTop = extraTop;
            TestServices.sql("CREATE DATABASE " + db);
            TestServices.sql("CREATE TABLE " + db + ".t (n UInt32) ENGINE = MergeTree() ORDER BY n");
            TestServices.createTopic(topic, 1);
        }

        SluiceEngine engine(final String pluginExtra) throws Exception
        {
            return engine(pluginExtra, "", "");
        }

        /**
         * @param pluginExtra  lines of [sinks.plugin_config]
         * @param metricsExtra lines of [metrics] besides listen
         * @param kafkaExtra   sub-tables of [kafka]
         */
        SluiceEngine engine(final String pluginExtra, final String metricsExtra, final String kafkaExtra)
            throws Exception
        {
            return new SluiceEngine(ConfigLoader.parse("[kafka]\nbootstrap_servers = \"" + TestServices.bootstrap()
                + "\"\n" + kafkaExtra + "[metrics]\nlisten = \"127.0.0.1:" + port + "\"\n" + metricsExtra + extraTop
                + "[engine]\nstatus_interval_ms = 0\n[[sinks]]\nname = \"r\"\nkind = \"clickhouse\"\ntopics = [\""
                + topic + "\"]\ngroup_id = \"g-" + suffix + "\"\n[sinks.plugin_config]\nendpoint = \"" + clickhouse
                + "\"\ndatabase = \"" + db + "\"\ntarget_table = \"t\"\nlinger_ms = 20\n" + pluginExtra),
                sink -> new ClickHouseDriver(), new GatherPipeline.RunOptions(false));
        }

        void produce(final int n) throws Exception
        {
            final List<byte[]> records = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                records.add(("{\"n\":" + produced++ + "}").getBytes(StandardCharsets.UTF_8));
            }
            TestServices.produce(topic, records);
        }
    }

    /** A TCP relay in front of the real ClickHouse: {@link #down()} refuses and cuts connections, {@link #up()} relays. */
    static final class Relay implements AutoCloseable
    {
        private final URI target;
        private final int port;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private volatile ServerSocket server;
        private volatile boolean closed;

        Relay(final URI target) throws IOException
        {
            this.target = target;
            try (ServerSocket s = new ServerSocket(0))
            {
                this.port = s.getLocalPort();
            }
            up();
        }

        int port()
        {
            return port;
        }

        synchronized void up() throws IOException
        {
            final ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", port));
            server = s;
            final Thread t = new Thread(() -> accept(s), "relay-accept");
            t.setDaemon(true);
            t.start();
        }

        synchronized void down() throws IOException
        {
            server.close();
            for (final Socket s : open)
            {
                s.close();
            }
            open.clear();
        }

        private void accept(final ServerSocket s)
        {
            while (!s.isClosed() && !closed)
            {
                try
                {
                    final Socket client = s.accept();
                    final Socket upstream = new Socket(target.getHost(), target.getPort());
                    open.add(client);
                    open.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                }
                catch (final IOException e)
                {
                    return;
                }
            }
        }

        private static void pump(final Socket from, final Socket to)
        {
            final Thread t = new Thread(() ->
            {
                final byte[] buf = new byte[16384];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream())
                {
                    int n;
                    while ((n = in.read(buf)) >= 0)
                    {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
                catch (final IOException e)
                {
                    // cut by down(), or the peer closed
                }
                finally
                {
                    try
                    {
                        to.close();
                        from.close();
                    }
                    catch (final IOException e)
                    {
                        // closing anyway
                    }
                }
            }, "relay-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException
        {
            closed = true;
            down();
        }
    }
}
