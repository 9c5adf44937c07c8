package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.Awaited;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.PipelineControl;

/**
 * The re-read schedule with a manual clock (no sleeps): fail → hold → back off (doubling per failure at the same
 * offset, up to the cap) → re-read once the backoff has passed and what was published has settled → settled once the
 * watermark passes the failed offset (the next failure starts over); its log lines, in both sources' words. A record
 * that waits for work under way (its new table's setup, {@link Awaited}) is held until that work has ended and read
 * again once, with a safety re-read at the cap.
 */
class RereadScheduleTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The stages after the ring, settled or not as the test says. */
    private static final class Stages implements Downstream
    {
        boolean settled = true;
        boolean routed;
        long askedThrough = Long.MIN_VALUE;

        @Override
        public boolean routedThrough(final long sequence)
        {
            return routed;
        }

        @Override
        public boolean settledThrough(final long sequence)
        {
            askedThrough = sequence;
            return settled;
        }

        @Override
        public boolean idle()
        {
            return settled;
        }

        @Override
        public void abandon()
        {
        }

        @Override
        public String describeStall()
        {
            return "";
        }
    }

    private final CachedNanoClock clock = new CachedNanoClock();
    private final AckTracker tracker = new AckTracker("t", 0, 0, 1024, clock::nanoTime);
    private final Stages stages = new Stages();
    private final PipelineControl control = new PipelineControl();
    private final Logger logger = (Logger)LoggerFactory.getLogger(RereadSchedule.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private Level level;

    @BeforeEach
    void capture()
    {
        clock.update(5_000 * MS);
        log.start();
        logger.addAppender(log);
        level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
    }

    @AfterEach
    void release()
    {
        logger.detachAppender(log);
        logger.setLevel(level);
    }

    private RereadSchedule schedule(final RereadSchedule.Words words)
    {
        return new RereadSchedule("src", words == RereadSchedule.Words.LINES ? "file in.jsonl" : "t-0", words, 100,
            1000, 60_000, control);
    }

    /** Registers {@code from..to-1} in the current generation, acks them, and fails {@code failed}. */
    private void readAndFail(final long from, final long to, final long failed)
    {
        for (long o = from; o < to; o++)
        {
            assertEquals(AckTracker.REGISTERED, tracker.tryRegister(o));
            if (o != failed)
            {
                tracker.ack(o, tracker.generation());
            }
        }
        tracker.fail(failed, tracker.generation(), 60, "record t-0@" + failed + ": table gone");
    }

    /** Drives one hold to its re-read, as the source does, and returns the backoff it waited. */
    private long holdUntilReread(final RereadSchedule s)
    {
        final long heldAt = clock.nanoTime();
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertTrue(s.holding());
        final long backoff = s.backoffNanos();
        clock.update(heldAt + backoff - 1);
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41), "before the backoff");
        clock.update(heldAt + backoff);
        stages.settled = false;
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41), "records in flight");
        assertEquals(41, stages.askedThrough, "asks about the partition's last published sequence");
        stages.settled = true;
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41));
        final long wm = tracker.watermark();
        tracker.reset(wm);
        s.rereading(wm);
        assertFalse(s.holding());
        return backoff;
    }

    private List<String> messages(final Level at)
    {
        return log.list.stream().filter(e -> e.getLevel() == at).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void shouldDoubleTheBackoffPerFailureAtTheSameOffsetUpToTheCap()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        assertEquals(RereadSchedule.RUNNING, s.poll(clock.nanoTime(), tracker, stages, -1));
        final long firstFailure = clock.nanoTime();
        readAndFail(0, 5, 2);
        final long[] waited = new long[6];
        for (int i = 0; i < waited.length; i++)
        {
            waited[i] = holdUntilReread(s);
            assertEquals(firstFailure, s.failSinceNanos(), "the failure keeps its start across re-reads");
            assertEquals(i + 1, s.rereads());
            readAndFail(2, 5, 2);
        }
        assertEquals(List.of(100 * MS, 200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS),
            List.of(waited[0], waited[1], waited[2], waited[3], waited[4], waited[5]));
        assertEquals(2, s.failOffset());
        assertEquals("record t-0@2: table gone", s.failReason());

        final List<String> warnings = messages(Level.WARN);
        assertEquals(List.of("src: t-0 nacked at offset 2: record t-0@2: table gone; nothing past offset 2 is "
            + "committed; re-reading in 100 ms once its records in flight have settled (the run ends if it still "
            + "fails after checkpoint.stalled_fail_after_ms = 60000)"), warnings);
        final List<String> infos = messages(Level.INFO);
        assertEquals(5, infos.size(), infos.toString());
        assertEquals("src: t-0 still failing at offset 2 after 1 re-read(s); re-reading in 200 ms (failing for "
            + "100 ms of checkpoint.stalled_fail_after_ms = 60000)", infos.get(0));
        assertEquals("src: t-0 re-reading from offset 2 (re-read 1)", messages(Level.DEBUG).get(0));
    }

    @Test
    void shouldSettleOncePastTheFailedOffsetAndStartTheNextFailureOver()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        readAndFail(0, 5, 2);
        holdUntilReread(s);
        readAndFail(2, 5, 2);
        assertEquals(200 * MS, holdUntilReread(s));
        for (long o = 2; o < 8; o++)
        {
            tracker.tryRegister(o);
            tracker.ack(o, tracker.generation());
        }
        clock.advance(7 * MS);
        assertEquals(RereadSchedule.RUNNING, s.poll(clock.nanoTime(), tracker, stages, 50));
        assertEquals(RereadSchedule.NO_FAILURE, s.failSinceNanos());
        assertEquals(0, s.rereads());
        assertTrue(messages(Level.INFO).contains("src: t-0 moved past offset 2 after 2 re-read(s)"),
            messages(Level.INFO).toString());

        final long secondFailure = clock.nanoTime();
        tracker.tryRegister(8);
        tracker.fail(8, tracker.generation(), 60, "again");
        assertEquals(100 * MS, holdUntilReread(s), "a new failure starts at retry_backoff_ms again");
        assertEquals(secondFailure, s.failSinceNanos());
        assertEquals(2, messages(Level.WARN).size(), "a failure at a new offset is announced");
    }

    @Test
    void shouldNameLinesOneBasedForALineSource()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.LINES);
        readAndFail(0, 5, 2);
        holdUntilReread(s);
        readAndFail(2, 5, 2);
        holdUntilReread(s);
        assertEquals(List.of("src: file in.jsonl nacked at line 3: record t-0@2: table gone; the source does not "
            + "advance: replaying from line 3 in 100 ms once its records in flight have settled (the run ends if it "
            + "still fails after checkpoint.stalled_fail_after_ms = 60000)"), messages(Level.WARN));
        assertEquals("src: file in.jsonl still failing at line 3 after 1 replay(s); replaying in 200 ms (failing for "
            + "100 ms of checkpoint.stalled_fail_after_ms = 60000)", messages(Level.INFO).get(0));
        assertEquals("src: file in.jsonl replaying from line 3 (replay 1)", messages(Level.DEBUG).get(0));
    }

    @Test
    void shouldHoldWithoutAnnouncingAFailureWhileThePipelineStops()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        control.fail("stopping for another reason");
        readAndFail(0, 5, 2);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 4));
        assertEquals(List.of(), messages(Level.WARN));
        assertEquals(1, messages(Level.DEBUG).size());
    }

    /** Registers {@code from..to-1}, acks them but {@code waiting}, which waits for {@code work}. */
    private void readAndWait(final long from, final long to, final long waiting, final Awaited work)
    {
        for (long o = from; o < to; o++)
        {
            assertEquals(AckTracker.REGISTERED, tracker.tryRegister(o));
            if (o != waiting)
            {
                tracker.ack(o, tracker.generation());
            }
        }
        tracker.fail(waiting, tracker.generation(), AckTracker.CODE_AWAITING,
            "record t-0@" + waiting + ": waiting for the table of topic t", work);
    }

    private void reread(final RereadSchedule s)
    {
        final long wm = tracker.watermark();
        tracker.reset(wm);
        s.rereading(wm);
    }

    @Test
    void shouldHoldAWaitUntilItsWorkHasEndedAndThenReadItAgainOnce()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        final AtomicBoolean done = new AtomicBoolean();
        readAndWait(0, 5, 2, done::get);
        final long heldAt = clock.nanoTime();
        assertEquals(RereadSchedule.HOLD, s.poll(heldAt, tracker, stages, 41));
        assertTrue(s.awaiting());
        assertEquals(heldAt + 1000 * MS, s.rereadAtNanos(), "the safety re-read at retry_backoff_max_ms");
        for (final long after : new long[]{20, 40, 100, 500, 999})
        {
            clock.update(heldAt + after * MS);
            assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41),
                "no timed re-read while the setup runs, " + after + " ms after the hold");
        }
        done.set(true);
        stages.settled = false;
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41),
            "the setup ended but records of the partition are still in flight");
        stages.settled = true;
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertEquals(RereadSchedule.CAUSE_ENDED, s.cause());
        reread(s);
        assertFalse(s.awaiting());
        assertEquals(RereadSchedule.RUNNING, s.poll(clock.nanoTime(), tracker, stages, 41));

        // the table is there now: the record is written, the partition moves past it
        for (long o = 2; o < 5; o++)
        {
            tracker.tryRegister(o);
            tracker.ack(o, tracker.generation());
        }
        assertEquals(RereadSchedule.RUNNING, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertEquals(RereadSchedule.NO_FAILURE, s.failSinceNanos());
        assertEquals(0, s.rereads(), "settled");
        assertEquals(List.of(), messages(Level.WARN), "a wait is no error");
        assertEquals(List.of("src: t-0 nacked at offset 2: record t-0@2: waiting for the table of topic t; nothing "
            + "past offset 2 is committed; re-reading once that has ended (at most 1000 ms) and its records in flight "
            + "have settled (the run ends if it still waits after checkpoint.stalled_fail_after_ms = 60000)",
            "src: t-0 moved past offset 2 after 1 re-read(s)"), messages(Level.INFO));
    }

    @Test
    void shouldReadAWaitAgainAtOnceWhenItsWorkEndedBeforeTheHold()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        readAndWait(0, 3, 1, () -> true);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 7));
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 7), "no backoff to wait out");
        assertEquals(RereadSchedule.CAUSE_ENDED, s.cause());
    }

    @Test
    void shouldReadAWaitAgainForSafetyAtTheCapDoublingWhileTheSameWorkRuns()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        final Awaited never = () -> false;
        readAndWait(0, 5, 2, never);
        final long[] waited = new long[6];
        for (int i = 0; i < waited.length; i++)
        {
            final long heldAt = clock.nanoTime();
            assertEquals(RereadSchedule.HOLD, s.poll(heldAt, tracker, stages, 41));
            waited[i] = s.rereadAtNanos() - heldAt;
            clock.update(s.rereadAtNanos() - 1);
            assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41));
            clock.advance(1);
            assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41));
            assertEquals(RereadSchedule.CAUSE_SAFETY, s.cause());
            reread(s);
            readAndWait(2, 5, 2, never);
        }
        assertEquals(List.of(1000 * MS, 2000 * MS, 4000 * MS, 8000 * MS, 15_000 * MS, 15_000 * MS),
            List.of(waited[0], waited[1], waited[2], waited[3], waited[4], waited[5]),
            "retry_backoff_max_ms, doubling up to a quarter of checkpoint.stalled_fail_after_ms");

        // another setup (the first ended, the record now waits for another branch's table): back to the cap
        tracker.reset(tracker.watermark());
        readAndWait(2, 5, 2, () -> false);
        final long heldAt = clock.nanoTime();
        assertEquals(RereadSchedule.HOLD, s.poll(heldAt, tracker, stages, 41));
        assertEquals(1000 * MS, s.rereadAtNanos() - heldAt);
        assertTrue(messages(Level.INFO).contains("src: t-0 still waiting at offset 2 after 1 re-read(s); re-reading "
            + "once that has ended (at most 2000 ms; waiting for 1000 ms of checkpoint.stalled_fail_after_ms = "
            + "60000)"), messages(Level.INFO).toString());
    }

    @Test
    void shouldReadAWaitWithoutWorkToPollAgainOnTheShortBackoff()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        readAndWait(0, 5, 2, null);
        final long heldAt = clock.nanoTime();
        assertEquals(RereadSchedule.HOLD, s.poll(heldAt, tracker, stages, 41));
        assertFalse(s.awaiting());
        assertFalse(s.holdsForWork(), "no work to wait for: the source flushes the batches that carry its records");
        assertEquals(RereadSchedule.AWAITING_BACKOFF_NANOS, s.rereadAtNanos() - heldAt);
        clock.update(s.rereadAtNanos());
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertEquals(RereadSchedule.CAUSE_BACKOFF, s.cause());
    }

    @Test
    void shouldReadAWaitAgainWithoutWaitingForOtherTablesInsertsWhenNothingOfThePartitionIsInABatch()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        final AtomicBoolean done = new AtomicBoolean();
        readAndWait(0, 5, 2, done::get);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 41));
        done.set(true);
        stages.settled = false;
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41),
            "the route stage has not taken every record published before the hold");
        stages.routed = true;
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41),
            "offsets 0 and 1 written, the later ones dropped: other tables' inserts need not end first");
        assertEquals(RereadSchedule.CAUSE_ENDED, s.cause());
    }

    @Test
    void shouldWaitForTheInsertsWhenARecordBeforeTheWaitingOneMayStillBeInABatch()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        for (long o = 0; o < 5; o++)
        {
            assertEquals(AckTracker.REGISTERED, tracker.tryRegister(o));
        }
        tracker.ack(0, tracker.generation());
        tracker.fail(2, tracker.generation(), AckTracker.CODE_AWAITING, "waiting", () -> true);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertTrue(s.holdsForWork(), "a hold for work publishes no flush: offset 1's batch seals on its own rule");
        stages.settled = false;
        stages.routed = true;
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41),
            "offset 1 is in a batch not written yet: re-reading now would write it twice");
        tracker.ack(1, tracker.generation());
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41), "written now");
        reread(s);
        assertFalse(s.holdsForWork(), "no longer held");
    }

    @Test
    void shouldStartTheSafetyClockWhenTheAwaitedWorkBeginsNotWhileItIsQueued()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        final AtomicBoolean begun = new AtomicBoolean();
        final Awaited queued = queuedUntil(begun);
        readAndWait(0, 5, 2, queued);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 41));
        for (int i = 0; i < 10; i++)
        {
            clock.advance(1000 * MS);
            assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41),
                "queued behind other setups for " + (i + 1) + " s: no safety re-read");
        }
        begun.set(true);
        final long begunAt = clock.nanoTime();
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41));
        clock.update(begunAt + 999 * MS);
        assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41));
        clock.update(begunAt + 1000 * MS);
        assertEquals(RereadSchedule.REREAD, s.poll(clock.nanoTime(), tracker, stages, 41),
            "retry_backoff_max_ms after the setup began");
        assertEquals(RereadSchedule.CAUSE_SAFETY, s.cause());
    }

    @Test
    void shouldNotCountTheTimeQueuedBehindOtherWorkTowardTheStallLimit()
    {
        final RereadSchedule s = schedule(RereadSchedule.Words.OFFSETS);
        final StallWatch watch = new StallWatch(3_000, RereadSchedule.Words.OFFSETS);
        final AtomicBoolean begun = new AtomicBoolean();
        final Awaited queued = queuedUntil(begun);
        readAndWait(0, 5, 2, queued);
        assertEquals(RereadSchedule.HOLD, s.poll(clock.nanoTime(), tracker, stages, 41));
        assertEquals(RereadSchedule.NO_FAILURE, s.stallClockFloorNanos(), "not seen queued yet");
        for (int i = 0; i < 10; i++)
        {
            clock.advance(1000 * MS);
            assertEquals(RereadSchedule.HOLDING, s.poll(clock.nanoTime(), tracker, stages, 41));
            assertFalse(watch.stalled(clock.nanoTime(), tracker, s.failSinceNanos(), s.stallClockFloorNanos()),
                "queued behind other setups for " + (i + 1) + " s: no stall");
        }
        assertTrue(watch.stalled(clock.nanoTime(), tracker, s.failSinceNanos()),
            "without the floor the same 10 s are a stall");
        final long lastQueued = clock.nanoTime();
        begun.set(true);
        clock.update(lastQueued + 2_999 * MS);
        assertFalse(watch.stalled(clock.nanoTime(), tracker, s.failSinceNanos(), s.stallClockFloorNanos()));
        clock.update(lastQueued + 3_001 * MS);
        assertTrue(watch.stalled(clock.nanoTime(), tracker, s.failSinceNanos(), s.stallClockFloorNanos()),
            "a setup that began and does not end still ends the run after the limit");
    }

    /** Work that never ends and has begun once {@code begun} is set (a setup queued behind others until then). */
    private static Awaited queuedUntil(final AtomicBoolean begun)
    {
        return new Awaited()
        {
            @Override
            public boolean ended()
            {
                return false;
            }

            @Override
            public boolean begun()
            {
                return begun.get();
            }
        };
    }
}
