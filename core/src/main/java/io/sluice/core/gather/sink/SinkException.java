package io.sluice.core.gather.sink;

/**
 * A failed operation against a destination system, classified once by the sink that saw it.
 *
 * <p>{@link #retriable()} decides what the insert worker does: a retriable failure (a timeout, a refused connection,
 * an overloaded server) is retried with backoff behind the shard's circuit breaker; a non-retriable one (a missing
 * table, a type mismatch, a syntax error) fails the batch, which stalls its partitions until
 * {@code checkpoint.stalled_fail_after_ms} ends the run. Each sink documents its classification table.
 */
public final class SinkException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final boolean retriable;
    private final int code;
    private final boolean recordCaused;

    /**
     * @param message   what failed, naming the destination (e.g. the table and endpoint)
     * @param retriable whether retrying the same request may succeed
     * @param code      the destination's error code (e.g. ClickHouse's exception code), or 0
     * @param cause     the underlying exception, or {@code null}
     */
    public SinkException(final String message, final boolean retriable, final int code, final Throwable cause)
    {
        this(message, retriable, code, false, cause);
    }

    /**
     * @param message      what failed, naming the destination (e.g. the table and endpoint)
     * @param retriable    whether retrying the same request may succeed
     * @param code         the destination's error code (e.g. ClickHouse's exception code), or 0
     * @param recordCaused whether the destination refused the data itself (a value it cannot parse or store, a
     *                     constraint), rather than the destination (a missing table, a denied right): what
     *                     {@code on_error = "dead_letter"} sends to the dead-letter topic. Never with retriable.
     * @param cause        the underlying exception, or {@code null}
     */
    public SinkException(final String message, final boolean retriable, final int code, final boolean recordCaused,
        final Throwable cause)
    {
        super(message, cause);
        this.retriable = retriable;
        this.code = code;
        this.recordCaused = recordCaused && !retriable;
    }

    /**
     * @return whether the destination refused the batch for the records' data (permanent): each sink lists the error
     *         codes it counts as such
     */
    public boolean recordCaused()
    {
        return recordCaused;
    }

    /** @return whether retrying the same request may succeed */
    public boolean retriable()
    {
        return retriable;
    }

    /** @return the destination's error code, or 0 when it gave none */
    public int code()
    {
        return code;
    }
}
