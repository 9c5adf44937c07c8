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

    /** @return a short description of where this writer writes (endpoints), for logs */
    String describe();

    /** Closes connections; never throws. */
    @Override
    void close();
}
