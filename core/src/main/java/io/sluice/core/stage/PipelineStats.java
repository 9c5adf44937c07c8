package io.sluice.core.stage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

import org.HdrHistogram.Histogram;

/**
 * Counters and latency recorders of one pipeline. Counters are updated by their owning thread (or atomically once
 * per batch) and read by the status line and the metrics endpoint; recording never allocates ({@link LatencyRecorder}).
 * Per-record latencies are HdrHistogram recorders (wait-free, allocation-free); per-batch measurements of each table
 * are fixed-bucket histograms per table ({@link #table(Object)}). Consumer lag and the
 * assignment are sampled by the source thread every commit interval.
 */
public final class PipelineStats
{
    /** Records copied into the ingest ring (source thread). */
    public final PaddedAtomicLong recordsIn = new PaddedAtomicLong();
    /** Records routed to a branch (route thread). */
    public final PaddedAtomicLong recordsRouted = new PaddedAtomicLong();
    /** Records dropped because no branch matched, under {@code unmatched = "skip"}. */
    public final PaddedAtomicLong droppedUnrouted = new PaddedAtomicLong();
    /** Records dropped because they could not be written, under {@code on_error = "skip"}. */
    public final PaddedAtomicLong droppedInvalid = new PaddedAtomicLong();
    /**
     * Records dropped under {@code on_error = "skip"} because the destination refused them on their own (found by an
     * insert worker splitting a refused batch); counted with {@link #droppedInvalid} in {@code reason="invalid"}.
     * Written by insert workers (atomically), so apart from the route stage's single-writer counter.
     */
    public final PaddedAtomicLong droppedRefused = new PaddedAtomicLong();
    /** Tombstones (records whose Kafka value is null) dropped under {@code tombstones = "skip"}. */
    public final PaddedAtomicLong droppedTombstone = new PaddedAtomicLong();
    /** Rows durably written (insert workers); deletes not included ({@link #rowsDeleted}). */
    public final PaddedAtomicLong rowsWritten = new PaddedAtomicLong();
    /** Rows durably deleted by tombstones under {@code tombstones = "delete"} (insert workers). */
    public final PaddedAtomicLong rowsDeleted = new PaddedAtomicLong();
    /** Encoded bytes durably written (insert workers). */
    public final PaddedAtomicLong bytesWritten = new PaddedAtomicLong();
    /** Successful inserts. */
    public final PaddedAtomicLong inserts = new PaddedAtomicLong();
    /** Failed insert attempts (each retry counts). */
    public final PaddedAtomicLong insertFailures = new PaddedAtomicLong();
    /** Batches sealed by reason. */
    public final PaddedAtomicLong sealedByRows = new PaddedAtomicLong();
    /** Batches sealed because they reached max_bytes. */
    public final PaddedAtomicLong sealedByBytes = new PaddedAtomicLong();
    /** Batches sealed because linger expired. */
    public final PaddedAtomicLong sealedByLinger = new PaddedAtomicLong();
    /** Batches sealed by a flush (drain, rebalance, shutdown). */
    public final PaddedAtomicLong sealedByFlush = new PaddedAtomicLong();
    /** Batches sealed early because their branch's batch pool was exhausted. */
    public final PaddedAtomicLong sealedByPool = new PaddedAtomicLong();
    /** Times the source paused its partitions because the ring, a window or the overflow pool was full. */
    public final PaddedAtomicLong backpressurePauses = new PaddedAtomicLong();
    /**
     * Times the route stage had to wait for an insert worker: a sealed batch its worker's queue could not take, or
     * no free batch buffer (it then stops taking records from the ring, which back-pressures the source).
     */
    public final PaddedAtomicLong routeWaits = new PaddedAtomicLong();
    /**
     * Records a re-read did not send again because they had been durably written before it (only the failed and the
     * unacknowledged ones are sent again).
     */
    public final PaddedAtomicLong rereadSkipped = new PaddedAtomicLong();
    /**
     * Re-reads of a failed partition (the source sought back to its watermark), by cause, indexed by
     * {@code RereadSchedule.CAUSE_BACKOFF} (0: a backoff passed), {@code CAUSE_ENDED} (1: the setup of the new table a
     * record waited for ended) and {@code CAUSE_SAFETY} (2: the safety re-read of a record whose setup still ran).
     * Source thread; one count per re-read, none per record.
     */
    public final PaddedAtomicLong[] rereads = {new PaddedAtomicLong(), new PaddedAtomicLong(), new PaddedAtomicLong()};
    /**
     * Records an exactly-once table held already (below its stored position): acknowledged without a row (route
     * stage).
     */
    public final PaddedAtomicLong heldByTable = new PaddedAtomicLong();

    /** Completed rebalances that gave this pipeline's consumer its assignment (possibly empty; source thread). */
    public final PaddedAtomicLong assignments = new PaddedAtomicLong();
    /** What the Kafka client learnt about authentication ({@code /ready} is 503 while it reports a failure). */
    public final ClientHealth kafka = new ClientHealth();

    private final ConcurrentHashMap<Object, TableStats> tables = new ConcurrentHashMap<>();
    private volatile AtomicLongArray consumerLag = new AtomicLongArray(0);
    private volatile int assignedPartitions;

    /** Kafka record timestamp to durable acknowledgement, microseconds. */
    public final LatencyRecorder endToEndMicros = new LatencyRecorder(24L * 3600 * 1_000_000);
    /** Source publish to route stage, nanoseconds (ring hop). */
    public final LatencyRecorder ringHopNanos = new LatencyRecorder(3600L * 1_000_000_000);
    /** Sealed batch waiting in its worker's queue (seal to insert start), microseconds. */
    public final LatencyRecorder queueWaitMicros = new LatencyRecorder(3600L * 1_000_000);
    /** Duration of successful insert requests, microseconds. */
    public final LatencyRecorder insertMicros = new LatencyRecorder(3600L * 1_000_000);

