package io.sluice.bench.route;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.CircuitBreaker;
import io.sluice.core.gather.DestinationResolver;
import io.sluice.core.gather.InsertWorker;
import io.sluice.core.gather.RouteStage;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.Split;
import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.tuning.WaitKind;
import io.sluice.tuning.WaitStrategies;
import io.sluice.sinks.clickhouse.json.ClickHouseJsonRowEncoder;

/**
 * The route stage with its sealer, on the main job: the engine's own {@link RouteStage} built from
 * {@code examples/github-events.toml} (8 branches) over the table schemas of {@code examples/github-events.sql}
 * (read from the file: no server needed), fed the real GitHub events one {@link RecordEvent} at a time. Per record:
 * the source's copy into the slot, one scan, classification, RowBinary encoding into the open batch of its table,
 * sealing at {@code max_rows}/{@code max_bytes}, and the hand-off to an insert worker thread whose writer does
 * nothing but which acknowledges every row in the partition's ack tracker and recycles the batch. The score is
 * records/s; {@code -prof gc} shows the bytes allocated per record by both threads (zero in steady state is the
 * design goal).
 */
@State(Scope.Benchmark)
public class SealerBenchmark
{
    /** Records per invocation. */
    static final int RECORDS = 8192;

    private RecordEvent[] events;
    private byte[][] values;
    private RouteStage<JsonRecord> route;
    private InsertWorker worker;
    private Thread workerThread;
    private AckTracker tracker;
    private int trackerId;
    private int topicId;
    private long offset;
    private PipelineStats stats;

    /** A catalog over the CREATE TABLE statements of a SQL file. */
    static final class SqlFileCatalog implements DestinationCatalog
    {
        private final Map<String, TableSchema> tables = new HashMap<>();

        SqlFileCatalog(final String sql)
        {
            final Matcher m = Pattern
                .compile("CREATE TABLE IF NOT EXISTS (\\w+)\\.(\\w+) \\((.*?)\\) ENGINE", Pattern.DOTALL).matcher(sql);
            while (m.find())
            {
                final List<ColumnSpec> cols = new ArrayList<>();
                int depth = 0;
                int start = 0;
                final String body = m.group(3);
                for (int i = 0; i <= body.length(); i++)
                {
                    final char c = i < body.length() ? body.charAt(i) : ',';
                    if (c == '(')
                    {
                        depth++;
                    }
                    else if (c == ')')
                    {
                        depth--;
                    }
                    else if (c == ',' && depth == 0)
                    {
                        final String def = body.substring(start, i).strip();
                        final int sp = def.indexOf(' ');
                        cols.add(new ColumnSpec(def.substring(0, sp), def.substring(sp + 1).strip(), "", ""));
                        start = i + 1;
                    }
                }
                tables.put(m.group(1) + "." + m.group(2), new TableSchema(m.group(1), m.group(2), cols));
            }
        }

        @Override
        public TableSchema describe(final String database, final String table)
        {
            return tables.get(database + "." + table);
        }

        @Override
        public void create(final String database, final String table)
        {
            throw new UnsupportedOperationException("create");
        }

        @Override
        public String evaluateDefault(final ColumnSpec column)
        {
            return null;
        }

        @Override
        public String qualifiedName(final String database, final String table)
        {
            return ClickHouseIdentifiers.qualified(database, table);
        }

        @Override
        public String quoteColumn(final String column)
        {
            return ClickHouseIdentifiers.quote(column);
        }
    }

    /** A writer that writes nothing (the insert worker still acknowledges and recycles). */
    static final class NullWriter implements BatchWriter
    {
        long bytes;

        @Override
        public void write(final BatchBuffer batch)
        {
            bytes += batch.byteCount();
        }

        @Override
        public String describe()
        {
            return "null";
        }

        @Override
        public void close()
        {
        }
    }

    static Path projectFile(final String relative)
    {
        for (Path d = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent())
        {
            final Path f = d.resolve(relative);
            if (Files.isRegularFile(f))
            {
                return f;
            }
        }
        throw new IllegalStateException(relative + " not found above " + System.getProperty("user.dir"));
    }

