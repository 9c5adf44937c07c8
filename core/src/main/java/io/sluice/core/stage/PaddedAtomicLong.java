package io.sluice.core.stage;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link AtomicLong} followed by 128 bytes of padding, for counters that different threads write: the source
 * counts records in while the route stage counts them routed and the insert workers count rows written, each on its
 * own core. Without padding the counters of one stats object sit next to each other on the heap, on one cache line,
 * and every write by one thread invalidates the line for the others (false sharing). 128 bytes rather than 64,
 * because Intel's adjacent-line prefetcher fetches cache lines in pairs; the Disruptor's {@code Sequence} and Agrona's
 * counters pad the same way.
 *
 * <p>It is an {@code AtomicLong} so that every call shape stays ({@code get}, {@code lazySet},
 * {@code incrementAndGet}, {@code addAndGet}, and a parameter typed {@code AtomicLong}). The value is the first field
 * of the object (the superclass's), so the padding follows it only: what precedes it is its own object header (12 to
 * 16 bytes) and, since the counters of one stats object are allocated one after the other, the padding of the
 * previous counter. {@code PaddedCountersTest} checks the layout.
 *
 * <p>Thread-safety: that of {@link AtomicLong}. Counting allocates nothing.
 */
public final class PaddedAtomicLong extends AtomicLong
{
    private static final long serialVersionUID = 1L;

    // 16 longs = 128 bytes after the value; never read, never written
    long p01, p02, p03, p04, p05, p06, p07, p08;
    long p09, p10, p11, p12, p13, p14, p15, p16;

    /** A counter starting at 0. */
    public PaddedAtomicLong()
    {
        super();
    }
}
