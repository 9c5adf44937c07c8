package io.sluice.core.stage;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-bucket histogram for the per-batch measurements of each table (insert duration, rows and bytes per batch):
 * the layout of a Prometheus classic histogram (cumulative buckets by upper bound, a count and a sum), counted into
 * one {@link AtomicLongArray}. It exists because the Prometheus client's {@code Histogram.observe} allocates a lambda
 * per observation, and an HdrHistogram per table costs tens of KiB where a destination template makes thousands of
 * tables; this costs {@code 8 * (buckets + 2)} bytes and records without allocating.
 *
 * <p>Values are whole numbers in the histogram's unit (nanoseconds, rows, bytes); the bounds are given in that unit.
 * Thread-safety: {@link #record(long)} from any number of threads (atomic increments); readers see each bucket's
 * recent count, so a read during recording may be off by the records in progress.
 */
public final class BucketHistogram
{
    private final long[] upperBounds;
    // [0, n) buckets (not cumulative), n: +Inf bucket, n + 1: sum
    private final AtomicLongArray cells;

    /**
     * @param upperBounds ascending upper bounds (inclusive), in the unit of the recorded values
     */
    public BucketHistogram(final long... upperBounds)
    {
        for (int i = 1; i < upperBounds.length; i++)
        {
            if (upperBounds[i] <= upperBounds[i - 1])
            {
                throw new IllegalArgumentException("upper bounds must ascend: " + upperBounds[i - 1] + ", "
                    + upperBounds[i]);
            }
        }
        this.upperBounds = upperBounds.clone();
        this.cells = new AtomicLongArray(upperBounds.length + 2);
    }

    /**
     * Counts one value.
     *
     * @param value a value in the histogram's unit; negative values count as 0
     */
    public void record(final long value)
    {
        final long v = Math.max(0, value);
        final long[] bounds = upperBounds;
        int i = 0;
        while (i < bounds.length && v > bounds[i])
        {
            i++;
        }
        cells.incrementAndGet(i);
        cells.addAndGet(bounds.length + 1, v);
    }

    /** @return the number of finite buckets */
    public int buckets()
    {
        return upperBounds.length;
    }

    /**
     * @param i a finite bucket's index
     * @return its upper bound, in the histogram's unit
     */
    public long upperBound(final int i)
    {
        return upperBounds[i];
    }

    /**
     * @param i a bucket's index; {@link #buckets()} is the bucket above the last bound
     * @return the values counted in that bucket alone (not cumulative)
     */
    public long count(final int i)
    {
        return cells.get(i);
    }

    /** @return a histogram with the same bounds and nothing counted (for sums over several) */
    public BucketHistogram emptyCopy()
    {
        return new BucketHistogram(upperBounds);
    }

    /**
     * Adds another histogram's counts and sum to this one (a scrape's sum over tables; not for the hot path).
     *
     * @param other a histogram with the same bounds
     * @throws IllegalArgumentException when the bounds differ
     */
    public void add(final BucketHistogram other)
    {
        if (!java.util.Arrays.equals(upperBounds, other.upperBounds))
        {
            throw new IllegalArgumentException("cannot add histograms with other bounds");
        }
        for (int i = 0; i < upperBounds.length + 2; i++)
        {
            cells.addAndGet(i, other.cells.get(i));
        }
    }

    /** @return the sum of the values counted, in the histogram's unit */
    public long sum()
    {
        return cells.get(upperBounds.length + 1);
    }
}
