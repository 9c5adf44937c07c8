package io.sluice.core.scatter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one scatter pipeline (records in and back-pressure pauses are counted by the source in the pipeline's
 * {@code PipelineStats}). Each counter has one writing thread (named below) except where it says otherwise; readers
 * (the status line, tests) see recent values. Counting never allocates.
 */
public final class ScatterStats
{
    /** Records given a topic, by their rule or its fallback (route stage). */
    public final AtomicLong routed = new AtomicLong();
    /** Records that went to the fallback topic (route stage); they are counted in {@link #routed} too. */
    public final AtomicLong fallbacks = new AtomicLong();
    /** Records that failed before reaching the producer: missing value without fallback, topic absent or not
     * created, rate limit without fallback, too large (route and produce stages). */
    public final AtomicLong failed = new AtomicLong();
    /** Records not produced because their partition was failed or re-read meanwhile (route stage). */
    public final AtomicLong skipped = new AtomicLong();
    /** Records sent to the producer (produce stage). */
    public final AtomicLong sent = new AtomicLong();
    /** Records the broker acknowledged (producer I/O thread). */
    public final AtomicLong produced = new AtomicLong();
    /** Sends that failed (producer I/O thread, or the produce stage; atomic). */
    public final AtomicLong produceErrors = new AtomicLong();
    /** Topics created by this pipeline (admin thread). */
    public final AtomicLong topicsCreated = new AtomicLong();
    /** Topics that needed creation beyond max_new_topics_per_minute (route stage). */
    public final AtomicLong rateLimited = new AtomicLong();

    /**
     * Adds one to a counter that only the calling thread writes (a plain read and an ordered write, no CAS).
     *
     * @param counter one of this object's counters, written by the calling thread only
     */
    public static void increment(final AtomicLong counter)
    {
        counter.lazySet(counter.get() + 1);
    }
}
