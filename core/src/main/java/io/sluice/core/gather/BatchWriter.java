package io.sluice.core.gather;

import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.sink.SinkException;

/**
 * Writes one sealed batch to one shard, once (no retries: the insert worker retries). One instance per shard and
 * insert worker thread; implementations need not be thread-safe.
 */
public interface BatchWriter extends AutoCloseable
{
    /**
     * Inserts the batch's rows (its bytes are in the destination's row format, columns in
     * {@link BatchBuffer#destination()} order) and returns once the destination has durably accepted them.
     *
     * @param batch the sealed batch; its contents must not be modified
     * @throws SinkException classified retriable or not
     */
    void write(BatchBuffer batch) throws SinkException;

    /**
     * Inserts some rows of a batch, once: what the insert worker does to find the records of a batch the destination
     * refused for its data ({@link SinkException#recordCaused()}), by inserting parts of it until each refused part is
     * one record. Writers that cannot insert part of a batch keep the default ({@link #writesPartOfBatch()} false),
     * and a refused batch then fails as a whole.
     *
     * @param batch    the sealed batch; its contents must not be modified
     * @param selected the indexes of the rows to insert, increasing, each in {@code [0, batch.rowCount())}
     * @param count    how many of {@code selected} to insert, {@code >= 1}
     * @throws SinkException classified retriable or not, as {@link #write(BatchBuffer)}
     */
    default void write(final BatchBuffer batch, final int[] selected, final int count) throws SinkException
    {
        throw new UnsupportedOperationException(describe() + " cannot insert part of a batch");
    }

    /** @return whether {@link #write(BatchBuffer, int[], int)} is supported */
    default boolean writesPartOfBatch()
    {
        return false;
    }

    /**
     * Whether this writer writes the source positions of a batch in the transaction of its rows (a sink with
     * {@code delivery = "exactly_once"}): the insert worker then calls {@link #write(BatchBuffer, SourcePositions)}
     * and {@link #write(BatchBuffer, int[], int, SourcePositions)} instead.
     *
     * @return false unless the writer stores positions
     */
    default boolean storesPositions()
    {
        return false;
    }

    /**
     * Inserts the batch's rows and, in the same transaction, moves each partition's stored position for the table
     * from the expected one to {@link SourcePositions#next}; nothing is written when one stored position is not in
     * its expected range.
     *
     * @param batch     the sealed batch; its contents must not be modified
     * @param positions the positions the batch moves (valid during the call only)
     * @throws SinkException classified as {@link #write(BatchBuffer)}'s, or
     *                       {@link SinkException#positionMismatch} when a stored position does not match
     */
    default void write(final BatchBuffer batch, final SourcePositions positions) throws SinkException
    {
        throw new UnsupportedOperationException(describe() + " does not store positions");
    }

    /**
     * Inserts some rows of a batch with their positions, as {@link #write(BatchBuffer, SourcePositions)} and
     * {@link #write(BatchBuffer, int[], int)}.
     *
     * @param batch     the sealed batch
     * @param selected  the indexes of the rows to insert, increasing
     * @param count     how many of {@code selected} to insert, {@code >= 1}
     * @param positions the positions the part moves
     * @throws SinkException as {@link #write(BatchBuffer, SourcePositions)}
     */
    default void write(final BatchBuffer batch, final int[] selected, final int count,
        final SourcePositions positions) throws SinkException
    {
        throw new UnsupportedOperationException(describe() + " does not store positions");
    }

    /** @return a short description of where this writer writes (endpoints), for logs */
    String describe();

    /** Closes connections; never throws. */
    @Override
    void close();
}
