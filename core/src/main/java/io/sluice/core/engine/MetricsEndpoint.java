package io.sluice.core.engine;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.scatter.internal.ScatterPipeline;

/**
 * The metrics listener ({@code [metrics] listen = "host:port"}): the JDK's HTTP server with the Prometheus Java
 * client's scrape handler:
 * <ul>
 *   <li>{@code /metrics}: Prometheus' text format (or OpenMetrics or protobuf, as the scraper asks): every
 *       {@code sluice_*} series ({@link EngineMetrics}, listed in docs/metrics.md), the JVM and process series of the
 *       client's own instrumentation ({@code jvm_*}, {@code process_*}) and {@code sluice_build_info};</li>
 *   <li>{@code /live} and {@code /ready}: 200 or 503 with a JSON body {@code {"status": ..., "reasons": [...]}}
 *       ({@link Health.Probes}); the engine opens the listener before anything else, so a probe during start-up gets
 *       503, never a refused connection.</li>
 * </ul>
 * Scraping costs the record path nothing: every series is read from counters and recorders the stages write anyway.
 *
 * <p>Memory: the scrape handler renders the whole exposition, then hands it to the connection in one write (unless the
 * scraper asks for gzip, as Prometheus does), and the JDK server's connection keeps a buffer of twice the largest
 * write it was given for as long as the connection lives (JDK 17's {@code sun.net.httpserver.Request.WriteStream}).
 * At 1,000 partitions the exposition is about 14 MiB, so every kept-alive scraper held some 28 MiB. The endpoint hands
 * the body over in pieces of at most {@link #WRITE_CHUNK_BYTES} instead ({@link BoundedWrites}).
 *
 * <p>Slow clients: a request must arrive within 60 s and a response be sent within 600 s, or the connection is closed
 * (the JDK server's {@code sun.net.httpserver.maxReqTime} and {@code maxRspTime}, set here unless the JVM was given
 * them, as the Prometheus client's own server does).
 *
 * <p>Thread-safety: requests run on the server's threads ({@code prometheus-http-N}, at most
 * {@value #MAX_THREADS}) and only read.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    static
    {
        // the JDK server closes a connection whose request has not arrived within maxReqTime seconds or whose
        // response is not sent within maxRspTime (unset, a client that connects and sends nothing holds its
        // connection for ever); the Prometheus client's own server sets the same values when they are unset
        if (!System.getProperties().containsKey("sun.net.httpserver.maxReqTime"))
        {
            System.setProperty("sun.net.httpserver.maxReqTime", "60");
        }
        if (!System.getProperties().containsKey("sun.net.httpserver.maxRspTime"))
        {
            System.setProperty("sun.net.httpserver.maxRspTime", "600");
        }
    }

    /** The most bytes of a response handed to the server's connection in one write. */
    static final int WRITE_CHUNK_BYTES = 64 * 1024;
    /** Server threads, as the Prometheus client's own server had: the JDK server reads each request on one. */
    static final int MAX_THREADS = 10;
    /** Connections the kernel queues before the server accepts them (the JDK's default is 3). */
    static final int BACKLOG = 64;

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(final HttpServer server, final ExecutorService executor)
    {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts the endpoint as {@code [metrics]} configures it.
     *
     * @param address   the {@code [metrics]} table: {@code listen} ({@code host:port} or {@code [ipv6]:port}, as
     *                  {@code metrics.listen} validates it; port 0 takes a free port, {@link #port()} says which)
     *                  and what the scrape reports
     * @param pipelines the gather pipelines to report (read on every scrape)
     * @param scatters  the scatter pipelines to report (read on every scrape)
     * @param probes    what answers {@code /live} and {@code /ready}
     * @return the running endpoint
     * @throws IOException when the port cannot be bound
     */
    public static MetricsEndpoint start(final SluiceConfig.Metrics address,
        final Supplier<List<GatherPipeline<?>>> pipelines, final Supplier<List<ScatterPipeline>> scatters,
        final Health.Probes probes) throws IOException
    {
        final String host = address.host();
        final HttpServer server = HttpServer.create(
            new InetSocketAddress(InetAddress.getByName(host.isEmpty() ? "0.0.0.0" : host), address.port()), BACKLOG);
        server.createContext("/metrics", new MetricsHandler(registry(pipelines, scatters, probes::ready,
            address.tableHistograms()))).getFilters().add(new BoundedWrites());
        server.createContext("/", exchange -> probe(exchange, probes));
        final AtomicInteger threads = new AtomicInteger();
        // every thread before any queueing (a pool of one core thread would queue the probes behind one slow client)
        final ThreadPoolExecutor executor = new ThreadPoolExecutor(MAX_THREADS, MAX_THREADS, 120, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(100), r ->
            {
                final Thread t = new Thread(r, "prometheus-http-" + threads.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        executor.allowCoreThreadTimeOut(true);
        server.setExecutor(executor);
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    /** Hands a response body to the connection in pieces of at most {@link #WRITE_CHUNK_BYTES} (see the class). */
    static final class BoundedWrites extends Filter
    {
        @Override
        public void doFilter(final HttpExchange exchange, final Chain chain) throws IOException
        {
            exchange.setStreams(null, new ChunkedWrites(exchange.getResponseBody(), WRITE_CHUNK_BYTES));
            chain.doFilter(exchange);
        }

        @Override
        public String description()
        {
            return "writes the response body in pieces of at most " + WRITE_CHUNK_BYTES + " bytes";
        }
    }

    /** An output stream that splits every write into writes of at most {@code max} bytes. Not thread-safe. */
    static final class ChunkedWrites extends FilterOutputStream
    {
        private final int max;

        ChunkedWrites(final OutputStream out, final int max)
        {
            super(out);
            this.max = max;
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            int at = off;
            int left = len;
            while (left > 0)
            {
                final int n = Math.min(left, max);
                out.write(b, at, n);
                at += n;
                left -= n;
            }
        }
    }

    private static void probe(final HttpExchange exchange, final Health.Probes probes) throws IOException
    {
        try (exchange)
        {
            final String path = exchange.getRequestURI().getPath();
            final Health h;
            if ("/live".equals(path))
            {
                h = probes.live();
            }
            else if ("/ready".equals(path))
            {
                h = probes.ready();
            }
            else
            {
                final byte[] body = "Sluice: /metrics, /live, /ready\n".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                if ("HEAD".equals(exchange.getRequestMethod()))
                {
                    exchange.sendResponseHeaders("/".equals(path) ? 200 : 404, -1);
                    return;
                }
                exchange.sendResponseHeaders("/".equals(path) ? 200 : 404, body.length);
                try (OutputStream out = exchange.getResponseBody())
                {
                    out.write(body);
                }
                return;
            }
            final byte[] body = h.json().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            if ("HEAD".equals(exchange.getRequestMethod()))
            {
                exchange.sendResponseHeaders(h.httpStatus(), -1);
                return;
            }
            exchange.sendResponseHeaders(h.httpStatus(), body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        }
    }

    /** @return the bound port */
    public int port()
    {
        return server.getAddress().getPort();
    }

    /**
     * The metrics as the endpoint would serve them now, in Prometheus' text format: for a final dump at the end of a
     * run, or for a test. Thread-safe as the endpoint is.
     *
     * @param pipelines the gather pipelines
     * @param scatters  the scatter pipelines
     * @return the exposition text
     */
    public static String scrape(final Supplier<List<GatherPipeline<?>>> pipelines,
        final Supplier<List<ScatterPipeline>> scatters)
    {
        return scrape(pipelines, scatters, true);
    }

    /**
     * As {@link #scrape(Supplier, Supplier)}, with the per-batch histograms per table or summed per pipeline.
     *
     * @param pipelines       the gather pipelines
     * @param scatters        the scatter pipelines
     * @param tableHistograms {@code metrics.table_histograms}
     * @return the exposition text
     */
    public static String scrape(final Supplier<List<GatherPipeline<?>>> pipelines,
        final Supplier<List<ScatterPipeline>> scatters, final boolean tableHistograms)
    {
        return PrometheusTextFormatWriter.create()
            .toDebugString(registry(pipelines, scatters, null, tableHistograms).scrape());
    }

    private static PrometheusRegistry registry(final Supplier<List<GatherPipeline<?>>> pipelines,
        final Supplier<List<ScatterPipeline>> scatters, final Supplier<Health> readiness,
        final boolean tableHistograms)
    {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new EngineMetrics(pipelines, scatters, readiness, tableHistograms));
        JvmMetrics.builder().register(registry);
        return registry;
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
