package io.sluice.core.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * Reading the latency histograms for a scrape: the totals accumulate every interval, and reading them again and again
 * allocates nothing (each of the four histograms is a few hundred KB; copying them at every scrape was most of the
 * engine's steady-state allocation in a JFR sample).
 */
class PipelineStatsTotalsTest
{
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();

    @Test
    void shouldReuseTheIntervalHistogram()
    {
        final LatencyRecorder recorder = new LatencyRecorder(3_600_000_000L);
        recorder.record(5);
        recorder.record(7);
        final Histogram first = recorder.interval();
        assertEquals(2, first.getTotalCount());
        recorder.record(9);
        recorder.interval(); // the recycled one goes back to the recorder
        recorder.record(11);
        final Histogram third = recorder.interval();
        assertSame(first, third, "two histograms alternate");
        assertEquals(1, third.getTotalCount(), "only the interval's values");
        assertEquals(11, third.getMaxValue());
    }

    @Test
    void shouldAccumulateTotalsAndReadThemWithoutAllocating()
    {
        final PipelineStats stats = new PipelineStats();
        final long[] counts = new long[4];
        for (int round = 0; round < 3; round++)
        {
            stats.endToEndMicros.record(1000);
            stats.ringHopNanos.record(200);
            stats.insertMicros.record(300);
            stats.queueWaitMicros.record(400);
            stats.readTotals(h ->
            {
                for (int k = 0; k < 4; k++)
                {
                    counts[k] = h[k].getTotalCount();
                }
            });
        }
        assertEquals(3, counts[0]);
        assertEquals(3, counts[3]);
        assertEquals(3, stats.totals()[2].getTotalCount(), "totals() sees the same run totals");

        final long thread = Thread.currentThread().getId();
        final long before = THREADS.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 200; i++)
        {
            stats.endToEndMicros.record(i);
            stats.readTotals(h -> counts[0] = h[0].getTotalCount());
        }
        final long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
        assertEquals(203, counts[0]);
        assertTrue(allocated < 64 * 1024, "200 reads allocated " + allocated + " bytes");
        // what a scrape paid before: copies of the four totals (and, then, four new interval histograms) per call
        final long copying = THREADS.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 10; i++)
        {
            counts[1] += stats.totals()[0].getTotalCount();
        }
        assertTrue(THREADS.getThreadAllocatedBytes(thread) - copying > 1_000_000, "totals() copies");
    }
}
