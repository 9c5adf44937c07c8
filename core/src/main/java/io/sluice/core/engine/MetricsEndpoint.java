package io.sluice.core.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import org.HdrHistogram.Histogram;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.InsertWorker;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.scatter.internal.ScatterPipeline;

/**
 * The Prometheus scrape endpoint ({@code [metrics] listen = "host:port"}, path {@code /metrics}), built on the
 * Prometheus Java client. Every metric is a callback over counters the engine keeps anyway, so scraping costs the
 * record path nothing.
 *
 * <p>Metrics (labels in braces):
 * <ul>
 *   <li>{@code sluice_records_in_total{pipeline}}, {@code sluice_records_routed_total{pipeline}}</li>
 *   <li>{@code sluice_records_dropped_total{pipeline,reason}} — reason {@code unrouted} or {@code invalid}</li>
 *   <li>{@code sluice_rows_written_total{pipeline,table}}, {@code sluice_bytes_written_total{pipeline,table}},
 *       {@code sluice_inserts_total{pipeline,table}} — rows per insert and inserts per second follow by division and
 *       rate()</li>
 *   <li>{@code sluice_insert_failures_total{pipeline}}</li>
 *   <li>{@code sluice_checkpoint_lag_offsets{pipeline,topic,partition}} — offsets registered but not yet committable</li>
 *   <li>{@code sluice_checkpoint_lag_ms{pipeline,topic,partition}} — how long the watermark has not moved while
 *       records are in flight</li>
 *   <li>{@code sluice_watermark_holder{pipeline,topic,partition,holder}} = 1 — which destination (or failure, or the
 *       route stage) holds the partition's watermark back</li>
 *   <li>{@code sluice_breaker_state{pipeline,worker}} — 0 closed, 1 open, 2 half-open</li>
 *   <li>{@code sluice_end_to_end_latency_ms{pipeline,quantile}} — Kafka record timestamp to ClickHouse acknowledgement,
 *       over the run so far</li>
 * </ul>
 * Scatter ({@code [[sources]]}), one series per source, the counters of the status line:
 * <ul>
 *   <li>{@code sluice_scatter_records_in_total{source}} — records the source read into its ring</li>
 *   <li>{@code sluice_scatter_routed_total{source}} — records given a topic, by their rule or its fallback</li>
 *   <li>{@code sluice_scatter_fallback_total{source}} — records sent to the rule's fallback topic</li>
 *   <li>{@code sluice_scatter_failed_total{source}} — records that failed before the producer (no value and no
 *       fallback, topic absent or not created, too large); their batch is re-read</li>
 *   <li>{@code sluice_scatter_skipped_total{source}} — records not produced because their partition was failed or
 *       re-read meanwhile</li>
 *   <li>{@code sluice_scatter_sent_total{source}}, {@code sluice_scatter_produced_total{source}} — handed to the
 *       producer, acknowledged by the broker</li>
 *   <li>{@code sluice_scatter_produce_errors_total{source}} — sends the broker or the producer failed</li>
 *   <li>{@code sluice_scatter_topics_created_total{source}}, {@code sluice_scatter_rate_limited_total{source}} —
 *       topics created, and topics that needed creation beyond {@code max_new_topics_per_minute}</li>
 *   <li>{@code sluice_scatter_backpressure_pauses_total{source}}</li>
 *   <li>{@code sluice_scatter_topics{source}} (gauge) — topics the source knows: every topic routed to so far, and
 *       the rule's fallback topic (known from the start, whether used or not);
 *       {@code sluice_scatter_in_flight{source}} (gauge) — sends not yet acknowledged</li>
 * </ul>
 * Per-topic series are deliberately absent: a source routing into one topic per user would make thousands.
 * Thread-safe: callbacks run on the HTTP server's threads and only read.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    private final HTTPServer server;

    private MetricsEndpoint(final HTTPServer server)
    {
        this.server = server;
    }

    /**
     * Starts the endpoint.
     *
     * @param listen    {@code host:port} or {@code [ipv6]:port}, as {@code metrics.listen} validates it; port 0 takes a
     *                  free port ({@link #port()} says which)
     * @param pipelines the gather pipelines to report (read on every scrape)
     * @param scatters  the scatter pipelines to report (read on every scrape)
     * @return the running endpoint
     * @throws IOException when the port cannot be bound
     */
    public static MetricsEndpoint start(final String listen, final Supplier<List<GatherPipeline<?>>> pipelines,
        final Supplier<List<ScatterPipeline>> scatters) throws IOException
    {
        final SluiceConfig.Metrics address = new SluiceConfig.Metrics(
            listen);
        final String host = address.host();
        final int port = address.port();
        final PrometheusRegistry registry = new PrometheusRegistry();
        register(registry, pipelines);
        registerScatter(registry, scatters);
        final HTTPServer server = HTTPServer.builder()
            .inetAddress(InetAddress.getByName(host.isEmpty() ? "0.0.0.0" : host))
            .port(port)
            .registry(registry)
            .buildAndStart();
        return new MetricsEndpoint(server);
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
        final PrometheusRegistry registry = new PrometheusRegistry();
        register(registry, pipelines);
        registerScatter(registry, scatters);
        return PrometheusTextFormatWriter.create().toDebugString(registry.scrape());
    }

    static void registerScatter(final PrometheusRegistry registry, final Supplier<List<ScatterPipeline>> scatters)
    {
        scatterCounter(registry, scatters, "sluice_scatter_records_in", "Records the source read into its ring",
            p -> p.sourceStats().recordsIn.get());
        scatterCounter(registry, scatters, "sluice_scatter_routed",
            "Records given a topic, by their rule or its fallback",
            p -> p.stats().routed.get());
        scatterCounter(registry, scatters, "sluice_scatter_fallback", "Records sent to the rule's fallback topic",
            p -> p.stats().fallbacks.get());
        scatterCounter(registry, scatters, "sluice_scatter_failed",
            "Records that failed before the producer (their batch is re-read)", p -> p.stats().failed.get());
        scatterCounter(registry, scatters, "sluice_scatter_skipped",
            "Records not produced because their partition was failed or re-read meanwhile",
            p -> p.stats().skipped.get());
        scatterCounter(registry, scatters, "sluice_scatter_sent", "Records handed to the producer",
            p -> p.stats().sent.get());
        scatterCounter(registry, scatters, "sluice_scatter_produced", "Records the broker acknowledged",
            p -> p.stats().produced.get());
        scatterCounter(registry, scatters, "sluice_scatter_produce_errors", "Sends that failed",
            p -> p.stats().produceErrors.get());
        scatterCounter(registry, scatters, "sluice_scatter_topics_created", "Topics this source created",
            p -> p.stats().topicsCreated.get());
        scatterCounter(registry, scatters, "sluice_scatter_rate_limited",
            "Topics that needed creation beyond max_new_topics_per_minute", p -> p.stats().rateLimited.get());
        scatterCounter(registry, scatters, "sluice_scatter_backpressure_pauses",
            "Times the source paused because its ring was full", p -> p.sourceStats().backpressurePauses.get());
        GaugeWithCallback.builder().name("sluice_scatter_topics")
            .help("Topics the source knows: routed to so far, and the fallback topic")
            .labelNames("source").callback(cb ->
            {
                for (final ScatterPipeline p : scatters.get())
                {
                    cb.call(p.topics().size(), p.name());
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_scatter_in_flight")
            .help("Records handed to the producer and not yet acknowledged").labelNames("source").callback(cb ->
            {
                for (final ScatterPipeline p : scatters.get())
                {
                    cb.call(p.inFlight(), p.name());
                }
            }).register(registry);
    }

    private static void scatterCounter(final PrometheusRegistry registry,
        final Supplier<List<ScatterPipeline>> scatters,
        final String name, final String help, final ToLongFunction<ScatterPipeline> value)
    {
        CounterWithCallback.builder().name(name).help(help).labelNames("source").callback(cb ->
        {
            for (final ScatterPipeline p : scatters.get())
            {
                cb.call(value.applyAsLong(p), p.name());
            }
        }).register(registry);
    }

    static void register(final PrometheusRegistry registry, final Supplier<List<GatherPipeline<?>>> pipelines)
    {
        CounterWithCallback.builder().name("sluice_records_in").help("Records copied into the ingest ring")
            .labelNames("pipeline").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    cb.call(p.stats().recordsIn.get(), p.name());
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_records_routed").help("Records routed to a branch and encoded")
            .labelNames("pipeline").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    cb.call(p.stats().recordsRouted.get(), p.name());
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_records_dropped")
            .help("Records dropped under a skip policy, by reason")
            .labelNames("pipeline", "reason").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    cb.call(p.stats().droppedUnrouted.get(), p.name(), "unrouted");
                    cb.call(p.stats().droppedInvalid.get(), p.name(), "invalid");
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_insert_failures").help("Failed insert attempts (each retry counts)")
            .labelNames("pipeline").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    cb.call(p.stats().insertFailures.get(), p.name());
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_rows_written").help("Rows durably written, per table")
            .labelNames("pipeline", "table").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    for (final Destination d : p.destinations())
                    {
                        cb.call(d.rowsWritten(), p.name(), d.toString());
                    }
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_bytes_written")
            .help("Encoded RowBinary bytes durably written, per table")
            .labelNames("pipeline", "table").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    for (final Destination d : p.destinations())
                    {
                        cb.call(d.bytesWritten(), p.name(), d.toString());
                    }
                }
            }).register(registry);
        CounterWithCallback.builder().name("sluice_inserts").help("Successful inserts, per table")
            .labelNames("pipeline", "table").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    for (final Destination d : p.destinations())
                    {
                        cb.call(d.inserts(), p.name(), d.toString());
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_checkpoint_lag_offsets")
            .help("Offsets registered but not yet committable")
            .labelNames("pipeline", "topic", "partition").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    final PartitionTrackers t = p.trackers();
                    for (int i = 0; i < t.size(); i++)
                    {
                        final AckTracker tr = t.get(i);
                        cb.call(Math.max(0, tr.inFlight()), p.name(), tr.topic(), Integer.toString(tr.partition()));
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_checkpoint_lag_ms")
            .help("How long the watermark has not moved while records are in flight")
            .labelNames("pipeline", "topic", "partition").callback(cb ->
            {
                final long now = System.nanoTime();
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    final PartitionTrackers t = p.trackers();
                    for (int i = 0; i < t.size(); i++)
                    {
                        final AckTracker tr = t.get(i);
                        cb.call(TimeUnit.NANOSECONDS.toMillis(tr.stalledNanos(now)), p.name(), tr.topic(),
                            Integer.toString(tr.partition()));
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_watermark_holder")
            .help("What holds a partition's watermark back (1 = this holder)")
            .labelNames("pipeline", "topic", "partition", "holder").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    final PartitionTrackers t = p.trackers();
                    for (int i = 0; i < t.size(); i++)
                    {
                        final String holder = p.watermarkHolder(i);
                        if (holder != null)
                        {
                            final AckTracker tr = t.get(i);
                            cb.call(1, p.name(), tr.topic(), Integer.toString(tr.partition()), holder);
                        }
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_breaker_state")
            .help("Circuit breaker per insert worker: 0 closed, 1 open, 2 half-open")
            .labelNames("pipeline", "worker").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    for (final InsertWorker w : p.workers())
                    {
                        cb.call(w.breaker().state(), p.name(), w.name());
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sluice_end_to_end_latency_ms")
            .help("Kafka record timestamp to ClickHouse acknowledgement, run so far")
            .labelNames("pipeline", "quantile").callback(cb ->
            {
                for (final GatherPipeline<?> p : pipelines.get())
                {
                    final Histogram h = p.stats().totals()[0];
                    if (h.getTotalCount() > 0)
                    {
                        for (final double q : new double[]{0.5, 0.99, 0.999})
                        {
                            cb.call(h.getValueAtPercentile(q * 100) / 1000.0, p.name(), Double.toString(q));
                        }
                    }
                }
            }).register(registry);
    }

    @Override
    public void close()
    {
        server.close();
    }
}
