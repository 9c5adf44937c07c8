package io.sluice.core.gather.sink;

/**
 * A failed operation against a destination system, classified once by the sink that saw it.
 *
 * <p>{@link #retriable()} decides what the insert worker does: a retriable failure (a timeout, a refused connection,
 * an overloaded server) is retried with backoff behind the shard's circuit breaker; a non-retriable one (a missing
 * table, a type mismatch, a syntax error) fails the batch, which stalls its partitions until
 * {@code checkpoint.stalled_fail_after_ms} ends the run. A third class, {@link #schemaChanged()}, is a refusal
 * because the destination's table is no longer the one the rows were encoded for (a column retyped, dropped or
 * added): the batch was not written; the insert worker asks for the table to be described again and fails the
 * batch's offsets, so the source re-reads them and they are encoded for the new columns. Each sink documents its
 * classification table.
 */
public final class SinkException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final boolean retriable;
    private final boolean schemaChanged;
    private final int code;
    private final boolean recordCaused;
    private boolean positionMismatch;

    /**
     * @param message   what failed, naming the destination (e.g. the table and endpoint)
     * @param retriable whether retrying the same request may succeed
     * @param code      the destination's error code (e.g. ClickHouse's exception code), or 0
     * @param cause     the underlying exception, or {@code null}
     */
    public SinkException(final String message, final boolean retriable, final int code, final Throwable cause)
    {
        this(message, retriable, false, code, false, cause);
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
        this(message, retriable, false, code, recordCaused, cause);
    }

    private SinkException(final String message, final boolean retriable, final boolean schemaChanged, final int code,
        final boolean recordCaused,
        final Throwable cause)
    {
        super(message, cause);
        this.retriable = retriable;
        this.schemaChanged = schemaChanged;
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

    /**
     * A refusal because the table changed since its columns were read: not retriable as it is, the rows must be
     * encoded again for the table's new columns.
     *
     * @param message what failed, naming the table and what the destination said
     * @param code    the destination's error code, or 0
     * @param cause   the underlying exception, or {@code null}
     * @return the exception
     */
    public static SinkException schemaChanged(final String message, final int code, final Throwable cause)
    {
        return new SinkException(message, false, true, code, false, cause);
    }

    /**
     * An exactly-once batch rolled back because the table did not hold the position the batch was built on: another
     * member wrote the partition since (it was reassigned and this work is stale), or an earlier batch of it was not
     * written. Nothing was written; not retriable as it is: the partition is read again from what the table holds.
     *
     * @param message what failed, naming the table, the partition, the expected and the stored position
     * @return the exception
     */
    public static SinkException positionMismatch(final String message)
    {
        final SinkException e = new SinkException(message, false, false, 0, false, null);
        e.positionMismatch = true;
        return e;
    }

    /** @return whether {@link #positionMismatch} made it (the batch was stale, nothing was written) */
    public boolean positionMismatch()
    {
        return positionMismatch;
    }

    /** @return whether the destination refused the rows because its table changed (they were not written) */
    public boolean schemaChanged()
    {
        return schemaChanged;
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
