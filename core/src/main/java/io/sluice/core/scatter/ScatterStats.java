package io.sluice.core.scatter;

import java.util.concurrent.atomic.AtomicLong;

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
    /** Records that went to the fallback topic (route stage); they are counted in {@link #routed} too. */
    public final PaddedAtomicLong fallbacks = new PaddedAtomicLong();
    /** Records that failed before reaching the producer: missing value without fallback, topic absent or not
     * created, rate limit without fallback, too large (route and produce stages). */
    public final PaddedAtomicLong failed = new PaddedAtomicLong();
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
