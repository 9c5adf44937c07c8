package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

import org.HdrHistogram.Histogram;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import com.lmax.disruptor.BlockingWaitStrategy;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.TestSinkKind;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.Split;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.ringbuffers.RecordRing;
import io.sluice.sinks.clickhouse.json.ClickHouseJsonRowEncoder;

/**
 * Zero allocation after poll (issue 7): the record path from a filled ring slot through decode, classify, encode,
 * seal, the insert worker's acknowledgement and the watermark, over real GitHub events, for a long steady loop, with
 * a metrics scrape's read of the latency totals every 4,096 records on the measured thread.
 * The engine threads' allocated bytes per record (ThreadMXBean) must stay at zero within a tiny tolerance. The
 * writer is a stand-in that accepts each batch at once: the ClickHouse client's own allocation per batch is outside
 * the record path and measured by the benchmarks.
 */
class RecordPathAllocationTest
{
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();

    private static List<byte[]> sample() throws Exception
    {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("examples/data/github-events.jsonl.gz")))
        {
            dir = dir.getParent();
        }
        final List<byte[]> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
            Files.newInputStream(dir.resolve("examples/data/github-events.jsonl.gz"))), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                lines.add(line.getBytes(StandardCharsets.UTF_8));
            }
        }
        return lines;
    }

    /** Tables as examples/github-events.sql declares them (a subset of the types is enough for the path). */
    private static final class Catalog implements DestinationCatalog
    {
        @Override
        public TableSchema describe(final String database, final String table)
        {
            final List<ColumnSpec> cols = new ArrayList<>(List.of(
                new ColumnSpec("id", "UInt64", "", ""), new ColumnSpec("created_at", "DateTime", "", ""),
                new ColumnSpec("actor_login", "String", "", ""), new ColumnSpec("repo_name", "String", "", "")));
            if (table.equals("push_events"))
            {
                cols.add(new ColumnSpec("size", "UInt32", "", ""));
                cols.add(new ColumnSpec("ref", "String", "", ""));
            }
            else
            {
                cols.add(new ColumnSpec("type", "String", "", ""));
                cols.add(new ColumnSpec("payload", "String", "", ""));
            }
            return new TableSchema(database, table, cols);
        }

        @Override
        public void create(final String database, final String table)
        {
        }

        @Override
        public String evaluateDefault(final ColumnSpec column)
        {
            return null;
        }

        @Override
        public String qualifiedName(final String database, final String table)
        {
            return database + "." + table;
        }

        @Override
        public String quoteColumn(final String column)
        {
            return column;
        }
    }

    /** Accepts every batch at once and counts rows. */
    private static final class AcceptingWriter implements BatchWriter
    {
        volatile long rows;

        @Override
        public void write(final BatchBuffer batch)
        {
            rows += batch.rowCount();
        }

        @Override
        public String describe()
        {
            return "accepting";
        }

        @Override
        public void close()
        {
        }
    }

    @Test
    void shouldAllocateNothingPerRecordFromSlotToCommittableOffset() throws Exception
    {
        final SluiceConfig config = TestSinkKind.parse(
            """
                [kafka]
                bootstrap_servers = "unused:9092"
                [[sinks]]
                name = "g"
                kind = "test"
                topics = ["github.events"]
                group_id = "g"
                [sinks.plugin_config]
                endpoint = "http://unused:8123"
                database = "github"
                max_rows = 2000
                linger_ms = 5
                [[sinks.branches]]
                name = "push"
                when = { path = "type", equals = "PushEvent" }
                target_table = "push_events"
                columns = { actor_login = "actor.login", repo_name = "repo.name", size = "payload.size", ref = "payload.ref" }
                [[sinks.branches]]
                name = "other"
                target_table = "other_events"
                columns = { actor_login = "actor.login", repo_name = "repo.name" }
                """);
        final GatherSpec<JsonRecord> spec = TomlGather.build(config.sink("g"), ClickHouseJsonRowEncoder.encoding());
        final PartitionTrackers trackers = new PartitionTrackers(1 << 16);
        final AckTracker tracker = trackers.trackerFor(new TopicPartition("github.events", 0), 0);
        final TopicRegistry topics = new TopicRegistry();
        final int topicId = topics.idOf("github.events");
        final PipelineStats stats = new PipelineStats();
        final PipelineControl control = new PipelineControl();
        final AcceptingWriter writer = new AcceptingWriter();
        final InsertWorker worker = new InsertWorker("w", 8, writer, trackers, stats, new CircuitBreaker(5, 1_000_000),
            new BackoffIdleStrategy(), 1, 10);
        final InsertWorker[][] shards = {{worker}};
        final List<DestinationResolver.SinkTarget> targets = new ArrayList<>();
        final List<InsertWorker[][]> workers = new ArrayList<>();
        final List<BatchPool> pools = new ArrayList<>();
        for (final Split.Branch<?> b : spec.split().branches())
        {
            final SinkSpec s = spec.sinks().get(b.sink());
            targets.add(new DestinationResolver.SinkTarget(s, new Catalog()));
            workers.add(shards);
            final BatchPool pool = new BatchPool(16, 1 << 20, 2048);
            pool.prefill(); // buffers are created on first need; steady state starts once the pool is full
            pools.add(pool);
        }
        final OverflowPool overflow = new OverflowPool(4, 64 << 10, 1 << 20);
        final RouteStage<JsonRecord> route = new RouteStage<>("g", spec.decoder(), spec.split(), spec.onError(),
            ErrorPolicy.SKIP, targets, workers, pools, new DestinationResolver(), trackers, topics, overflow, control,
            stats, SystemNanoClock.INSTANCE);
        assertEquals(null, route.resolveLiteralDestinations());
        final RecordRing ring = new RecordRing(64, 8192, new BlockingWaitStrategy());
        final List<byte[]> lines = sample();

        final Thread workerThread = new Thread(new AgentRunner(worker.idleStrategy(), e -> e.printStackTrace(), null,
            worker), "insert");
        workerThread.start();
        long offset = 0;
        final int warmup = 200_000;
        // -Dsluice.soak.records=N runs a longer loop (the Epsilon GC soak in docs/tuning.md)
        final int measured = Integer.getInteger("sluice.soak.records", 400_000);
        final int half = warmup + measured / 2;
        long mainAtHalf = 0;
        long workerAtHalf = 0;
        final jdk.jfr.Recording recording = new jdk.jfr.Recording();
        recording.enable("jdk.ObjectAllocationInNewTLAB").withStackTrace();
        recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
        long mainBefore = 0;
        long workerBefore = 0;
        final long[] latencyRead = new long[1];
        final Consumer<Histogram[]> readLatency = h -> latencyRead[0] = h[0].getTotalCount() + h[1].getTotalCount();
        for (int i = 0; i < warmup + measured; i++)
        {
            if (i == warmup)
            {
                while (tracker.watermark() != offset)
                {
                    route.onTimeout(-1);
                    Thread.onSpinWait();
                }
                recording.start();
                mainBefore = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
                workerBefore = THREADS.getThreadAllocatedBytes(workerThread.getId());
            }
            if (i == half)
            {
                mainAtHalf = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
                workerAtHalf = THREADS.getThreadAllocatedBytes(workerThread.getId());
            }
            final byte[] value = lines.get(i % lines.size());
            final RecordEvent event = ring.ringBuffer().get(i);
            final int need = RecordEvent.requiredBytes(-1, value.length, 0);
            ExpandableDirectByteBuffer big = null;
            if (need > event.slotCapacity())
            {
                while ((big = overflow.tryAcquire()) == null)
                {
                    route.onTimeout(-1);
                    Thread.onSpinWait();
                }
            }
            while (tracker.tryRegister(offset) != AckTracker.REGISTERED)
            {
                // the window is full: as on the engine's threads, lingering batches seal while the source waits
                route.onTimeout(-1);
                tracker.watermark();
                Thread.onSpinWait();
            }
            event.beginRecord(big, need, topicId, 0, offset, 1_700_000_000_000L, 0, tracker.generation());
            event.putValue(value);
            event.publishNanos(System.nanoTime());
            route.onBatchStart(1, 0);
            route.onEvent(event, i, (i & 63) == 63);
            offset++;
            if ((i & 1023) == 0)
            {
                tracker.watermark();
            }
            if ((i & 4095) == 0)
            {
                // what a metrics scrape reads of the stats (the latency totals), here on the measured thread
                stats.readTotals(readLatency);
            }
        }
        route.onEvent(flush(ring), -1, true);
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (tracker.watermark() != offset && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        final long mainBytes = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId()) - mainBefore;
        final long workerBytes = THREADS.getThreadAllocatedBytes(workerThread.getId()) - workerBefore;
        recording.stop();
        final String where = allocationSites(recording);
        recording.close();
        worker.stop();
        workerThread.join(10_000);

        assertEquals(offset, tracker.watermark(), "every record acknowledged");
        assertTrue(latencyRead[0] > 0, "the scrape's read saw the latencies");
        assertEquals(warmup + measured, writer.rows);
        assertEquals(0, control.failureReason() == null ? 0 : 1, String.valueOf(control.failureReason()));
        // two halves: a one-off JVM event (a late JIT recompilation linking a call site) may land in one of them;
        // steady state is the quieter half, and it must be zero within a tiny tolerance
        final long mainFirst = mainAtHalf - mainBefore;
        final long mainSecond = mainBytes - mainFirst;
        final long workerFirst = workerAtHalf - workerBefore;
        final long workerSecond = workerBytes - workerFirst;
        System.out.printf(
            "record path allocation per half (%d records each): route+source %d / %d bytes, insert worker %d / %d bytes%n",
            measured / 2, mainFirst, mainSecond, workerFirst, workerSecond);
        final double perRecordRoute = (double)Math.min(mainFirst, mainSecond) / (measured / 2);
        final double perRecordWorker = (double)Math.min(workerFirst, workerSecond) / (measured / 2);
        System.out.printf(
            "record path allocation over %d records: route+source thread %.4f B/record, insert worker %.4f B/record%n",
            measured, perRecordRoute, perRecordWorker);
        assertTrue(perRecordRoute < 0.05,
            "route/source thread allocated " + mainBytes + " bytes over " + measured + " records; " + where);
        assertTrue(perRecordWorker < 0.05,
            "insert worker allocated " + workerBytes + " bytes over " + measured + " records; " + where);
    }

    /** The allocation sites JFR saw while measuring, for an actionable failure message. */
    private static String allocationSites(final jdk.jfr.Recording recording) throws Exception
    {
        final Path file = Files.createTempFile("alloc", ".jfr");
        recording.dump(file);
        final StringBuilder sb = new StringBuilder("allocation sites seen by JFR:");
        for (final jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(file))
        {
            final jdk.jfr.consumer.RecordedThread t = e.getThread();
            sb.append("\n  [").append(t == null ? "?" : t.getJavaName()).append("] ")
                .append(e.getClass("objectClass") == null ? "?" : e.getClass("objectClass").getName());
            if (e.getStackTrace() != null)
            {
                e.getStackTrace().getFrames().stream().limit(6)
                    .forEach(f -> sb.append(" <- ").append(f.getMethod().getType().getName()).append('.')
                        .append(f.getMethod().getName())
                        .append(':').append(f.getLineNumber()));
            }
        }
        Files.deleteIfExists(file);
        return sb.toString();
    }

    private static RecordEvent flush(final RecordRing ring)
    {
        final RecordEvent e = ring.ringBuffer().get(0);
        e.beginControl(RecordEvent.KIND_FLUSH, 1);
        return e;
    }
}
