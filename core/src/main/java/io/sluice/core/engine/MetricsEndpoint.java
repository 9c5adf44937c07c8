package io.sluice.core.engine;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.scatter.internal.ScatterPipeline;

/**
 * The metrics listener ({@code [metrics] listen = "host:port"}), built on the Prometheus Java client's HTTP server:
 * <ul>
 *   <li>{@code /metrics}: Prometheus' text format (or OpenMetrics or protobuf, as the scraper asks): every
 *       {@code sluice_*} series ({@link EngineMetrics}, listed in docs/metrics.md), the JVM and process series of the
 *       client's own instrumentation ({@code jvm_*}, {@code process_*}) and {@code sluice_build_info};</li>
 *   <li>{@code /live} and {@code /ready}: 200 or 503 with a JSON body {@code {"status": ..., "reasons": [...]}}
 *       ({@link Health.Probes}); the engine opens the listener before anything else, so a probe during start-up gets
 *       503, never a refused connection.</li>
 * </ul>
 * Scraping costs the record path nothing: every series is read from counters and recorders the stages write anyway.
 * Thread-safety: requests run on the HTTP server's threads and only read.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    private final HTTPServer server;

    private MetricsEndpoint(final HTTPServer server)
    {
        this.server = server;
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
        final HTTPServer server = HTTPServer.builder()
            .inetAddress(InetAddress.getByName(host.isEmpty() ? "0.0.0.0" : host))
            .port(address.port())
            .registry(registry(pipelines, scatters, probes::ready, address.tableHistograms()))
            .defaultHandler(exchange -> probe(exchange, probes))
            .buildAndStart();
        return new MetricsEndpoint(server);
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
        return server.getPort();
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
        server.close();
    }
}
