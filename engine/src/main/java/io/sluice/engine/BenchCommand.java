package io.sluice.engine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.core.gather.SinkProviders;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.ProcessMeter;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.stage.PipelineStats;
import io.sluice.sinks.kafka.KafkaTopicAdmin;

/**
 * {@code engine.jar bench --config F}: runs the pipelines of F over what is in their topics (as
 * {@code --until-caught-up} does) and prints what the run cost: records/s over the window from the first record
 * read to the last row acknowledged, MB/s of encoded rows written (the sink's row format: RowBinary for ClickHouse,
 * binary COPY tuples for PostgreSQL), CPU seconds per million records, peak RSS and heap, GC count and pause total,
 * bytes allocated per record, and end-to-end latency percentiles (Kafka record timestamp to the database's
 * acknowledgement). Any sink kind that is installed ({@code clickhouse}, {@code postgres}). The same numbers as {@code scripts/bench.sh} reports for Sluice; see
 * docs/benchmarks.md for what each means.
 *
 * <p>It is a real run: rows are written into the configured tables and offsets are committed for the configured
 * group. Point it at a benchmark database, and use {@code --from-beginning} (deletes the group's committed offsets
 * first; the group must have no active members) to read the topics from their start.
 *
 * <p>All measurements are taken inside this JVM without an agent: {@code OperatingSystemMXBean} process CPU time,
 * {@code ThreadMXBean} per-thread allocated bytes, GC notifications, {@code /proc/self/status} VmHWM.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run the pipelines over what is in their topics, then print records/s, CPU, memory, GC, allocation and latency.")
public final class BenchCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as one JSON object to FILE.")
    Path json;

    @Option(names = "--stop-after-rows", paramLabel = "N", defaultValue = "0", description = "Stop once N rows are written (for a topic that is still being produced to) instead of once caught up.")
    long stopAfterRows;

    @Option(names = "--latency-after-rows", paramLabel = "N", defaultValue = "0", description = "Leave the first N rows written (the JVM's warm-up) out of the latency percentiles.")
    long latencyAfterRows;

    @Option(names = "--from-beginning", description = "Delete the sinks' consumer groups first, so their topics are read from the start.")
    boolean fromBeginning;

    @Override
    public Integer call() throws Exception
    {
        final ProcessMeter meter = new ProcessMeter();
        final SluiceConfig c;
        try
        {
            c = ConfigChecks.load(config);
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(config, e,
                new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        }
        if (fromBeginning)
        {
            deleteGroups(c);
        }
        final SluiceEngine engine = new SluiceEngine(c,
            sink -> SinkProviders.installed().provider(sink.kind()).driver(),
            new GatherPipeline.RunOptions(stopAfterRows <= 0));
        final Thread hook = new Thread(engine::shutdown, "sluice-bench-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final Monitor monitor = new Monitor(engine, meter, stopAfterRows, latencyAfterRows);
        meter.excludeThread(monitor);
        monitor.start();
        final int code = engine.run();
        monitor.halt();
        monitor.join();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException e)
        {
            // already shutting down
        }
        long in = 0;
        long rows = 0;
        long written = 0;
        long inserts = 0;
        final long[] sealed = new long[5];
        final Histogram latency = new Histogram(3);
        for (final GatherPipeline<?> p : engine.pipelines())
        {
            final PipelineStats s = p.stats();
            in += s.recordsIn.get();
            rows += s.rowsWritten.get();
            written += s.bytesWritten.get();
            inserts += s.inserts.get();
            sealed[0] += s.sealedByRows.get();
            sealed[1] += s.sealedByBytes.get();
            sealed[2] += s.sealedByLinger.get();
            sealed[3] += s.sealedByFlush.get();
            sealed[4] += s.sealedByPool.get();
            latency.add(s.totals()[0]);
        }
        final Histogram warmup = monitor.warmupLatency;
        if (warmup != null)
        {
            latency.subtract(warmup);
        }
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("contender", "sluice");
        r.put("exit_code", code);
        r.put("records", in);
        r.put("rows", rows);
        r.put("kinds", kinds(engine));
        r.put("written_bytes", written);
        r.put("inserts", inserts);
        // why the batches were sealed: what sizes the inserts (Sealer's reasons)
        r.put("sealed_max_rows", sealed[0]);
        r.put("sealed_max_bytes", sealed[1]);
        r.put("sealed_linger", sealed[2]);
        r.put("sealed_flush", sealed[3]);
        r.put("sealed_pool", sealed[4]);
        r.putAll(meter.results());
        r.put("latency_count", latency.getTotalCount());
        r.put("latency_p50_us", latency.getValueAtPercentile(50));
        r.put("latency_p99_us", latency.getValueAtPercentile(99));
        r.put("latency_p999_us", latency.getValueAtPercentile(99.9));
        r.put("latency_max_us", latency.getMaxValue());
        print(r);
        if (json != null)
        {
            Files.writeString(json, ProcessMeter.toJson(r) + "\n");
        }
        return code;
    }

    /** @return the kinds of the pipelines' sinks, e.g. {@code clickhouse} or {@code clickhouse+postgres} */
    private static String kinds(final SluiceEngine engine)
    {
        final java.util.TreeSet<String> kinds = new java.util.TreeSet<>();
        for (final GatherPipeline<?> p : engine.pipelines())
        {
            kinds.add(p.kind());
        }
        return String.join("+", kinds);
    }

    private static void deleteGroups(final SluiceConfig c) throws InterruptedException
    {
        try (Admin admin = Admin.create(KafkaTopicAdmin.properties(c.kafka(), "sluice-bench-admin")))
        {
            for (final SluiceConfig.Sink s : c.sinks())
            {
                if (!s.consumes())
                {
                    continue;
                }
                try
                {
                    admin.deleteConsumerGroups(List.of(s.groupId())).all().get(30, TimeUnit.SECONDS);
                    System.err.println("deleted consumer group " + s.groupId());
                }
                catch (final ExecutionException e)
                {
                    if (!(e.getCause() instanceof GroupIdNotFoundException))
                    {
                        throw new IllegalStateException(
                            "cannot delete consumer group " + s.groupId() + ": " + e.getCause(), e.getCause());
                    }
                }
                catch (final TimeoutException e)
                {
                    throw new IllegalStateException("cannot delete consumer group " + s.groupId() + ": timed out", e);
                }
            }
        }
    }

    private static void print(final Map<String, Object> r)
    {
        final double records = ((Number)r.get("records")).doubleValue();
        final Object window = r.get("window_s");
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nsluice bench: %,.0f records in, %,d rows written, %d inserts%n",
            records, (Long)r.get("rows"), (Long)r.get("inserts")));
        if (window != null && records > 0)
        {
            final double w = (Double)window;
            sb.append(String.format(Locale.ROOT,
                "  records/s            %,12.0f   (window: first record read to last row acknowledged, %.2f s)%n",
                records / w, w));
            sb.append(String.format(Locale.ROOT, "  written MB/s         %12.1f   (encoded rows: %s)%n",
                ((Long)r.get("written_bytes")) / w / 1e6, r.get("kinds")));
            sb.append(String.format(Locale.ROOT, "  CPU s per M records  %12.2f   (window; whole process: %.2f)%n",
                (Double)r.get("window_cpu_s") / records * 1e6, (Double)r.get("process_cpu_s") / records * 1e6));
            sb.append(String.format(Locale.ROOT,
                "  allocated B/record   %12.1f   (window, threads alive at its end; whole process: %.1f)%n",
                ((Long)r.get("alloc_window_bytes")) / records, ((Long)r.get("alloc_process_bytes")) / records));
        }
        sb.append(String.format(Locale.ROOT, "  peak RSS             %12.1f MiB%n",
            ((Long)r.get("peak_rss_bytes")) / 1048576.0));
        sb.append(String.format(Locale.ROOT, "  peak heap used       %12.1f MiB%n",
            ((Long)r.get("peak_heap_bytes")) / 1048576.0));
        sb.append(String.format(Locale.ROOT, "  GC                   %12d collections, %.1f ms paused%n",
            (Long)r.get("gc_count"),
            (Double)r.get("gc_pause_ms")));
        sb.append(String.format(Locale.ROOT,
            "  latency (Kafka timestamp -> database ack) p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms%n",
            ((Long)r.get("latency_p50_us")) / 1e3, ((Long)r.get("latency_p99_us")) / 1e3,
            ((Long)r.get("latency_p999_us")) / 1e3,
            ((Long)r.get("latency_max_us")) / 1e3));
        sb.append("  (for records that waited in the topic before the run, latency includes that wait)");
        System.out.println(sb);
    }

    /** Watches the counters: marks the window and stops the run after {@code stopAfterRows}. */
    private static final class Monitor extends Thread
    {
        private final SluiceEngine engine;
        private final ProcessMeter meter;
        private final long stopAfterRows;
        private final long latencyAfterRows;
        private volatile boolean halted;
        volatile Histogram warmupLatency;

        Monitor(final SluiceEngine engine, final ProcessMeter meter, final long stopAfterRows,
            final long latencyAfterRows)
        {
            super("sluice-bench-monitor");
            setDaemon(true);
            this.engine = engine;
            this.meter = meter;
            this.stopAfterRows = stopAfterRows;
            this.latencyAfterRows = latencyAfterRows;
        }

        void halt()
        {
            halted = true;
        }

        @Override
        public void run()
        {
            long lastRows = 0;
            boolean stopping = false;
            while (!halted)
            {
                List<GatherPipeline<?>> pipelines;
                try
                {
                    pipelines = engine.pipelines();
                }
                catch (final RuntimeException e)
                {
                    pipelines = List.of(); // the list is being filled at start
                }
                long in = 0;
                long rows = 0;
                for (final GatherPipeline<?> p : pipelines)
                {
                    in += p.stats().recordsIn.get();
                    rows += p.stats().rowsWritten.get();
                }
                if (in > 0 && !meter.windowStarted())
                {
                    meter.windowStart();
                }
                if (rows > lastRows)
                {
                    meter.windowEnd();
                    lastRows = rows;
                }
                if (latencyAfterRows > 0 && warmupLatency == null && rows >= latencyAfterRows)
                {
                    final Histogram h = new Histogram(3);
                    for (final GatherPipeline<?> p : pipelines)
                    {
                        h.add(p.stats().totals()[0]);
                    }
                    warmupLatency = h;
                }
                if (!stopping && stopAfterRows > 0 && rows >= stopAfterRows)
                {
                    stopping = true;
                    engine.shutdown();
                }
                try
                {
                    Thread.sleep(5);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }
    }
}