    /** Builds the route stage and starts its insert worker. */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final SluiceConfig config = ConfigLoader.load(projectFile("examples/github-events.toml"));
        final SluiceConfig.Sink sink = config.sinks().get(0);
        final SluiceConfig.Engine e = config.engine();
        final SqlFileCatalog catalog = new SqlFileCatalog(Files.readString(projectFile("examples/github-events.sql")));
        final PartitionTrackers trackers = new PartitionTrackers(e.ackWindow());
        final TopicRegistry topics = new TopicRegistry();
        final PipelineControl control = new PipelineControl();
        stats = new PipelineStats();
        final OverflowPool overflow = new OverflowPool(e.overflowBuffers(), 1 << 16, e.maxRecordBytes());
        worker = new InsertWorker("bench/shard-0", e.queueDepth(), new NullWriter(), trackers, stats,
            new CircuitBreaker(5, TimeUnit.SECONDS.toNanos(1)), WaitStrategies.idleStrategy(WaitKind.PHASED), 100,
            1000);
        final GatherSpec<JsonRecord> spec = TomlGather.build(sink, ClickHouseJsonRowEncoder.encoding());
        final List<BatchPool> pools = new ArrayList<>();
        final List<DestinationResolver.SinkTarget> targets = new ArrayList<>();
        final List<InsertWorker[][]> workers = new ArrayList<>();
        for (final Split.Branch<?> b : spec.split().branches())
        {
            pools.add(new BatchPool(e.queueDepth() + 2 + 8, Math.min(b.chunk().maxBytes() + 4096, 1 << 20),
                Math.min(b.chunk().maxRows(), 1024)));
            targets.add(new DestinationResolver.SinkTarget(spec.sinks().get(b.sink()), catalog));
            workers.add(new InsertWorker[][]{{worker}});
        }
        route = new RouteStage<>(sink.name(), spec.decoder(), spec.split(), spec.onError(), ErrorPolicy.SKIP,
            targets, workers, pools, new DestinationResolver(), trackers, topics, overflow, control, stats,
            SystemNanoClock.INSTANCE);
        final String problem = route.resolveLiteralDestinations();
        if (problem != null)
        {
            throw new IllegalStateException(problem);
        }
        final TopicPartition tp = new TopicPartition("github.events", 0);
        topicId = topics.idOf(tp.topic());
        tracker = trackers.trackerFor(tp, 0);
        trackerId = trackers.idOf(tp);
        final List<byte[]> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
            Files.newInputStream(projectFile("examples/data/github-events.jsonl.gz"))), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null && lines.size() < RECORDS)
            {
                if (!line.isEmpty())
                {
                    lines.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        events = new RecordEvent[RECORDS];
        values = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++)
        {
            values[i] = lines.get(i % lines.size());
            final int cap = (values[i].length + 63) & ~63;
            events[i] = new RecordEvent(new UnsafeBuffer(ByteBuffer.allocateDirect(cap)));
        }
        workerThread = new Thread(new AgentRunner(worker.idleStrategy(), Throwable::printStackTrace, null, worker),
            "bench-insert-0");
        workerThread.setDaemon(true);
        workerThread.start();
    }

    /**
     * Routes {@link #RECORDS} records: copy, scan, classify, encode, seal, hand off.
     *
     * @return rows routed so far (so the work is not eliminated)
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(RECORDS)
    public long routeAndSeal()
    {
        final RecordEvent[] ev = events;
        final AckTracker t = tracker;
        for (int i = 0; i < RECORDS; i++)
        {
            final long o = offset;
            while (t.tryRegister(o) != AckTracker.REGISTERED)
            {
                Thread.onSpinWait(); // the ack window is full: the insert worker has not caught up yet
            }
            offset = o + 1;
            final RecordEvent e = ev[i];
            e.beginRecord(null, values[i].length, topicId, 0, o, 0L, trackerId, t.generation());
            e.putValue(values[i]);
            route.onBatchStart(1, 0);
            route.onEvent(e, o, true);
        }
        return stats.recordsRouted.get();
    }

    /**
     * CPU time of the insert worker thread so far (for {@link RecordPathCpu}).
     *
     * @return nanoseconds, or -1 if the JVM does not measure thread CPU time
     */
    public long workerCpuNanos()
    {
        return ManagementFactory.getThreadMXBean().getThreadCpuTime(workerThread.getId());
    }

    /** Stops the insert worker. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException
    {
        worker.stop();
        workerThread.join(10_000);
    }
}
