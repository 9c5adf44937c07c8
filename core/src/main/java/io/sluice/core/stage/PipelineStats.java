package io.sluice.core.stage;

import org.HdrHistogram.Histogram;

/**
 * Counters and latency recorders of one pipeline. Counters are updated by their owning thread (or atomically once
 * per batch) and read by the status line and the metrics endpoint; recording never allocates ({@link LatencyRecorder}).
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
    /** Rows durably written (insert workers). */
    public final PaddedAtomicLong rowsWritten = new PaddedAtomicLong();
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

    private static Histogram fold(final Histogram total, final LatencyRecorder recorder)
    {
        final Histogram interval = recorder.interval();
        final Histogram t = total == null ? new Histogram(recorder.highest(), 3) : total;
        t.add(interval);
        return t;
    }
}
