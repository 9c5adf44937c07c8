package io.sluice.core.gather;

/**
 * A per-shard circuit breaker: after {@code failureThreshold} consecutive failed inserts it opens for
 * {@code openNanos}, during which the worker does not call the shard at all; then it lets one trial insert through
 * (half-open): success closes it, failure opens it again.
 *
 * <p>Thread-safety: driven by one insert worker; {@link #state()} may be read by any thread (metrics).
 */
public final class CircuitBreaker
{
    /** Inserts flow. */
    public static final int CLOSED = 0;
    /** Inserts are held back until the open period ends. */
    public static final int OPEN = 1;
    /** One trial insert is allowed. */
    public static final int HALF_OPEN = 2;

    private final int failureThreshold;
    private final long openNanos;
    private volatile int state = CLOSED;
    private int consecutiveFailures;
    private long openUntilNanos;
    private long opened;

    /**
     * @param failureThreshold consecutive failures that open the breaker, at least 1
     * @param openNanos        how long it stays open, nanoseconds
     */
    public CircuitBreaker(final int failureThreshold, final long openNanos)
    {
        this.failureThreshold = Math.max(1, failureThreshold);
        this.openNanos = openNanos;
    }

    /**
     * @param nowNanos {@link System#nanoTime()}
     * @return 0 when a call may be made now, else the nanoseconds to wait before asking again
     */
    public long allowAfter(final long nowNanos)
    {
        if (state == OPEN)
        {
            if (nowNanos - openUntilNanos < 0)
            {
                return openUntilNanos - nowNanos;
            }
            state = HALF_OPEN;
        }
        return 0;
    }

    /** Records a successful call. */
    public void onSuccess()
    {
        consecutiveFailures = 0;
        state = CLOSED;
    }

    /**
     * Records a failed call.
     *
     * @param nowNanos {@link System#nanoTime()}
     * @return true when this failure opened the breaker
     */
    public boolean onFailure(final long nowNanos)
    {
        consecutiveFailures++;
        if (state == HALF_OPEN || consecutiveFailures >= failureThreshold)
        {
            final boolean opening = state != OPEN;
            state = OPEN;
            openUntilNanos = nowNanos + openNanos;
            if (opening)
            {
                opened++;
            }
            return opening;
        }
        return false;
    }

    /** @return {@link #CLOSED}, {@link #OPEN} or {@link #HALF_OPEN} */
    public int state()
    {
        return state;
    }

    /** @return how many times the breaker has opened */
    public long openedCount()
    {
        return opened;
    }

    /**
     * @param state one of this class's state constants
     * @return the state's name for logs and metrics
     */
    public static String name(final int state)
    {
        return switch (state)
        {
            case CLOSED -> "closed";
            case OPEN -> "open";
            default -> "half-open";
        };
    }
}
