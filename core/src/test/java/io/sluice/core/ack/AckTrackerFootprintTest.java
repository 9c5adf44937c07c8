package io.sluice.core.ack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, item 5: a tracker takes the heap {@link AckTracker#footprintBytes} says (what the start line reports per
 * partition), measured as the bytes its construction allocates on this thread; {@link PartitionTrackers} gives a
 * released partition's tracker up and reuses its id with a generation above the old one's.
 */
class AckTrackerFootprintTest
{
    @ParameterizedTest(name = "window {0}")
    @ValueSource(ints = {64, 65_536, 262_144, 1 << 20})
    void shouldTakeTheHeapItsFootprintSays(final int window)
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counters unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        long allocated = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++)
        {
            // the first rounds load the classes and warm the counter itself; the least is the tracker alone
            final long before = threads.getCurrentThreadAllocatedBytes();
            final AckTracker t = new AckTracker("footprint", 0, 0, window);
            allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
            assertEquals(0, t.watermark());
        }
        assertEquals(allocated, AckTracker.footprintBytes(window),
            "bytes allocated by one tracker of window " + window);
    }

    @Test
    void shouldReleaseATrackerAndReuseItsIdWithANewerGeneration()
    {
        final PartitionTrackers trackers = new PartitionTrackers(1024);
        final TopicPartition a = new TopicPartition("a", 0);
        final TopicPartition b = new TopicPartition("b", 3);
        final AckTracker ta = trackers.trackerFor(a, 10);
        final int idA = trackers.idOf(a);
        ta.reset(10);
        ta.reset(10);
        final int oldGeneration = ta.generation();
        assertEquals(1, trackers.live());
        assertEquals(AckTracker.footprintBytes(1024), trackers.bytes());

        assertEquals(idA, trackers.release(a));
        assertEquals(0, trackers.live());
        assertEquals(0, trackers.bytes());
        assertEquals(-1, trackers.idOf(a));
        assertTrue(!trackers.isLive(idA));
        assertNotEquals(ta, trackers.get(idA), "a released id answers a placeholder, not the old tracker");
        assertEquals(-1, trackers.release(a), "releasing twice is a no-op");

        final AckTracker tb = trackers.trackerFor(b, 0);
        assertEquals(idA, trackers.idOf(b), "the released id is reused");
        assertSame(tb, trackers.get(idA));
        assertTrue(tb.generation() > oldGeneration, "generation " + tb.generation() + " after " + oldGeneration);
        assertEquals(AckTracker.REGISTERED, tb.tryRegister(0));
        assertEquals(AckTracker.ACK_STALE_GENERATION, tb.ack(0, oldGeneration),
            "an acknowledgement of the old partition in flight is stale for the new one");
        assertEquals(0, tb.watermark());
        assertEquals(AckTracker.ACKED, tb.ack(0, tb.generation()));
        assertEquals(1, tb.watermark());
        assertEquals(1, trackers.size());
        assertEquals(1, trackers.live());
    }
}
