package io.sluice.core.gather;

import java.util.Arrays;
import java.util.function.IntConsumer;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;

/**
 * Finds the records of a batch that its destination refused for their data: a destination such as ClickHouse
 * refuses a whole insert for one value it cannot take, so the rows are inserted again in parts, and a refused part is
 * cut in two until a refused part is a single record, which is then that record's fault; every part that goes in is
 * written. One pass finds every refused record of the batch: each half is tried once, a half that goes in is written
 * once and never tried again. Database-neutral: it only chooses the rows of the next insert
 * ({@link BatchWriter#write(BatchBuffer, int[], int)}); the insert worker inserts them and decides the fate of a refused
 * record.
 *
 * <p>Order: depth first, the lower half first, so the parts are inserted in the batch's row order and each
 * partition's rows in offset order. When the lower half of a refused part goes in whole, the upper half holds a
 * refused record: if it has more than one row it is cut at once, without an insert that could only be refused.
 *
 * <p>Rows of a partition that has failed at an earlier offset in the row's generation are left out of every later
 * part (the partition is read again from its watermark, so writing them now would only write them twice; they are
 * neither acknowledged nor failed), except when that failure is this split's own ({@link #failedHere}: a refused
 * record of the batch that becomes a dead letter). Those rows are written by the split, and the insert worker marks
 * each for the re-read ({@code GatherDeadLetters.markWritten}), which acknowledges it instead of writing it again: so
 * a partition with many refused records is read again once per batch, not once per refused record.
 *
 * <p>Cost: a batch of {@code n} rows with {@code k} refused records takes about {@code 2 k log2(n / k)} more inserts
 * (one refused record in 50,000 rows: about 17). A batch whose rows are all refused takes {@code 2 n - 1}.
 *
 * <p>One per insert worker, its thread only. Allocates only when a batch larger than any before is split.
 */
final class BatchSplit
{
    /** Enough for any batch: each cut adds one range to the stack, and a batch has fewer than 2^31 rows. */
    private static final int MAX_RANGES = 70;

    private final int[] from = new int[MAX_RANGES];
    private final int[] to = new int[MAX_RANGES];
    /**
     * Per range: it holds a refused record if every part tried after it was pushed went in whole (it is the upper
     * half of a refused part whose lower half is being tried).
     */
    private final boolean[] known = new boolean[MAX_RANGES];
    private int depth;
    /** Whether the part selected holds every row of its range (none held back for a re-read). */
    private boolean whole;
    /** The partitions this split failed (a refused record that becomes a dead letter) and the lowest offset of each. */
    private int[] failedTracker = new int[4];
    private long[] failedOffset = new long[4];
    private int failures;
    private int cuts;
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
        failures = 0;
        cuts = 0;
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
        failures = 0;
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
                if (!held(batch, i, trackers))
                {
                    selected[n++] = i;
                }
            }
            count = n;
            whole = n == t - f;
            if (n > 1 && whole && known[depth - 1])
            {
                // the lower half of its refused parent went in whole: this half holds a refused record
                depth--;
                cut(f, t);
                cuts++;
                continue;
            }
            if (n > 0)
            {
                return n;
            }
            depth--;
            if (depth > 0)
            {
                // nothing of this part went in: its sibling is not known to hold a refused record
                known[depth - 1] = false;
            }
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
        if (!whole && depth > 0)
        {
            known[depth - 1] = false;
        }
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
        // a refused record lies here, so the upper halves still to try are not known to hold one
        for (int d = 0; d < depth; d++)
        {
            known[d] = false;
        }
        if (count == 1)
        {
            refused++;
            return true;
        }
        cut(f, t);
        return false;
    }

    /**
     * Notes that the split failed a refused record's offset in its partition (it becomes a dead letter): the rows of
     * that partition after it are still written by the split, and marked for the re-read.
     *
     * @param trackerId the record's partition
     * @param offset    its offset
     */
    void failedHere(final int trackerId, final long offset)
    {
        for (int k = 0; k < failures; k++)
        {
            if (failedTracker[k] == trackerId)
            {
                failedOffset[k] = Math.min(failedOffset[k], offset);
                return;
            }
        }
        if (failures == failedTracker.length)
        {
            failedTracker = Arrays.copyOf(failedTracker, failures * 2);
            failedOffset = Arrays.copyOf(failedOffset, failures * 2);
        }
        failedTracker[failures] = trackerId;
        failedOffset[failures] = offset;
        failures++;
    }

    /** @return parts cut without an insert (their lower sibling went in whole) in this split */
    int cuts()
    {
        return cuts;
    }

    private void cut(final int f, final int t)
    {
        final int mid = (f + t) >>> 1;
        push(mid, t);
        known[depth - 1] = true;
        push(f, mid);
    }

    /**
     * Whether the row is left for its partition's re-read: its partition failed at an earlier offset in its
     * generation, and not by this split (whose own failures leave the rows to be written and marked).
     */
    private boolean held(final BatchBuffer batch, final int row, final PartitionTrackers trackers)
    {
        if (!heldForReread(batch, row, trackers))
        {
            return false;
        }
        final int id = batch.trackerId(row);
        final long failed = trackers.get(id).failedOffset();
        for (int k = 0; k < failures; k++)
        {
            if (failedTracker[k] == id)
            {
                return failedOffset[k] != failed;
            }
        }
        return true;
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
            known[depth] = false;
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
