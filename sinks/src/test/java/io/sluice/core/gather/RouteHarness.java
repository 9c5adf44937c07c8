package io.sluice.core.gather;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.kafka.common.TopicPartition;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.TestSinkKind;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.SinkException;
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
 * A gather route stage and one insert worker driven on the test's thread, from a TOML sink, over tables the test
 * declares (and may change between records): records go in one by one, {@link #flush()} seals and writes, and the
 * writer keeps every batch it was given (its rows' bytes and offsets). For the record path's rules, not ClickHouse:
 * the real server is the integration tests'.
 */
final class RouteHarness
{
    /** One written batch: its table, rows and the offsets of the records they came from. */
    record Written(String table, int rows, byte[] bytes, List<Long> offsets)
    {
    }

    /** Tables by name, each a list of columns; mutable, so a test can change a table while records flow. */
    final Map<String, List<ColumnSpec>> tables = new HashMap<>();
    final List<Written> written = new ArrayList<>();
    /** When set, decides for each batch whether the write fails (the exception) or succeeds (null). */
    Function<BatchBuffer, SinkException> failWith;
    final PipelineStats stats = new PipelineStats();
    final PipelineControl control = new PipelineControl();
    final PartitionTrackers trackers = new PartitionTrackers(1 << 12);
    final AckTracker tracker;
    final DestinationResolver resolver = new DestinationResolver();
    final RouteStage<JsonRecord> route;
    final InsertWorker worker;
    private final RecordRing ring = new RecordRing(64, 8192, new com.lmax.disruptor.BlockingWaitStrategy());
    private final int topicId;
    private long offset;
    private long sequence;

    /** A catalog over {@link #tables}. */
    private final class Catalog implements DestinationCatalog
    {
        @Override
        public TableSchema describe(final String database, final String table)
        {
            final List<ColumnSpec> cols = tables.get(table);
            return cols == null ? null : new TableSchema(database, table, cols);
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

    /** Keeps each batch (or fails it as {@link #failWith} says). */
    private final class KeepingWriter implements BatchWriter
    {
        @Override
        public void write(final BatchBuffer batch) throws SinkException
        {
            final SinkException e = failWith == null ? null : failWith.apply(batch);
            if (e != null)
            {
                throw e;
            }
            final byte[] bytes = new byte[(int)batch.byteCount()];
            batch.rows().read(bytes, 0, bytes.length);
            batch.rows().readPosition(0);
            final List<Long> offsets = new ArrayList<>();
            for (int i = 0; i < batch.rowCount(); i++)
            {
                offsets.add(batch.offset(i));
            }
            written.add(new Written(batch.destination().table(), batch.rowCount(), bytes, offsets));
        }

        @Override
        public String describe()
        {
            return "keeping";
        }

        @Override
        public void close()
        {
        }
    }

    /**
     * @param sinkToml the {@code [[sinks]]} table and everything under it (the [kafka] table is added); its topics
     *                 must be {@code ["t"]} and its endpoint anything
     */
    RouteHarness(final String sinkToml)
    {
        final SluiceConfig config = TestSinkKind.parse("[kafka]\nbootstrap_servers = \"unused:9092\"\n" + sinkToml);
        final SluiceConfig.Sink sink = config.sinks().get(0);
        final GatherSpec<JsonRecord> spec = TomlGather.build(sink, ClickHouseJsonRowEncoder.encoding());
        tracker = trackers.trackerFor(new TopicPartition("t", 0), 0);
        final TopicRegistry topics = new TopicRegistry();
        topicId = topics.idOf("t");
        worker = new InsertWorker("w", 64, new KeepingWriter(), trackers, stats, new CircuitBreaker(1000, 1),
            new BusySpinIdleStrategy(), 1, 1);
        final InsertWorker[][] shards = {{worker}};
        final List<DestinationResolver.SinkTarget> targets = new ArrayList<>();
        final List<InsertWorker[][]> workers = new ArrayList<>();
        final List<BatchPool> pools = new ArrayList<>();
        final Catalog catalog = new Catalog();
        for (final Split.Branch<?> b : spec.split().branches())
        {
            final SinkSpec s = spec.sinks().get(b.sink());
            targets.add(new DestinationResolver.SinkTarget(s, catalog));
            workers.add(shards);
            pools.add(new BatchPool(64, 1 << 16, 64));
        }
        route = new RouteStage<>("g", spec.decoder(), spec.split(), spec.onError(), spec.tombstones(), targets,
            workers, pools, resolver, trackers, topics, new OverflowPool(2, 1 << 16, 1 << 20), control, stats,
            SystemNanoClock.INSTANCE);
    }

    /** Declares a table. */
    RouteHarness table(final String name, final ColumnSpec... columns)
    {
        tables.put(name, new ArrayList<>(List.of(columns)));
        return this;
    }

    /**
     * Routes one record at the next offset.
     *
     * @param value its value as UTF-8 text, or null for a tombstone
     * @return its offset
     */
    long offer(final String value)
    {
        final byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        final RecordEvent event = ring.ringBuffer().get(sequence);
        final long o = offset++;
        while (tracker.tryRegister(o) != AckTracker.REGISTERED)
        {
            tracker.watermark();
        }
        event.beginRecord(null, RecordEvent.requiredBytes(-1, bytes == null ? 0 : bytes.length, 0), topicId, 0, o,
            1_700_000_000_000L, 0, tracker.generation());
        event.putValue(bytes);
        event.publishNanos(System.nanoTime());
        route.onBatchStart(1, 0);
        route.onEvent(event, sequence++, true);
        return o;
    }

    /** Seals every open batch and lets the worker write (or fail) each. */
    void flush()
    {
        final RecordEvent e = ring.ringBuffer().get(sequence);
        e.beginControl(RecordEvent.KIND_FLUSH, sequence);
        route.onEvent(e, sequence++, true);
        drain();
    }

    /** Runs the worker until it has taken and finished every queued batch. */
    void drain()
    {
        for (int i = 0; i < 10_000 && (!worker.idle() || worker.queued() > 0); i++)
        {
            worker.doWork();
        }
    }

    /** @return the watermark of partition t-0 */
    long watermark()
    {
        return tracker.watermark();
    }

    /** Every row written so far, as the RowBinary bytes of each, in the order written (one table's rows). */
    List<Long> writtenOffsets(final String table)
    {
        final List<Long> out = new ArrayList<>();
        for (final Written w : written)
        {
            if (w.table().equals(table))
            {
                out.addAll(w.offsets());
            }
        }
        return out;
    }

    /** Reads the rows of one table's batches with a reader per row. */
    List<List<Object>> rows(final String table, final Function<Bytes<?>, List<Object>> rowReader)
    {
        final List<List<Object>> out = new ArrayList<>();
        for (final Written w : written)
        {
            if (!w.table().equals(table))
            {
                continue;
            }
            final Bytes<?> b = Bytes.wrapForRead(w.bytes());
            for (int i = 0; i < w.rows(); i++)
            {
                out.add(rowReader.apply(b));
            }
        }
        return out;
    }

    /** Reads a RowBinary UInt32. */
    static long uint32(final Bytes<?> b)
    {
        return b.readInt() & 0xFFFF_FFFFL;
    }

    /** Reads a RowBinary String (LEB128 length and UTF-8 bytes). */
    static String string(final Bytes<?> b)
    {
        int length = 0;
        int shift = 0;
        int x;
        do
        {
            x = b.readUnsignedByte();
            length |= (x & 0x7F) << shift;
            shift += 7;
        }
        while ((x & 0x80) != 0);
        final byte[] s = new byte[length];
        b.read(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    static ColumnSpec column(final String name, final String type)
    {
        return new ColumnSpec(name, type, "", "");
    }
}
