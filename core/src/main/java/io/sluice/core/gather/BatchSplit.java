package io.sluice.core.gather;

import java.util.function.IntConsumer;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;

/**
 * Finds the records of a batch that its destination refused for their data: a destination such as ClickHouse
 * refuses a whole insert for one value it cannot take, so the rows are inserted again in parts, and a refused part is
 * cut in two until a refused part is a single record, which is then that record's fault; every part that goes in is
 * written. Database-neutral: it only chooses the rows of the next insert ({@link BatchWriter#write(BatchBuffer, int[],
 * int)}); the insert worker inserts them and decides the fate of a refused record.
 *
 * <p>Order: depth first, the lower half first, so the parts are inserted in the batch's row order and each
 * partition's rows in offset order. Rows of a partition that has failed at an earlier offset in the row's generation
 * (a refused record of it that becomes a dead letter or stops the pipeline, found earlier in this split or
 * elsewhere) are left out of every later part: the partition is read again from its watermark, so writing them now
 * would only write them twice. They are neither acknowledged nor failed.
 *
 * <p>Cost: a batch of {@code n} rows with {@code k} refused records takes about {@code 2 k log2(n / k)} more inserts
 * (one refused record in 50,000 rows: about 32). A batch whose rows are all refused takes {@code 2 n - 1}.
 *
 * <p>One per insert worker, its thread only. Allocates only when a batch larger than any before is split.
 */
final class BatchSplit
{
    /** Enough for any batch: each cut adds one range to the stack, and a batch has fewer than 2^31 rows. */
    private static final int MAX_RANGES = 70;

    private final int[] from = new int[MAX_RANGES];
    private final int[] to = new int[MAX_RANGES];
    private int depth;
    private boolean active;
    private int[] selected = new int[16];
    private int count;
    private int refused;
    private int parts;
    private int rowsWritten;

    /** @return whether a batch is being split */
    boolean active()
    {
        return active;
    }

    /**
     * Starts splitting a batch the destination refused as a whole.
     *
     * @param batch the batch
     */
    void start(final BatchBuffer batch)
    {
        final int n = batch.rowCount();
        if (selected.length < n)
        {
            selected = new int[n];
        }
        depth = 0;
        refused = 0;
        parts = 0;
        rowsWritten = 0;
        active = true;
        push(0, n);
    }

    /** Ends the split (done, or given up). */
    void reset()
    {
        active = false;
        depth = 0;
        count = 0;
    }

    /**
     * Chooses the rows of the next insert: the rows of the next part that are not held back for a re-read. Parts
     * left with none are passed over.
     *
     * @param batch    the batch
     * @param trackers the pipeline's ack trackers
     * @return how many rows to insert ({@link #selected()}), or 0 when the split is done
     */
    int select(final BatchBuffer batch, final PartitionTrackers trackers)
    {
        while (depth > 0)
        {
            final int f = from[depth - 1];
            final int t = to[depth - 1];
            int n = 0;
            for (int i = f; i < t; i++)
            {
                if (!heldForReread(batch, i, trackers))
                {
                    selected[n++] = i;
                }
            }
            count = n;
            if (n > 0)
            {
                return n;
            }
            depth--;
        }
        count = 0;
        return 0;
    }

    /**
     * @param batch    the batch
     * @param trackers the pipeline's ack trackers
     * @return whether the part just selected is the whole batch (nothing held back)
     */
    boolean wholeBatch(final BatchBuffer batch, final PartitionTrackers trackers)
    {
        return select(batch, trackers) == batch.rowCount();
    }

    /** @return the indexes of the rows selected, increasing; the first {@link #count()} are valid */
    int[] selected()
    {
        return selected;
    }

    /** @return how many rows are selected */
    int count()
    {
        return count;
    }

    /** The selected part was written: the next part follows. */
    void written()
    {
        rowsWritten += count;
        parts++;
        depth--;
    }

    /**
     * The selected part was refused for its data.
     *
     * @return true when it is one record (which is then refused: its fate is the caller's), false when it was cut in
     *         two and its halves follow
     */
    boolean refusedPart()
    {
        parts++;
        final int f = from[depth - 1];
        final int t = to[depth - 1];
        depth--;
        if (count == 1)
        {
            refused++;
            return true;
        }
        final int mid = (f + t) >>> 1;
        push(mid, t);
        push(f, mid);
        return false;
    }

    /**
     * Calls {@code row} with every row of the parts not tried yet (to fail them when the split is given up).
     *
     * @param row receives row indexes
     */
    void forEachPending(final IntConsumer row)
    {
        for (int d = 0; d < depth; d++)
        {
            for (int i = from[d]; i < to[d]; i++)
            {
                row.accept(i);
            }
        }
    }

    /** @return records found refused so far in this split */
    int refused()
    {
        return refused;
    }

    /** @return inserts made in this split (written or refused parts) */
    int parts()
    {
        return parts;
    }

    /** @return rows written in this split */
    int rowsWritten()
    {
        return rowsWritten;
    }

    private void push(final int f, final int t)
    {
        if (t > f)
        {
            from[depth] = f;
            to[depth] = t;
            depth++;
        }
    }

    /**
     * Whether a row's partition has failed at an earlier offset in the row's generation: it is read again from its
     * watermark (as {@code RecordFates.heldForReread} decides for a record before it is routed).
     */
    static boolean heldForReread(final BatchBuffer batch, final int row, final PartitionTrackers trackers)
    {
        final AckTracker tracker = trackers.get(batch.trackerId(row));
        if (!tracker.failed())
        {
            return false;
        }
        final long failed = tracker.failedOffset();
        return failed >= 0 && batch.offset(row) > failed && batch.generation(row) == tracker.generation();
    }
}
