package io.sluice.core.gather;

import io.sluice.core.gather.batch.BatchBuffer;

/**
 * Where the {@link Sealer} hands a sealed batch: the queue of one insert worker. Offering never waits; a full queue
 * is a return code, so the caller decides how to wait (or what else to do meanwhile).
 *
 * <p>Thread-safety: {@link #offer(BatchBuffer)} from one thread, the route stage's (the queue's only producer).
 */
public interface SealedBatchQueue
{
    /** {@link #offer}: the queue took the batch; from now on it belongs to the queue's consumer. */
    int OFFERED = 0;
    /** {@link #offer}: the queue is full (back-pressure); nothing was taken. Offer it again later. */
    int FULL = -1;
    /**
     * {@link #offer}: the consumer has stopped (abandoned on shutdown) and takes nothing more; nothing was taken. The
     * batch's rows stay unacknowledged, so their records are read again by a later run.
     */
    int CLOSED = -2;

    /**
     * Hands a sealed batch over without waiting.
     *
     * @param batch a sealed batch with at least one row
     * @return {@link #OFFERED}, {@link #FULL} or {@link #CLOSED}
     */
    int offer(BatchBuffer batch);
}
