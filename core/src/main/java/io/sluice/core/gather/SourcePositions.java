package io.sluice.core.gather;

import java.util.Arrays;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;

/**
 * What an exactly-once write moves, per source partition its rows come from: the consumer group, the topic and
 * partition, the range the table's stored position must lie in before the write ({@link #expectedLow} to
 * {@link #expectedHigh}, both inclusive; the same offset for a whole batch) and the position it has after the write
 * ({@link #next}: the last offset written + 1). The sink writes these in the transaction of the rows, each update
 * conditional on the stored position, and rolls the whole write back when one does not match
 * ({@link io.sluice.core.gather.sink.SinkException#positionMismatch}). Database-neutral: the kind decides how it
 * stores them.
 *
 * <p>A part of a refused batch ({@link BatchWriter#write(BatchBuffer, int[], int, SourcePositions)}) is written in
 * row order: the rows before it were written or refused, so the stored position may lie anywhere from the batch's
 * expected position to the part's first offset of the partition.
 *
 * <p>One per insert worker, refilled for every write (no allocation once its arrays fit the partitions of a batch);
 * the worker's thread only.
 */
public final class SourcePositions
{
    private final String group;
    private String[] topics = new String[4];
    private int[] partitions = new int[4];
    private long[] low = new long[4];
    private long[] high = new long[4];
    private long[] next = new long[4];
    private int count;

    /** @param group the consumer group whose positions these are */
    public SourcePositions(final String group)
    {
        this.group = group;
    }

    /** @return the consumer group */
    public String group()
    {
        return group;
    }

    /** @return how many partitions the write carries */
    public int count()
    {
        return count;
    }

    /**
     * @param k 0 to {@link #count()} - 1
     * @return its topic
     */
    public String topic(final int k)
    {
        return topics[k];
    }

    /**
     * @param k 0 to {@link #count()} - 1
     * @return its partition
     */
    public int partition(final int k)
    {
        return partitions[k];
    }

    /**
     * @param k 0 to {@link #count()} - 1
     * @return the lowest position the table may hold before the write (0: no position stored)
     */
    public long expectedLow(final int k)
    {
        return low[k];
    }

    /**
     * @param k 0 to {@link #count()} - 1
     * @return the highest position the table may hold before the write
     */
    public long expectedHigh(final int k)
    {
        return high[k];
    }

    /**
     * @param k 0 to {@link #count()} - 1
     * @return the position after the write: its last offset of the partition + 1
     */
    public long next(final int k)
    {
        return next[k];
    }

    /**
     * Fills the positions of a whole batch.
     *
     * @param batch    the batch, its expected positions set by the route stage
     * @param trackers the pipeline's trackers (topic and partition of each tracker id)
     */
    public void fill(final BatchBuffer batch, final PartitionTrackers trackers)
    {
        count = 0;
        for (int k = 0; k < batch.partitionCount(); k++)
        {
            final long expected = batch.partitionExpected(k);
            if (expected >= 0)
            {
                add(trackers.get(batch.partitionTrackerId(k)), expected, expected, batch.partitionLastOffset(k) + 1);
            }
        }
    }

    /**
     * Fills the positions of a part of a batch: per partition, from the batch's expected position to the part's first
     * offset of it, and after the part's last one.
     *
     * @param batch    the batch
     * @param selected the rows of the part, increasing
     * @param n        how many of {@code selected}
     * @param trackers the pipeline's trackers
     */
    public void fill(final BatchBuffer batch, final int[] selected, final int n, final PartitionTrackers trackers)
    {
        count = 0;
        for (int k = 0; k < batch.partitionCount(); k++)
        {
            final int id = batch.partitionTrackerId(k);
            final long expected = batch.partitionExpected(k);
            long first = -1;
            long last = -1;
            for (int j = 0; j < n && expected >= 0; j++)
            {
                if (batch.trackerId(selected[j]) == id)
                {
                    last = batch.offset(selected[j]);
                    first = first < 0 ? last : first;
                }
            }
            if (first >= 0)
            {
                add(trackers.get(id), expected, first, last + 1);
            }
        }
    }

    private void add(final AckTracker t, final long lo, final long hi, final long nextOffset)
    {
        final int k = count;
        if (k == topics.length)
        {
            final int n = k * 2;
            topics = Arrays.copyOf(topics, n);
            partitions = Arrays.copyOf(partitions, n);
            low = Arrays.copyOf(low, n);
            high = Arrays.copyOf(high, n);
            next = Arrays.copyOf(next, n);
        }
        topics[k] = t.topic();
        partitions[k] = t.partition();
        low[k] = lo;
        high[k] = hi;
        next[k] = nextOffset;
        count = k + 1;
    }
}
