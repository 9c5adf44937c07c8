package io.sluice.core.gather.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

/**
 * A pooled batch buffer that outgrows its initial rows grows once, straight to the pool's {@code max_rows}: the
 * doubling series it replaced left about three times the final arrays as garbage in every buffer of a large pool.
 */
class BatchBufferGrowthTest
{
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();
    private static final int MAX_ROWS = 20_000;
    /** long offsets, timestamps and row ends, int tracker ids and generations */
    private static final int BYTES_PER_ROW = 32;

    private static long fill(final BatchBuffer b, final int rows)
    {
        final long thread = Thread.currentThread().getId();
        final long before = THREADS.getThreadAllocatedBytes(thread);
        for (int i = 0; i < rows; i++)
        {
            b.addRow(0, 1, i, 1_700_000_000_000L + i);
        }
        return THREADS.getThreadAllocatedBytes(thread) - before;
    }

    @Test
    void shouldGrowStraightToMaxRows()
    {
        final BatchPool pool = new BatchPool(2, 4096, 1024, MAX_ROWS);
        final BatchBuffer b = pool.tryAcquire();
        final long grown = fill(b, MAX_ROWS);
        assertEquals(MAX_ROWS, b.rowCount());
        assertTrue(grown < 1.2 * MAX_ROWS * BYTES_PER_ROW, "one growth to max_rows: " + grown + " bytes");
        for (final int i : new int[]{0, 1023, 1024, MAX_ROWS - 1})
        {
            assertEquals(i, b.offset(i), "row " + i + " kept across the growth");
            assertEquals(1_700_000_000_000L + i, b.timestampMs(i));
        }

        final BatchPool doubling = new BatchPool(2, 4096, 1024);
        final long doubled = fill(doubling.tryAcquire(), MAX_ROWS);
        assertTrue(doubled > 2 * grown, "doubling from 1024 rows: " + doubled + " bytes against " + grown);
    }

    @Test
    void shouldStillGrowPastMaxRowsIfABatchEverHoldsMore()
    {
        final BatchBuffer b = new BatchPool(1, 4096, 16, 100).tryAcquire();
        fill(b, 1000);
        assertEquals(1000, b.rowCount());
        assertEquals(999, b.offset(999));
    }
}
