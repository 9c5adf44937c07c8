package io.sluice.core.scatter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The routed-topic table: ids, growth, states, and no allocation for a known name; the new-topic rate limit. */
class TopicTableTest
{
    @Test
    void shouldGiveEachNameOneIdThroughGrowth()
    {
        final TopicTable table = new TopicTable();
        for (int i = 0; i < 10_000; i++)
        {
            assertEquals(i, table.intern("users." + i));
        }
        for (int i = 0; i < 10_000; i++)
        {
            final byte[] b = ("users." + i).getBytes(StandardCharsets.US_ASCII);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[300]);
            buffer.putBytes(0, b);
            assertEquals(i, table.intern(buffer, b.length));
            assertEquals("users." + i, table.entry(i).name());
        }
        assertEquals(10_000, table.size());
    }

    @Test
    void shouldNotAllocateToFindAKnownName()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        final TopicTable table = new TopicTable();
        final UnsafeBuffer[] names = new UnsafeBuffer[100];
        for (int i = 0; i < names.length; i++)
        {
            names[i] = new UnsafeBuffer(("tenant." + i).getBytes(StandardCharsets.US_ASCII));
            table.intern(names[i], names[i].capacity());
        }
        long sum = 0;
        for (int i = 0; i < 1_000_000; i++)
        {
            sum += table.intern(names[i % 100], names[i % 100].capacity());
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++)
        {
            sum += table.intern(names[i % 100], names[i % 100].capacity());
        }
        assertEquals(0, threads.getCurrentThreadAllocatedBytes() - before, "allocated (" + sum + ")");
    }

    @Test
    void shouldMoveStatesOnlyFromTheExpectedOne()
    {
        final TopicTable table = new TopicTable();
        final TopicEntry e = table.entry(table.intern("x"));
        assertEquals(TopicEntry.UNKNOWN, e.state());
        assertTrue(e.transition(TopicEntry.UNKNOWN, TopicEntry.PENDING, null, 1));
        assertFalse(e.transition(TopicEntry.UNKNOWN, TopicEntry.EXISTS, null, 2));
        assertTrue(e.transition(TopicEntry.PENDING, TopicEntry.ABSENT, "gone", 3));
        assertEquals("gone", e.error());
        assertEquals(3, e.changedNanos());
        assertEquals("x (ABSENT)", e.toString());
    }

    @Test
    void shouldAllowAtMostTheLimitInAnySixtySeconds()
    {
        final NewTopicRateLimiter limiter = new NewTopicRateLimiter(3);
        final long s = 1_000_000_000L;
        assertTrue(limiter.tryAcquire(0));
        assertTrue(limiter.tryAcquire(10 * s));
        assertTrue(limiter.tryAcquire(20 * s));
        assertFalse(limiter.tryAcquire(30 * s));
        assertFalse(limiter.tryAcquire(59 * s));
        assertTrue(limiter.tryAcquire(60 * s), "the first creation left the window");
        assertFalse(limiter.tryAcquire(61 * s));
        assertTrue(limiter.tryAcquire(70 * s));
        assertTrue(limiter.tryAcquire(80 * s));
        assertFalse(limiter.tryAcquire(119 * s));
        assertTrue(limiter.tryAcquire(120 * s));
    }
}
