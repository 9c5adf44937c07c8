package io.sluice.core.engine;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.InsertWorker;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.scatter.ScatterStats;
import io.sluice.core.scatter.internal.ScatterPipeline;
import io.sluice.core.scatter.internal.TopicEntry;
import io.sluice.core.scatter.internal.TopicTable;
import io.sluice.core.stage.BucketHistogram;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.TableStats;

/**
 * Every {@code sluice_*} series, built at scrape time from the counters, recorders and trackers the engine keeps
 * anyway (docs/metrics.md lists them with type, unit, labels and an example alert). One label vocabulary on both
 * directions: {@code pipeline} (the sink's or source's name), {@code topic}, {@code partition}, {@code table}
 * ({@code database.table}), {@code shard}. Units are base units: seconds, bytes, records.
 *
 * <p>Cost: nothing on the record path (the recorders are written there already, without allocating); a scrape folds
 * the HdrHistogram intervals into run totals and reads the classic buckets from them, so histograms computed from
 * HdrHistogram are accurate to its 3 significant digits. Thread-safety: {@link #collect()} runs on the HTTP server's
 * threads and only reads.
 */
final class EngineMetrics implements MultiCollector
{
    /** Upper bounds of the end-to-end latency histogram, seconds. */
    static final double[] END_TO_END_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
        10, 30, 60, 300};
    /** Upper bounds of the ring hop histograms, seconds (100 ns to 1 s). */
    static final double[] RING_HOP_BUCKETS = {1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4,
        5e-4, 1e-3, 1e-2, 0.1, 1};
    /** Upper bounds of the queue wait and produce latency histograms, seconds. */
    static final double[] WAIT_BUCKETS = {1e-5, 1e-4, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
        2.5, 5, 10, 30, 60};
    /** At most this many per-topic scatter series per pipeline; the rest are summed into {@code topic="(other)"}. */
    static final int MAX_TOPIC_SERIES = 500;
    /** The topic label value of the sum beyond {@link #MAX_TOPIC_SERIES} (parentheses: never a Kafka topic name). */
    static final String OTHER_TOPICS = "(other)";
    /** The label of the sink's kind ({@code clickhouse}, {@code postgres}) on every gather series. */
    static final String KIND = "kind";
    /**
     * The {@code kind} of a scatter source's data points in the series it shares with the gather side (dead letters,
     * consumer and checkpoint lag): what it writes to, Kafka topics.
     */
    static final String SCATTER_KIND = "kafka";

    private final Supplier<List<GatherPipeline<?>>> pipelines;
    private final Supplier<List<ScatterPipeline>> scatters;
    private final Supplier<Health> readiness;
    private final boolean tableHistograms;

    /**
     * @param pipelines       the gather pipelines (read on every scrape)
     * @param scatters        the scatter pipelines (read on every scrape)
     * @param readiness       what {@code /ready} would answer, for {@code sluice_ready}; null: not reported
     * @param tableHistograms {@code metrics.table_histograms}: the insert duration, batch rows and batch bytes
     *                        histograms per table (true) or summed per pipeline and kind (false)
     */
    EngineMetrics(final Supplier<List<GatherPipeline<?>>> pipelines, final Supplier<List<ScatterPipeline>> scatters,
        final Supplier<Health> readiness, final boolean tableHistograms)
    {
        this.pipelines = pipelines;
        this.scatters = scatters;
        this.readiness = readiness;
        this.tableHistograms = tableHistograms;
    }

    @Override
    public MetricSnapshots collect()
    {
        final List<MetricSnapshot> out = new ArrayList<>();
        buildInfo(out);
        if (readiness != null)
        {
            gauge(out, "sluice_ready", "1 while /ready answers 200, else 0", List.of(
                new GaugeDataPointSnapshot(readiness.get().ok() ? 1 : 0, Labels.EMPTY, null)));
        }
        final List<ScatterPipeline> sc = scatters.get();
        gather(out, pipelines.get(), sc, tableHistograms);
        scatter(out, sc);
        return new MetricSnapshots(out);
    }

    private static void buildInfo(final List<MetricSnapshot> out)
    {
        final Properties p = new Properties();
        try (InputStream in = EngineMetrics.class.getResourceAsStream("sluice-build.properties"))
        {
            if (in != null)
            {
                p.load(in);
            }
        }
        catch (final IOException e)
        {
            // reported as unknown below
        }
        gauge(out, "sluice_build_info", "The engine's version and commit (value 1)", List.of(new GaugeDataPointSnapshot(
            1, Labels.of("commit", known(p.getProperty("commit")), "version", known(p.getProperty("version"))),
            null)));
    }

    private static String known(final String v)
    {
        return v == null || v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }

    private static void gather(final List<MetricSnapshot> out, final List<GatherPipeline<?>> ps,
        final List<ScatterPipeline> scatters, final boolean tableHistograms)
    {
        final GatherSeries g = new GatherSeries(System.nanoTime(), tableHistograms);
        for (final GatherPipeline<?> p : ps)
        {
            g.add(p);
        }
        for (final ScatterPipeline p : scatters)
        {
            g.add(p);
        }
        g.emit(out);
    }

    /** The {@code cause} label of {@code sluice_source_rereads_total}, by {@code PipelineStats#rereads} index. */
    private static final String[] REREAD_CAUSES = {"backoff", "setup_ended", "safety"};
    private static final DeadLetterReason[] GATHER_REASONS = {DeadLetterReason.INVALID, DeadLetterReason.UNROUTED,
        DeadLetterReason.TOMBSTONE, DeadLetterReason.INSERT};
    private static final DeadLetterReason[] SCATTER_REASONS = {DeadLetterReason.ROUTING, DeadLetterReason.PRODUCE};

    /** The gather side's series of one scrape, collected pipeline by pipeline. */
    private static final class GatherSeries
    {
        final Family in = new Family();
        final Family routed = new Family();
        final Family dropped = new Family();
        final Family deadLetters = new Family();
        final Family deadLetterFailures = new Family();
        final Family pauses = new Family();
        final Family sealed = new Family();
        final Family rebalances = new Family();
        final Family assigned = new Family();
        final Family routeWaits = new Family();
        final Family rereads = new Family();
        final Family ackTrackers = new Family();
        final Family ackTrackerBytes = new Family();
        final Family rows = new Family();
        final Family bytes = new Family();
        final Family inserts = new Family();
        final Family failures = new Family();
        final Family consumerLag = new Family();
        final Family checkpointLag = new Family();
        final Family checkpointLagSeconds = new Family();
        final Family tableLag = new Family();
        final Family tableLagSeconds = new Family();
        final Family holder = new Family();
        final Family breaker = new Family();
        final Family queued = new Family();
        final List<HistogramDataPointSnapshot> endToEnd = new ArrayList<>();
        final List<HistogramDataPointSnapshot> ringHop = new ArrayList<>();
        final List<HistogramDataPointSnapshot> queueWait = new ArrayList<>();
        final List<HistogramDataPointSnapshot> insertSeconds = new ArrayList<>();
        final List<HistogramDataPointSnapshot> batchRows = new ArrayList<>();
        final List<HistogramDataPointSnapshot> batchBytes = new ArrayList<>();
        private final long now;
        private final boolean tableHistograms;

        GatherSeries(final long now, final boolean tableHistograms)
        {
            this.now = now;
            this.tableHistograms = tableHistograms;
        }

        void add(final GatherPipeline<?> p)
        {
            final String name = p.name();
            final String kind = p.kind();
            final PipelineStats s = p.stats();
            final Labels pl = Labels.of(KIND, kind, "pipeline", name);
            in.add(s.recordsIn.get(), pl);
            routed.add(s.recordsRouted.get(), pl);
            dropped.add(s.droppedUnrouted.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "unrouted"));
            dropped.add(s.droppedInvalid.get() + s.droppedRefused.get(),
                Labels.of(KIND, kind, "pipeline", name, "reason", "invalid"));
            dropped.add(s.droppedTombstone.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "tombstone"));
            deadLetters(name, kind, p.deadLetters(), GATHER_REASONS);
            pauses.add(s.backpressurePauses.get(), pl);
            rereads(name, kind, s);
            sealed.add(s.sealedByRows.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "max_rows"));
            sealed.add(s.sealedByBytes.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "max_bytes"));
            sealed.add(s.sealedByLinger.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "linger"));
            sealed.add(s.sealedByFlush.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "flush"));
            sealed.add(s.sealedByPool.get(), Labels.of(KIND, kind, "pipeline", name, "reason", "pool"));
            rebalances.add(s.assignments.get(), pl);
            assigned.add(s.assignedPartitions(), pl);
            routeWaits.add(s.routeWaits.get(), pl);
            ackTrackers.add(p.trackers().live(), pl);
            ackTrackerBytes.add(p.trackers().bytes(), pl);
            for (final Destination d : p.destinations())
            {
                final Labels tl = Labels.of(KIND, p.kindOf(d.sink()), "pipeline", name, "table", d.toString());
                rows.add(d.rowsWritten(), tl);
                bytes.add(d.bytesWritten(), tl);
                inserts.add(d.inserts(), tl);
            }
            final Map<String, BucketHistogram[]> byKind = tableHistograms ? null : new HashMap<>();
            for (final TableStats t : s.tables())
            {
                final String tableKind = t.destination() instanceof Destination d ? p.kindOf(d.sink()) : kind;
                final Labels tl = Labels.of(KIND, tableKind, "pipeline", name, "table", t.label());
                if (byKind == null)
                {
                    insertSeconds.add(buckets(t.insertNanos(), 1e-9, tl));
                    batchRows.add(buckets(t.batchRows(), 1, tl));
                    batchBytes.add(buckets(t.batchBytes(), 1, tl));
                }
                else
                {
                    final BucketHistogram[] sum = byKind.computeIfAbsent(tableKind, k -> new BucketHistogram[]{
                        t.insertNanos().emptyCopy(), t.batchRows().emptyCopy(), t.batchBytes().emptyCopy()});
                    sum[0].add(t.insertNanos());
                    sum[1].add(t.batchRows());
                    sum[2].add(t.batchBytes());
                }
                for (int c = 0; c < TableStats.classes(); c++)
                {
                    failures.add(t.failures(c), Labels.of("class", TableStats.className(c), KIND, tableKind,
                        "pipeline", name, "table", t.label()));
                }
            }
            if (byKind != null)
            {
                for (final Map.Entry<String, BucketHistogram[]> e : byKind.entrySet())
                {
                    final Labels kl = Labels.of(KIND, e.getKey(), "pipeline", name);
                    insertSeconds.add(buckets(e.getValue()[0], 1e-9, kl));
                    batchRows.add(buckets(e.getValue()[1], 1, kl));
                    batchBytes.add(buckets(e.getValue()[2], 1, kl));
                }
            }
            partitions(p.name(), kind, p.trackers(), s, now, consumerLag, checkpointLag, checkpointLagSeconds);
            for (int i = 0; i < p.trackers().size(); i++)
            {
                final String h = p.watermarkHolder(i);
                if (h != null)
                {
                    final AckTracker tr = p.trackers().get(i);
                    holder.add(1, Labels.of("holder", h, KIND, kind, "partition", Integer.toString(tr.partition()),
                        "pipeline", p.name(), "topic", tr.topic()));
                }
            }
            tables(p, now, tableLag, tableLagSeconds);
            for (final InsertWorker w : p.workers())
            {
                final Labels wl = workerLabels(name, w.name()).add(KIND, p.kindOf(w));
                breaker.add(w.breaker().state(), wl);
                queued.add(w.queued(), wl);
            }
            s.readTotals(h ->
            {
                endToEnd.add(hdr(h[0], 1e-6, END_TO_END_BUCKETS, pl));
                ringHop.add(hdr(h[1], 1e-9, RING_HOP_BUCKETS,
                    Labels.of(KIND, kind, "pipeline", name, "stage", "route")));
                queueWait.add(hdr(h[3], 1e-6, WAIT_BUCKETS,
                    Labels.of(KIND, kind, "pipeline", name, "stage", "insert")));
            });
        }

        void add(final ScatterPipeline p)
        {
            deadLetters(p.name(), SCATTER_KIND, p.deadLetters(), SCATTER_REASONS);
            rereads(p.name(), SCATTER_KIND, p.sourceStats());
            if (!SluiceConfig.Source.KAFKA.equals(p.source().kind()))
            {
                return; // a file or stdin source has lines, not partitions
            }
            // a scatter source that reads Kafka has partitions too: the same series, labelled by its pipeline
            partitions(p.name(), SCATTER_KIND, p.trackers(), p.sourceStats(), now, consumerLag, checkpointLag,
                checkpointLagSeconds);
        }

        /** The source's re-reads of failed partitions (or replays of a file), by cause. */
        private void rereads(final String name, final String kind, final PipelineStats s)
        {
            for (int c = 0; c < REREAD_CAUSES.length; c++)
            {
                rereads.add(s.rereads[c].get(), Labels.of("cause", REREAD_CAUSES[c], KIND, kind, "pipeline", name));
            }
        }

        /** The dead letters of a pipeline, by reason (zero when it has no dead-letter topic). */
        private void deadLetters(final String name, final String kind, final DeadLetters d,
            final DeadLetterReason[] reasons)
        {
            for (final DeadLetterReason r : reasons)
            {
                deadLetters.add(d == null ? 0 : d.written(r), Labels.of(KIND, kind, "pipeline", name, "reason",
                    r.label()));
            }
            deadLetterFailures.add(d == null ? 0 : d.notWritten(), Labels.of(KIND, kind, "pipeline", name));
        }

        void emit(final List<MetricSnapshot> out)
        {
            in.counter(out, "sluice_records_in", "Records copied into the ingest ring (re-reads count again)");
            deadLetters.counter(out, "sluice_dead_letters",
                "Records written to the dead-letter topic (the broker acknowledged them), by reason");
            deadLetterFailures.counter(out, "sluice_dead_letter_failures",
                "Dead letters that could not be written (their offsets failed: the partition stops and is re-read)");
            routed.counter(out, "sluice_records_routed", "Records routed to a branch and encoded");
            dropped.counter(out, "sluice_records_dropped", "Records dropped under a skip policy, by reason");
            pauses.counter(out, "sluice_backpressure_pauses",
                "Times the source paused its partitions because the ring, an ack window or the overflow pool was full");
            sealed.counter(out, "sluice_batches_sealed", "Batches sealed, by the rule that sealed them");
            rebalances.counter(out, "sluice_rebalances", "Completed rebalances that gave the consumer its assignment");
            assigned.gauge(out, "sluice_assigned_partitions", "Partitions assigned to this consumer");
            rereads.counter(out, "sluice_source_rereads", "Times the source read a failed partition again from its "
                + "watermark, by cause: backoff (the retry backoff passed), setup_ended (the new table a record waited "
                + "for was set up, or its setup failed), safety (the safety re-read while that setup still ran)");
            routeWaits.counter(out, "sluice_route_waits",
                "Times the route stage waited for a batch buffer or an insert worker's queue (back-pressure)");
            ackTrackers.gauge(out, "sluice_ack_trackers", "Partitions whose ack state is held (freed on revocation)");
            ackTrackerBytes.gauge(out, "sluice_ack_tracker_bytes", "Heap the partitions' ack state takes");
            rows.counter(out, "sluice_rows_written", "Rows durably written, per table");
            bytes.counter(out, "sluice_written_bytes",
                "Encoded bytes durably written (the sink's row format), per table");
            inserts.counter(out, "sluice_inserts", "Successful inserts, per table");
            failures.counter(out, "sluice_insert_failures",
                "Failed insert attempts (each retry counts), per table and error class");
            consumerLag.gauge(out, "sluice_consumer_lag_records",
                "Log-end offset minus the consumer's position: records not yet read");
            checkpointLag.gauge(out, "sluice_checkpoint_lag_records",
                "Records read but not yet committable (registered, not durably written everywhere)");
            checkpointLagSeconds.gauge(out, "sluice_checkpoint_lag_seconds",
                "How long the watermark has not moved while records are in flight");
            tableLag.gauge(out, "sluice_table_checkpoint_lag_records",
                "Rows routed to a table and not yet written (open, queued and in-flight batches)");
            tableLagSeconds.gauge(out, "sluice_table_checkpoint_lag_seconds",
                "Age of the table's oldest unwritten batch (since its first row)");
            holder.gauge(out, "sluice_watermark_holder", "What holds a partition's watermark back (1 = this holder)");
            breaker.gauge(out, "sluice_breaker_state",
                "Circuit breaker per insert worker: 0 closed, 1 open, 2 half-open");
            queued.gauge(out, "sluice_insert_queue_batches", "Sealed batches waiting in an insert worker's queue");
            histogram(out, "sluice_end_to_end_latency_seconds",
                "Kafka record timestamp to the database's acknowledgement, per row", endToEnd);
            histogram(out, "sluice_ring_hop_seconds",
                "Source publish to the stage after the ring (one record in eight)",
                ringHop);
            histogram(out, "sluice_queue_wait_seconds", "Sealed batch waiting in its worker's queue until its insert",
                queueWait);
            histogram(out, "sluice_insert_duration_seconds", "Duration of successful inserts, per table",
                insertSeconds);
            histogram(out, "sluice_batch_rows", "Rows per inserted batch, per table", batchRows);
            histogram(out, "sluice_batch_bytes", "Encoded bytes per inserted batch, per table", batchBytes);
        }
    }

    private static void partitions(final String pipeline, final String kind, final PartitionTrackers t,
        final PipelineStats s, final long now, final Family consumerLag, final Family checkpointLag,
        final Family checkpointLagSeconds)
    {
        for (int i = 0; i < t.size(); i++)
        {
            if (!t.isLive(i))
            {
                continue;
            }
            final AckTracker tr = t.get(i);
            final Labels l = Labels.of(KIND, kind, "partition", Integer.toString(tr.partition()), "pipeline", pipeline,
                "topic", tr.topic());
            final long lag = s.consumerLag(i);
            if (lag >= 0)
            {
                consumerLag.add(lag, l);
            }
            checkpointLag.add(Math.max(0, tr.inFlight()), l);
            checkpointLagSeconds.add(tr.stalledNanos(now) / 1e9, l);
        }
    }

    private static void tables(final GatherPipeline<?> p, final long now, final Family rows, final Family seconds)
    {
        final Map<String, long[]> byTable = new HashMap<>();
        final Map<String, String> kinds = new HashMap<>();
        for (final Destination d : p.destinations())
        {
            byTable.putIfAbsent(d.toString(), new long[]{0, Long.MAX_VALUE});
            kinds.putIfAbsent(d.toString(), p.kindOf(d.sink()));
        }
        for (final BatchPool pool : p.batchPools())
        {
            for (final BatchBuffer b : pool.buffers())
            {
                final Destination d = b.destination();
                final int n = b.rowCount();
                if (d != null && b.inUse() && n > 0)
                {
                    final long[] acc = byTable.computeIfAbsent(d.toString(), k -> new long[]{0, Long.MAX_VALUE});
                    kinds.putIfAbsent(d.toString(), p.kindOf(d.sink()));
                    acc[0] += n;
                    acc[1] = Math.min(acc[1], b.openedNanos());
                }
            }
        }
        for (final Map.Entry<String, long[]> e : byTable.entrySet())
        {
            final Labels l = Labels.of(KIND, kinds.get(e.getKey()), "pipeline", p.name(), "table", e.getKey());
            rows.add(e.getValue()[0], l);
            seconds.add(e.getValue()[0] == 0 ? 0 : Math.max(0, now - e.getValue()[1]) / 1e9, l);
        }
    }

    /** Worker names are {@code pipeline/shard-S-W}: shard S (index in the shard list), worker W of that shard. */
    static Labels workerLabels(final String pipeline, final String workerName)
    {
        final int at = workerName.lastIndexOf("/shard-");
        String shard = "0";
        String worker = workerName;
        if (at >= 0)
        {
            final String rest = workerName.substring(at + "/shard-".length());
            final int dash = rest.indexOf('-');
            shard = dash < 0 ? rest : rest.substring(0, dash);
            worker = dash < 0 ? "0" : rest.substring(dash + 1);
        }
        return Labels.of("pipeline", pipeline, "shard", shard, "worker", worker);
    }

    private static void scatter(final List<MetricSnapshot> out, final List<ScatterPipeline> ps)
    {
        final String[] names = {"records_in", "routed", "fallback", "failed", "skipped", "sent", "produced",
            "produce_errors", "topics_created", "rate_limited", "backpressure_pauses", "refused"};
        final String[] helps = {"Records the source read into its ring (re-reads count again)",
            "Records given a topic, by their rule or its fallback", "Records sent to the rule's fallback topic",
            "Records that failed before the producer (their batch is re-read)",
            "Records not produced because their partition was failed or re-read meanwhile",
            "Records handed to the producer", "Records the broker acknowledged", "Sends that failed",
            "Topics this source created", "Topics that needed creation beyond max_new_topics_per_minute",
            "Times the source paused because its ring was full",
            "Records the broker refused for good (then the fallback, the dead letter, or a stop)"};
        final Family[] counters = new Family[names.length];
        for (int i = 0; i < counters.length; i++)
        {
            counters[i] = new Family();
        }
        final Family topics = new Family();
        final Family inFlight = new Family();
        final Family perTopic = new Family();
        final List<HistogramDataPointSnapshot> produceLatency = new ArrayList<>();
        final List<HistogramDataPointSnapshot> ringHop = new ArrayList<>();
        for (final ScatterPipeline p : ps)
        {
            final ScatterStats s = p.stats();
            final PipelineStats src = p.sourceStats();
            final Labels pl = Labels.of("pipeline", p.name());
            final long[] v = {src.recordsIn.get(), s.routed.get(), s.fallbacks.get(), s.failed.get(), s.skipped.get(),
                s.sent.get(), s.produced.get(), s.produceErrors.get(), s.topicsCreated.get(), s.rateLimited.get(),
                src.backpressurePauses.get(), s.refused.get()};
            for (int i = 0; i < v.length; i++)
            {
                counters[i].add(v[i], pl);
            }
            final TopicTable table = p.topics();
            topics.add(table.size(), pl);
            inFlight.add(p.inFlight(), pl);
            long other = 0;
            for (int id = 0; id < table.size(); id++)
            {
                final TopicEntry e = table.entry(id);
                if (id < MAX_TOPIC_SERIES)
                {
                    perTopic.add(e.produced.get(), Labels.of("pipeline", p.name(), "topic", e.name()));
                }
                else
                {
                    other += e.produced.get();
                }
            }
            if (table.size() > MAX_TOPIC_SERIES)
            {
                perTopic.add(other, Labels.of("pipeline", p.name(), "topic", OTHER_TOPICS));
            }
            s.readTotals(h ->
            {
                produceLatency.add(hdr(h[0], 1e-9, WAIT_BUCKETS, pl));
                ringHop.add(hdr(h[1], 1e-9, RING_HOP_BUCKETS, Labels.of("pipeline", p.name(), "stage", "route")));
            });
        }
        for (int i = 0; i < names.length; i++)
        {
            counters[i].counter(out, "sluice_scatter_" + names[i], helps[i]);
        }
        topics.gauge(out, "sluice_scatter_topics",
            "Topics the source knows: routed to so far, and the fallback topic");
        inFlight.gauge(out, "sluice_scatter_in_flight", "Records handed to the producer and not yet acknowledged");
        perTopic.counter(out, "sluice_scatter_topic_produced",
            "Records the broker acknowledged, per topic (at most " + MAX_TOPIC_SERIES + " topics per pipeline)");
        histogram(out, "sluice_scatter_produce_latency_seconds",
            "Record handed to the producer until the broker acknowledged it", produceLatency);
        histogram(out, "sluice_scatter_ring_hop_seconds",
            "Source publish to the scatter route stage (one record in eight)", ringHop);
    }

    /** A classic histogram from a fixed-bucket one; {@code unit} converts its values to the exported unit. */
    static HistogramDataPointSnapshot buckets(final BucketHistogram h, final double unit, final Labels labels)
    {
        final int n = h.buckets();
        final double[] upper = new double[n + 1];
        final long[] counts = new long[n + 1];
        for (int i = 0; i < n; i++)
        {
            upper[i] = h.upperBound(i) * unit;
            counts[i] = h.count(i);
        }
        upper[n] = Double.POSITIVE_INFINITY;
        counts[n] = h.count(n);
        return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(upper, counts), h.sum() * unit, labels, null,
            0L);
    }

    /**
     * A classic histogram from an HdrHistogram of run totals.
     *
     * @param h      the totals
     * @param unit   seconds per unit of {@code h} (1e-6 for microseconds)
     * @param bounds upper bounds, seconds
     * @param labels the data point's labels
     * @return the data point
     */
    static HistogramDataPointSnapshot hdr(final Histogram h, final double unit, final double[] bounds,
        final Labels labels)
    {
        final double[] upper = new double[bounds.length + 1];
        final long[] counts = new long[bounds.length + 1];
        long below = 0;
        for (int i = 0; i < bounds.length; i++)
        {
            upper[i] = bounds[i];
            final long cumulative = h.getTotalCount() == 0
                ? 0
                : h.getCountBetweenValues(0, h.lowestEquivalentValue((long)Math.floor(bounds[i] / unit + 1e-9)));
            counts[i] = Math.max(0, cumulative - below);
            below += counts[i];
        }
        upper[bounds.length] = Double.POSITIVE_INFINITY;
        counts[bounds.length] = Math.max(0, h.getTotalCount() - below);
        final double sum = h.getTotalCount() == 0 ? 0 : h.getMean() * h.getTotalCount() * unit;
        return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(upper, counts), sum, labels, null, 0L);
    }

    private static void gauge(final List<MetricSnapshot> out, final String name, final String help,
        final List<GaugeDataPointSnapshot> points)
    {
        out.add(new GaugeSnapshot(new MetricMetadata(name, help), points));
    }

    private static void histogram(final List<MetricSnapshot> out, final String name, final String help,
        final List<HistogramDataPointSnapshot> points)
    {
        out.add(new HistogramSnapshot(new MetricMetadata(name, help), points));
    }

    /** The data points of one counter or gauge family. */
    private static final class Family
    {
        private final List<double[]> values = new ArrayList<>();
        private final List<Labels> labels = new ArrayList<>();

        void add(final double value, final Labels l)
        {
            values.add(new double[]{value});
            labels.add(l);
        }

        void counter(final List<MetricSnapshot> out, final String name, final String help)
        {
            final List<CounterDataPointSnapshot> points = new ArrayList<>();
            for (int i = 0; i < values.size(); i++)
            {
                points.add(new CounterDataPointSnapshot(values.get(i)[0], labels.get(i), null, 0L));
            }
            out.add(new CounterSnapshot(new MetricMetadata(name, help), points));
        }

        void gauge(final List<MetricSnapshot> out, final String name, final String help)
        {
            final List<GaugeDataPointSnapshot> points = new ArrayList<>();
            for (int i = 0; i < values.size(); i++)
            {
                points.add(new GaugeDataPointSnapshot(values.get(i)[0], labels.get(i), null));
            }
            EngineMetrics.gauge(out, name, help, points);
        }
    }
}
