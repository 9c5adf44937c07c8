/**
 * Batches: a {@link io.sluice.core.gather.batch.BatchBuffer} holds the encoded rows of one (destination, shard) and
 * the (tracker, generation, offset) of each row, recycled through a {@link io.sluice.core.gather.batch.BatchPool};
 * a {@link io.sluice.core.gather.batch.Destination} is a resolved table with its bound encoder.
 *
 * <p>Threads: a buffer is filled by the route stage, handed to one insert worker when sealed, and released back to
 * its pool by that worker.
 */
package io.sluice.core.gather.batch;
