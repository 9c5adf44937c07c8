package io.sluice.core.scatter;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.HdrHistogram.Histogram;

import io.sluice.core.stage.LatencyRecorder;
import io.sluice.core.stage.PaddedAtomicLong;

/**
 * Counters of one scatter pipeline (records in and back-pressure pauses are counted by the source in the pipeline's
 * {@code PipelineStats}). Each counter has one writing thread (named below) except where it says otherwise; readers
 * (the status line, tests) see recent values. Counting never allocates.
 */
public final class ScatterStats
{
    /** Records given a topic, by their rule or its fallback (route stage). */
    public final PaddedAtomicLong routed = new PaddedAtomicLong();
    /** Records that went to the fallback topic: their value was missing, the rate limit held their topic back (route
     * stage), or the broker refused their topic or the record for good (produce stage, producer I/O thread); atomic.
     * Those of the route stage are counted in {@link #routed} too. */
    public final PaddedAtomicLong fallbacks = new PaddedAtomicLong();
    /** Records that failed before reaching the producer: missing value without fallback, topic absent or not
     * created, rate limit without fallback, too large (route and produce stages). */
    public final PaddedAtomicLong failed = new PaddedAtomicLong();
    /** Records the broker refused for good (ProduceErrors: too large, topic refused or absent), whether they then
     * went to the fallback or stopped the pipeline (produce stage, producer I/O thread; atomic). */
    public final PaddedAtomicLong refused = new PaddedAtomicLong();
    /** Records not produced because their partition was failed or re-read meanwhile (route stage). */
    public final PaddedAtomicLong skipped = new PaddedAtomicLong();
    /** Records sent to the producer (produce stage). */
    public final PaddedAtomicLong sent = new PaddedAtomicLong();
    /** Records the broker acknowledged (producer I/O thread). */
    public final PaddedAtomicLong produced = new PaddedAtomicLong();
    /** Sends that failed (producer I/O thread, or the produce stage; atomic). */
    public final PaddedAtomicLong produceErrors = new PaddedAtomicLong();
    /** Topics created by this pipeline (admin thread). */
    public final PaddedAtomicLong topicsCreated = new PaddedAtomicLong();
    /** Topics that needed creation beyond max_new_topics_per_minute (route stage). */
    public final PaddedAtomicLong rateLimited = new PaddedAtomicLong();

    /** Handed to the producer to acknowledged by the broker, nanoseconds (producer I/O thread). */
    public final LatencyRecorder produceLatencyNanos = new LatencyRecorder(600L * 1_000_000_000);
    /** Source publish to route stage, nanoseconds (ring hop; one record in eight). */
    public final LatencyRecorder ringHopNanos = new LatencyRecorder(3600L * 1_000_000_000);

    private Histogram produceLatencyTotal;
    private Histogram ringHopTotal;
    private final Histogram[] totalsView = new Histogram[2];

    /**
     * Folds the interval histograms into the run totals and returns copies (any thread; synchronised).
     *
     * @return {produce latency ns, ring hop ns} since start
     */
    public synchronized Histogram[] totals()
    {
        produceLatencyTotal = fold(produceLatencyTotal, produceLatencyNanos);
        ringHopTotal = fold(ringHopTotal, ringHopNanos);
        return new Histogram[]{produceLatencyTotal.copy(), ringHopTotal.copy()};
    }

    /**
     * Folds the interval histograms into the run totals and hands the totals themselves to {@code reader}, under this
     * object's lock and without copying them (for a metrics scrape).
     *
     * @param reader reads {produce latency ns, ring hop ns}; must not keep them or block
     */
    public synchronized void readTotals(final Consumer<Histogram[]> reader)
    {
        produceLatencyTotal = fold(produceLatencyTotal, produceLatencyNanos);
        ringHopTotal = fold(ringHopTotal, ringHopNanos);
        totalsView[0] = produceLatencyTotal;
        totalsView[1] = ringHopTotal;
        reader.accept(totalsView);
    }

    private static Histogram fold(final Histogram total, final LatencyRecorder recorder)
    {
        final Histogram t = total == null ? new Histogram(recorder.highest(), 3) : total;
        t.add(recorder.interval());
        return t;
    }

    /**
     * Adds one to a counter that only the calling thread writes (a plain read and an ordered write, no CAS).
     *
     * @param counter one of this object's counters, written by the calling thread only
     */
    public static void increment(final AtomicLong counter)
    {
        counter.lazySet(counter.get() + 1);
    }

    /**
     * The counters as one line, for a log or a debugger (a snapshot: each counter read once, not all at one instant).
     *
     * @return e.g. {@code ScatterStats[routed=10, sent=10, produced=10, ...]}
     */
    @Override
    public String toString()
    {
        return "ScatterStats[routed=" + routed.get() + ", sent=" + sent.get() + ", produced=" + produced.get()
            + ", produceErrors=" + produceErrors.get() + ", fallbacks=" + fallbacks.get() + ", failed=" + failed.get()
            + ", refused=" + refused.get() + ", skipped=" + skipped.get() + ", topicsCreated=" + topicsCreated.get()
            + ", rateLimited=" + rateLimited.get() + "]";
    }
}
