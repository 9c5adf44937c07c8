package io.sluice.core.scatter.internal;

import java.util.concurrent.TimeUnit;

/**
 * {@code max_new_topics_per_minute}: at most {@code limit} topic creations in any 60-second window. Keeps the times of
 * the last {@code limit} creations in a ring; a creation is allowed when fewer than {@code limit} happened, or the
 * oldest of them is at least 60 s old.
 *
 * <p>Not thread-safe: owned by the route stage. Allocates only at construction ({@code 8 * limit} bytes).
 */
public final class NewTopicRateLimiter
{
    /** The window, in nanoseconds. */
    public static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final long[] stamps;
    private int count;
    private int oldest;

    /** @param limit creations allowed per 60 s, {@code >= 1} */
    public NewTopicRateLimiter(final int limit)
    {
        this.stamps = new long[limit];
    }

    /**
     * Takes one creation if the window allows it.
     *
     * @param nowNanos {@link System#nanoTime()}
     * @return true when the creation may go ahead (and is counted)
     */
    public boolean tryAcquire(final long nowNanos)
    {
        if (count < stamps.length)
        {
            stamps[(oldest + count) % stamps.length] = nowNanos;
            count++;
            return true;
        }
        if (nowNanos - stamps[oldest] >= WINDOW_NANOS)
        {
            stamps[oldest] = nowNanos;
            oldest = (oldest + 1) % stamps.length;
            return true;
        }
        return false;
    }

    /** @return the limit per 60 s */
    public int limit()
    {
        return stamps.length;
    }
}
