package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.stage.Downstream;

/**
 * {@code checkpoint.stalled_fail_after_ms} with a manual clock (no sleeps): a partition stalls only after the limit
 * has passed without progress while records are in flight, or while a failure stays unsettled across re-reads; an
 * idle partition never stalls; the message names the partition, the limit, the position and why.
 */
class StallWatchTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 10_000 * MS;

    /** The stages after the ring, waiting on what the test says. */
    private static final class Stages implements Downstream
    {
        String stall = "";

        @Override
        public boolean idle()
        {
            return false;
        }

        @Override
        public void abandon()
        {
        }

        @Override
        public String describeStall()
        {
            return stall;
        }
    }

    private final CachedNanoClock clock = new CachedNanoClock();
    private final AckTracker tracker;
    private final Stages stages = new Stages();
    private final StallWatch watch = new StallWatch(1000, RereadSchedule.Words.OFFSETS);

    StallWatchTest()
    {
        clock.update(T0);
        tracker = new AckTracker("t", 0, 0, 1024, clock::nanoTime);
    }

    private boolean stalledAt(final long nanos)
    {
        clock.update(nanos);
        tracker.watermark();
        return watch.stalled(clock.nanoTime(), tracker, RereadSchedule.NO_FAILURE);
    }

    @Test
    void shouldStallOnlyOnceTheLimitHasPassedWithRecordsInFlight()
    {
        assertFalse(stalledAt(T0 + 60_000 * MS), "an idle partition never stalls");
        final long first = clock.nanoTime();
        for (long o = 0; o < 3; o++)
        {
            tracker.tryRegister(o);
        }
        assertFalse(stalledAt(first), "the stall clock starts at the first watermark after work arrived");
        assertFalse(stalledAt(first + 1000 * MS), "exactly the limit");
        assertTrue(stalledAt(first + 1000 * MS + 1));

        stages.stall = "shard-0: 2 batches queued, breaker open";
        assertEquals("partition t-0 made no progress for 1000 ms (checkpoint.stalled_fail_after_ms) at offset 0: "
            + "shard-0: 2 batches queued, breaker open", watch.message("t-0", tracker, null, stages));
        stages.stall = "";
        assertEquals("partition t-0 made no progress for 1000 ms (checkpoint.stalled_fail_after_ms) at offset 0: "
            + "records are still in flight", watch.message("t-0", tracker, null, stages));
    }

    @Test
    void shouldRestartTheClockWhenTheWatermarkMoves()
    {
        for (long o = 0; o < 3; o++)
        {
            tracker.tryRegister(o);
        }
        assertFalse(stalledAt(T0));
        clock.update(T0 + 900 * MS);
        tracker.ack(0, tracker.generation());
        assertFalse(stalledAt(T0 + 900 * MS));
        assertFalse(stalledAt(T0 + 1500 * MS), "600 ms since offset 0 was written");
        assertTrue(stalledAt(T0 + 1900 * MS + 1));
        assertEquals(1, tracker.watermark());
    }

    @Test
    void shouldStallOnAnUnsettledFailureAcrossReReadsNamingIt()
    {
        for (long o = 0; o < 3; o++)
        {
            tracker.tryRegister(o);
        }
        tracker.ack(0, tracker.generation());
        tracker.ack(1, tracker.generation());
        tracker.fail(2, tracker.generation(), 60, "record t-0@2: table gone");
        final long failSince = T0;
        clock.update(T0 + 800 * MS);
        tracker.reset(2);
        tracker.tryRegister(2);
        tracker.watermark();
        clock.update(T0 + 1000 * MS);
        assertFalse(watch.stalled(clock.nanoTime(), tracker, failSince));
        clock.update(T0 + 1000 * MS + 1);
        assertTrue(watch.stalled(clock.nanoTime(), tracker, failSince),
            "the re-read restarted the tracker's clock 200 ms ago; the failure is older than the limit");
        assertFalse(watch.stalled(clock.nanoTime(), tracker, RereadSchedule.NO_FAILURE));
        assertEquals("partition t-0 made no progress for 1000 ms (checkpoint.stalled_fail_after_ms) at offset 2: "
            + "record t-0@2: table gone", watch.message("t-0", tracker, "record t-0@2: table gone", stages));

        tracker.fail(2, tracker.generation(), 60, "record t-0@2: table still gone");
        assertEquals("partition t-0 made no progress for 1000 ms (checkpoint.stalled_fail_after_ms) at offset 2: "
            + "record t-0@2: table still gone", watch.message("t-0", tracker, "record t-0@2: table gone", stages),
            "the tracker's own failure first");
    }

    @Test
    void shouldNameALineOneBased()
    {
        final StallWatch lines = new StallWatch(1500, RereadSchedule.Words.LINES);
        tracker.tryRegister(0);
        tracker.ack(0, tracker.generation());
        tracker.tryRegister(1);
        tracker.watermark();
        assertEquals("file in.jsonl made no progress for 1500 ms (checkpoint.stalled_fail_after_ms) at line 2: why",
            lines.message("file in.jsonl", tracker, "why", stages));
        assertEquals(1500, lines.limitMs());
    }
}
