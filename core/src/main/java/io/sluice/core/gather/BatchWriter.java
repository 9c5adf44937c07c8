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

    /** @return a short description of where this writer writes (endpoints), for logs */
    String describe();

    /** Closes connections; never throws. */
    @Override
    void close();
}