    private Histogram endToEndTotal;
    private Histogram ringHopTotal;
    private Histogram queueWaitTotal;
    private Histogram insertTotal;
    private final Histogram[] totalsView = new Histogram[4];

    /**
     * Folds the interval histograms into the run totals and returns them (status thread only).
     *
     * @return {end-to-end µs, ring hop ns, insert µs, queue wait µs} totals since start
     */
    public synchronized Histogram[] totals()
    {
        endToEndTotal = fold(endToEndTotal, endToEndMicros);
        ringHopTotal = fold(ringHopTotal, ringHopNanos);
        insertTotal = fold(insertTotal, insertMicros);
        queueWaitTotal = fold(queueWaitTotal, queueWaitMicros);
        return new Histogram[]{endToEndTotal.copy(), ringHopTotal.copy(), insertTotal.copy(), queueWaitTotal.copy()};
    }

    /**
     * Folds the interval histograms into the run totals and hands the totals themselves to {@code reader}, under this
     * object's lock and without copying them: for a reader that runs often (a metrics scrape), which
     * {@link #totals()}'s copies of four histograms of a few hundred KB each would make allocate at every call.
     *
     * @param reader reads {end-to-end µs, ring hop ns, insert µs, queue wait µs}; must not keep them or block
     */
    public synchronized void readTotals(final Consumer<Histogram[]> reader)
    {
        endToEndTotal = fold(endToEndTotal, endToEndMicros);
        ringHopTotal = fold(ringHopTotal, ringHopNanos);
        insertTotal = fold(insertTotal, insertMicros);
        queueWaitTotal = fold(queueWaitTotal, queueWaitMicros);
        totalsView[0] = endToEndTotal;
        totalsView[1] = ringHopTotal;
        totalsView[2] = insertTotal;
        totalsView[3] = queueWaitTotal;
        reader.accept(totalsView);
    }

    private static Histogram fold(final Histogram total, final LatencyRecorder recorder)
    {
        final Histogram interval = recorder.interval();
        final Histogram t = total == null ? new Histogram(recorder.highest(), 3) : total;
        t.add(interval);
        return t;
    }

    /**
     * The measurements of a destination table, created on the first call for it (off the record path: once per
     * table) and then found without allocating.
     *
     * @param destination the destination: identity is the key, and its {@code toString()} ({@code database.table})
     *                    the label value
     * @return its measurements
     */
    public TableStats table(final Object destination)
    {
        final TableStats t = tables.get(destination);
        return t != null ? t : tables.computeIfAbsent(destination, TableStats::new);
    }

    /** @return the tables measured so far (a copy; any thread) */
    public List<TableStats> tables()
    {
        return new ArrayList<>(tables.values());
    }

    /**
     * Records a partition's consumer lag (source thread, every commit interval).
     *
     * @param trackerId the partition's tracker id
     * @param records   log-end offset minus the consumer's position, or -1 when the client does not know it yet
     */
    public void consumerLag(final int trackerId, final long records)
    {
        AtomicLongArray a = consumerLag;
        if (trackerId >= a.length())
        {
            final AtomicLongArray grown = new AtomicLongArray(Math.max(16, trackerId * 2));
            for (int i = 0; i < grown.length(); i++)
            {
                grown.set(i, i < a.length() ? a.get(i) : -1);
            }
            consumerLag = grown;
            a = grown;
        }
        a.lazySet(trackerId, records);
    }

    /**
     * @param trackerId a partition's tracker id
     * @return its consumer lag as last sampled, or -1 when unknown
     */
    public long consumerLag(final int trackerId)
    {
        final AtomicLongArray a = consumerLag;
        return trackerId < a.length() ? a.get(trackerId) : -1;
    }

    /**
     * Records a completed rebalance (source thread, from the consumer's rebalance listener).
     *
     * @param partitions partitions assigned to this consumer after it
     */
    public void onAssigned(final int partitions)
    {
        assignedPartitions = partitions;
        assignments.incrementAndGet();
    }

    /** @return partitions assigned after the last rebalance */
    public int assignedPartitions()
    {
        return assignedPartitions;
    }

    /**
     * The counters as one line, for a log or a debugger (a snapshot: each counter read once, not all at one instant).
     *
     * @return e.g. {@code PipelineStats[recordsIn=10, recordsRouted=9, rowsWritten=8, rowsDeleted=1, ...]}
     */
    @Override
    public String toString()
    {
        return "PipelineStats[recordsIn=" + recordsIn.get() + ", recordsRouted=" + recordsRouted.get()
            + ", rowsWritten=" + rowsWritten.get() + ", rowsDeleted=" + rowsDeleted.get() + ", bytesWritten="
            + bytesWritten.get() + ", inserts=" + inserts.get() + ", insertFailures=" + insertFailures.get()
            + ", droppedUnrouted=" + droppedUnrouted.get() + ", droppedInvalid=" + droppedInvalid.get()
            + ", droppedRefused=" + droppedRefused.get() + ", droppedTombstone=" + droppedTombstone.get()
            + ", heldByTable=" + heldByTable.get() + ", rereadSkipped=" + rereadSkipped.get()
            + ", rereads=" + rereads[0].get() + "/" + rereads[1].get() + "/" + rereads[2].get()
            + ", backpressurePauses=" + backpressurePauses.get() + ", routeWaits=" + routeWaits.get()
            + ", assignments=" + assignments.get() + ", assignedPartitions=" + assignedPartitions + "]";
    }
}
