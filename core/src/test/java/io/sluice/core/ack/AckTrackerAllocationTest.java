package io.sluice.core.ack;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Register, ack, watermark, the window-full path, gaps, skips and rejected acks allocate nothing once warmed up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AckTrackerAllocationTest
{
    private static final int WARM_UP = 3_000_000;
    private static final int MEASURED = 1_000_000;

    @Test
    void shouldNotAllocateOnRegisterAckAndWatermark()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counters unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        final AckTracker tracker = new AckTracker("alloc", 0, 0, 64);
        final long[] batch = new long[60];
        long offset = exercise(tracker, batch, 0, WARM_UP);

        final long before = threads.getCurrentThreadAllocatedBytes();
        offset = exercise(tracker, batch, offset, MEASURED);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals(0, allocated, "bytes allocated over " + MEASURED + " offsets");
        assertEquals(offset, tracker.watermark());
    }

    @Test
    void shouldNotAllocateWhenEachOffsetIsRegisteredAckedAndCommittedAlone()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counters unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        final AckTracker tracker = new AckTracker("alloc", 1, 0, 65536);
        final int generation = tracker.generation();
        long sink = single(tracker, 0, WARM_UP, generation);

        final long before = threads.getCurrentThreadAllocatedBytes();
        sink = single(tracker, sink, MEASURED, generation);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals(0, allocated, "bytes allocated over " + MEASURED + " offsets");
        assertEquals(WARM_UP + MEASURED, sink);
    }

    private static long single(final AckTracker tracker, final long from, final int count, final int generation)
    {
        long offset = from;
        for (int i = 0; i < count; i++)
        {
            tracker.tryRegister(offset);
            tracker.ack(offset, generation);
            offset = tracker.watermark();
        }
        return offset;
    }

    /**
     * Batches of up to 60 records with a gap after every 7th, half acked with one ackAll call and half one by one in
     * reverse order, a watermark per batch, a window-full retry, duplicate and stale acks, and a skip to a position
     * past a trailing marker.
     */
    private static long exercise(final AckTracker tracker, final long[] batch, final long from, final int records)
    {
        final int generation = tracker.generation();
        int windowFull = 0;
        long next = from;
        int done = 0;
        while (done < records)
        {
            int size = 0;
            while (size < batch.length)
            {
                if (AckTracker.WINDOW_FULL == tracker.tryRegister(next))
                {
                    windowFull++;
                    break;
                }
                batch[size++] = next;
                next += (next % 7 == 0) ? 2 : 1;
            }
            if (0 == size)
            {
                throw new AssertionError("window full with nothing pending: " + tracker);
            }
            final int half = size / 2;
            tracker.ackAll(batch, 0, half, generation);
            for (int i = size - 1; i >= half; i--)
            {
                tracker.ack(batch[i], generation);
            }
            if (size > 0)
            {
                tracker.ack(batch[0], generation);
                tracker.ack(batch[0], generation - 1);
            }
            tracker.watermark();
            if (tracker.trySkipTo(next + 1) == AckTracker.REGISTERED)
            {
                next++;
            }
            done += size;
        }
        assertTrue(windowFull > 0, "the window-full path must be exercised");
        return tracker.watermark();
    }
}
