package io.sluice.core.ack;

import static io.sluice.core.ack.AckTracker.ACKED;
import static io.sluice.core.ack.AckTracker.ACK_DUPLICATE;
import static io.sluice.core.ack.AckTracker.ACK_OUT_OF_WINDOW;
import static io.sluice.core.ack.AckTracker.ACK_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.FAIL_RECORDED;
import static io.sluice.core.ack.AckTracker.FAIL_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.FAIL_SUPERSEDED;
import static io.sluice.core.ack.AckTracker.REGISTERED;
import static io.sluice.core.ack.AckTracker.WINDOW_FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckTrackerTest
{
    private final AtomicLong clock = new AtomicLong(1_000L);

    private AckTracker tracker(final long startOffset, final int windowCapacity)
    {
        return new AckTracker("events", 0, startOffset, windowCapacity, clock::get);
    }

    private static void registerAll(final AckTracker tracker, final long... offsets)
    {
        for (final long offset : offsets)
        {
            assertEquals(REGISTERED, tracker.tryRegister(offset), "register " + offset);
        }
    }

    private static void registerRange(final AckTracker tracker, final long from, final long to)
    {
        for (long offset = from; offset < to; offset++)
        {
            assertEquals(REGISTERED, tracker.tryRegister(offset), "register " + offset);
        }
    }

    private static void ackAll(final AckTracker tracker, final long... offsets)
    {
        for (final long offset : offsets)
        {
            assertEquals(ACKED, tracker.ack(offset), "ack " + offset);
        }
    }

    private static void ackRange(final AckTracker tracker, final long from, final long to)
    {
        for (long offset = from; offset < to; offset++)
        {
            assertEquals(ACKED, tracker.ack(offset), "ack " + offset);
        }
    }

    @Test
    void shouldStartWithTheWatermarkAtTheStartOffset()
    {
        final AckTracker tracker = tracker(100, 64);

        assertEquals(100, tracker.watermark());
        assertEquals(100, tracker.lastWatermark());
        assertEquals(100, tracker.registeredEnd());
        assertEquals(0, tracker.inFlight());
        assertEquals(-1, tracker.pendingOldestOffset());
        assertFalse(tracker.failed());
        assertEquals(-1, tracker.failedOffset());
        assertNull(tracker.failureReason());
        assertEquals(0, tracker.failureCode());
        assertEquals(AckTracker.INITIAL_GENERATION, tracker.generation());
        assertEquals("events", tracker.topic());
        assertEquals(0, tracker.partition());
        assertEquals(64, tracker.windowCapacity());
    }

    @Test
    void shouldAdvanceOverInOrderAcks()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 10);
        assertEquals(0, tracker.watermark());

        ackAll(tracker, 0);
        assertEquals(1, tracker.watermark());
        ackAll(tracker, 1, 2);
        assertEquals(3, tracker.watermark());
        ackRange(tracker, 3, 10);
        assertEquals(10, tracker.watermark());
        assertEquals(0, tracker.inFlight());
    }

    @Test
    void shouldAdvanceOnlyToTheFirstPendingOffsetWithOutOfOrderAcks()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 10);

        ackAll(tracker, 9, 7, 5, 3, 1);
        assertEquals(0, tracker.watermark());
        ackAll(tracker, 0);
        assertEquals(2, tracker.watermark());
        ackAll(tracker, 2);
        assertEquals(4, tracker.watermark());
        ackAll(tracker, 8, 6);
        assertEquals(4, tracker.watermark());
        ackAll(tracker, 4);
        assertEquals(10, tracker.watermark());
    }

    @Test
    void shouldCountOffsetsBeforeTheFirstRegistrationAsGaps()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 5);

        assertEquals(5, tracker.watermark());
        assertEquals(5, tracker.pendingOldestOffset());
        ackAll(tracker, 5);
        assertEquals(6, tracker.watermark());
    }

    @Test
    void shouldCountCompactedHolesAsDone()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0, 1, 5, 9);
        assertEquals(10, tracker.registeredEnd());

        ackAll(tracker, 0);
        assertEquals(1, tracker.watermark());
        ackAll(tracker, 1);
        assertEquals(5, tracker.watermark());
        ackAll(tracker, 9);
        assertEquals(5, tracker.watermark());
        ackAll(tracker, 5);
        assertEquals(10, tracker.watermark());
    }

    @Test
    void shouldTreatTransactionMarkersAsDone()
    {
        final List<Long> records = new ArrayList<>();
        for (long offset = 0; offset < 200; offset += 2)
        {
            records.add(offset);
        }

        // 100 records over 200 offsets: more than the window, so register and ack as the window allows
        final AckTracker tracker = tracker(0, 64);
        final Random random = new Random(42);
        int registered = 0;
        final List<Long> pending = new ArrayList<>();
        while (registered < records.size() || !pending.isEmpty())
        {
            while (registered < records.size() && tracker.tryRegister(records.get(registered)) == REGISTERED)
            {
                pending.add(records.get(registered++));
            }
            if (pending.isEmpty())
            {
                fail("window full with nothing pending: watermark " + tracker.watermark());
            }
            Collections.shuffle(pending, random);
            final long acked = pending.remove(pending.size() - 1);
            assertEquals(ACKED, tracker.ack(acked));
            final long watermark = tracker.watermark();
            final long lowestPending = pending.stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
            assertTrue(watermark <= lowestPending, "watermark " + watermark + " passed pending " + lowestPending);
            assertTrue(pending.isEmpty() || watermark == lowestPending, "markers must not hold the watermark");
        }
        assertEquals(199, tracker.watermark());

        // the trailing marker at 199: the consumer's position is 200
        assertEquals(REGISTERED, tracker.trySkipTo(200));
        assertEquals(200, tracker.watermark());
    }

    @Test
    void shouldReturnWindowFullAndRegisterOnceTheWatermarkHasAdvanced()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 64);

        assertEquals(WINDOW_FULL, tracker.tryRegister(64));
        assertEquals(64, tracker.registeredEnd());

        // the window is reused a block of 16 offsets at a time
        ackRange(tracker, 0, 15);
        assertEquals(WINDOW_FULL, tracker.tryRegister(64));
        ackAll(tracker, 15);
        assertEquals(REGISTERED, tracker.tryRegister(64));
        assertEquals(16, tracker.lastWatermark());
        registerRange(tracker, 65, 80);
        assertEquals(WINDOW_FULL, tracker.tryRegister(80));

        ackRange(tracker, 16, 80);
        assertEquals(80, tracker.watermark());
        assertEquals(REGISTERED, tracker.tryRegister(80));
    }

    @Test
    void shouldWrapAroundTheRingOverManyWindows()
    {
        final AckTracker tracker = tracker(7, 64);
        final Random random = new Random(7);
        final List<Long> pending = new ArrayList<>();
        long next = 7;
        long lowestPending = Long.MAX_VALUE;
        while (next < 64 * 2_000)
        {
            while (tracker.tryRegister(next) == REGISTERED)
            {
                pending.add(next);
                next += 1 + (random.nextInt(8) == 0 ? random.nextInt(5) : 0);
            }
            if (pending.isEmpty())
            {
                fail("window full with nothing pending: watermark " + tracker.watermark());
            }
            Collections.shuffle(pending, random);
            final int acks = 1 + random.nextInt(pending.size());
            for (int i = 0; i < acks; i++)
            {
                assertEquals(ACKED, tracker.ack(pending.remove(pending.size() - 1)));
            }
            lowestPending = pending.stream().mapToLong(Long::longValue).min().orElse(tracker.registeredEnd());
            assertEquals(lowestPending, tracker.watermark());
        }
        assertEquals(0, tracker.invalidAcks());
    }

    @Test
    void shouldJumpOverAGapWiderThanTheWindowWhenNothingIsInFlight()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0);
        ackAll(tracker, 0);

        assertEquals(REGISTERED, tracker.tryRegister(1_000_000));
        assertEquals(1_000_000, tracker.watermark());
        assertEquals(1_000_001, tracker.registeredEnd());
        registerRange(tracker, 1_000_001, 1_000_060);
        ackRange(tracker, 1_000_000, 1_000_060);
        assertEquals(1_000_060, tracker.watermark());
    }

    @Test
    void shouldHoldAGapWiderThanTheWindowUntilEverythingBeforeItIsDone()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0, 1);

        assertEquals(WINDOW_FULL, tracker.tryRegister(1_000));
        ackAll(tracker, 1);
        assertEquals(WINDOW_FULL, tracker.tryRegister(1_000));
        assertEquals(0, tracker.watermark());

        ackAll(tracker, 0);
        assertEquals(REGISTERED, tracker.tryRegister(1_000));
        assertEquals(1_000, tracker.watermark());
        ackAll(tracker, 1_000);
        assertEquals(1_001, tracker.watermark());
    }

    @Test
    void shouldAcceptAGapThatFitsTheWindowWhileOffsetsAreInFlight()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0, 63);

        ackAll(tracker, 63);
        assertEquals(0, tracker.watermark());
        ackAll(tracker, 0);
        assertEquals(64, tracker.watermark());
    }

    @Test
    void shouldStopAtTheLowestFailedOffsetEvenIfALaterOffsetFailedFirst()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 10);

        assertEquals(FAIL_RECORDED, tracker.fail(7, 500, "table B insert failed"));
        assertEquals(FAIL_RECORDED, tracker.fail(3, 241, "memory limit exceeded"));
        assertEquals(FAIL_SUPERSEDED, tracker.fail(5, 1, "later"));
        assertEquals(FAIL_SUPERSEDED, tracker.fail(3, 2, "second reason for the same offset"));
        ackAll(tracker, 0, 1, 2, 4, 5, 6, 8, 9);

        assertEquals(3, tracker.watermark());
        assertTrue(tracker.failed());
        assertEquals(3, tracker.failedOffset());
        assertEquals(241, tracker.failureCode());
        assertEquals("memory limit exceeded", tracker.failureReason());
        assertTrue(tracker.toString().contains("failedOffset=3"), tracker.toString());
    }

    @Test
    void shouldNotPassAFailedOffsetThatIsAlsoAcked()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 4);

        tracker.fail(2, 1, "one table failed");
        ackRange(tracker, 0, 4);

        assertEquals(2, tracker.watermark());
    }

    @Test
    void shouldNeverMoveAgainAfterAFailureBelowTheWatermark()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 4);
        ackRange(tracker, 0, 2);
        assertEquals(2, tracker.watermark());

        tracker.fail(1, 1, "late failure of a passed offset");
        ackRange(tracker, 2, 4);

        assertEquals(2, tracker.watermark());
        assertEquals(1, tracker.failedOffset());
    }

    @Test
    void shouldStoreANullReasonAsUnspecified()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 1);

        tracker.fail(0, 3, null);

        assertEquals("unspecified", tracker.failureReason());
    }

    @Test
    void shouldFillTheWindowAndNotJumpWhileFailed()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0);
        tracker.fail(0, 1, "down");

        assertEquals(WINDOW_FULL, tracker.tryRegister(10_000));
        registerRange(tracker, 1, 64);
        assertEquals(WINDOW_FULL, tracker.tryRegister(64));
        ackRange(tracker, 1, 64);
        assertEquals(WINDOW_FULL, tracker.tryRegister(64));
        assertEquals(0, tracker.watermark());
    }

    @Test
    void shouldIgnoreAcksAndFailsOfAnOlderGenerationAfterReset()
    {
        final AckTracker tracker = tracker(0, 64);
        final int first = tracker.generation();
        registerRange(tracker, 0, 10);
        for (long offset = 0; offset < 5; offset++)
        {
            assertEquals(ACKED, tracker.ack(offset, first));
        }
        assertEquals(5, tracker.watermark());

        // seek back to the last commit: offsets 5..9 are read again
        tracker.reset(5);
        final int second = tracker.generation();
        assertEquals(first + 1, second);
        assertEquals(5, tracker.watermark());
        assertEquals(5, tracker.registeredEnd());
        registerRange(tracker, 5, 10);

        for (long offset = 5; offset < 10; offset++)
        {
            assertEquals(ACK_STALE_GENERATION, tracker.ack(offset, first));
        }
        assertEquals(FAIL_STALE_GENERATION, tracker.fail(7, first, 1, "old"));
        assertFalse(tracker.failed());
        assertEquals(6, tracker.staleAcks());
        assertEquals(5, tracker.watermark());

        for (long offset = 5; offset < 10; offset++)
        {
            assertEquals(ACKED, tracker.ack(offset, second));
        }
        assertEquals(10, tracker.watermark());
        assertEquals(0, tracker.invalidAcks());
    }

    @Test
    void shouldClearTheFailureAndStartOverOnReset()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 4);
        tracker.fail(2, 9, "boom");
        ackAll(tracker, 0, 1, 3);
        assertEquals(2, tracker.watermark());

        tracker.reset(2);

        assertFalse(tracker.failed());
        assertEquals(-1, tracker.failedOffset());
        assertNull(tracker.failureReason());
        registerRange(tracker, 2, 4);
        assertEquals(ACK_STALE_GENERATION, tracker.ack(3, tracker.generation() - 1));
        ackAll(tracker, 2, 3);
        assertEquals(4, tracker.watermark());
    }

    @Test
    void shouldKeepANewerFailureWhenAStaleFailArrives()
    {
        final AckTracker tracker = tracker(0, 64);
        final int first = tracker.generation();
        tracker.reset(10);
        registerRange(tracker, 10, 20);
        assertEquals(FAIL_RECORDED, tracker.fail(15, tracker.generation(), 1, "new"));

        assertEquals(FAIL_STALE_GENERATION, tracker.fail(11, first, 2, "old"));

        assertEquals(15, tracker.failedOffset());
        assertEquals("new", tracker.failureReason());
    }

    @Test
    void shouldRejectADuplicateAck()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0, 1, 2, 5);

        assertEquals(ACKED, tracker.ack(1));
        assertEquals(ACK_DUPLICATE, tracker.ack(1));
        assertEquals(ACK_DUPLICATE, tracker.ack(3), "a gap is already done");
        assertEquals(2, tracker.invalidAcks());
        assertEquals(0, tracker.watermark());
    }

    @Test
    void shouldRejectAnAckOfAnOffsetWhoseBlockWasRecycled()
    {
        final AckTracker tracker = tracker(0, 64);
        registerRange(tracker, 0, 16);
        ackRange(tracker, 0, 16);
        assertEquals(16, tracker.watermark());

        registerRange(tracker, 16, 65);
        assertEquals(ACK_OUT_OF_WINDOW, tracker.ack(0), "offset 0 shares its slot with offset 64");
        assertEquals(ACK_OUT_OF_WINDOW, tracker.ack(3));
        ackRange(tracker, 16, 64);

        assertEquals(64, tracker.watermark());
        assertEquals(2, tracker.invalidAcks());
    }

    @Test
    void shouldRejectAnAckBeyondTheWindow()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0);

        assertEquals(ACK_OUT_OF_WINDOW, tracker.ack(69));
        assertEquals(1, tracker.invalidAcks());
    }

    @Test
    void shouldDiscardAnAckThatArrivedBeforeItsRegistration()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0);

        // cannot be told apart from a real ack at this point
        assertEquals(ACKED, tracker.ack(1));
        registerAll(tracker, 1);
        assertEquals(1, tracker.invalidAcks());

        ackAll(tracker, 0);
        assertEquals(1, tracker.watermark(), "offset 1 is pending: its early ack was discarded");
        ackAll(tracker, 1);
        assertEquals(2, tracker.watermark());
    }

    @Test
    void shouldAckABatchOfOffsets()
    {
        final AckTracker tracker = tracker(0, 128);
        registerRange(tracker, 0, 100);
        final long[] evens = new long[50];
        final long[] odds = new long[50];
        for (int i = 0; i < 50; i++)
        {
            evens[i] = 2L * i;
            odds[49 - i] = 2L * i + 1;
        }

        assertEquals(50, tracker.ackAll(evens, 0, 50, tracker.generation()));
        assertEquals(1, tracker.watermark());
        assertEquals(49, tracker.ackAll(odds, 0, 49, tracker.generation()), "descending order works too");
        assertEquals(1, tracker.watermark());
        assertEquals(1, tracker.ackAll(odds, 49, 50, tracker.generation()));
        assertEquals(100, tracker.watermark());
        assertEquals(0, tracker.invalidAcks());
    }

    @Test
    void shouldCountTheOffsetsOfABatchThatAreRejected()
    {
        final AckTracker tracker = tracker(0, 64);
        final int generation = tracker.generation();
        registerRange(tracker, 0, 20);
        ackAll(tracker, 3);

        // 3 is a duplicate, 5 appears twice, 200 is outside the window
        final long[] offsets = {1, 2, 3, 5, 5, 6, 200};
        assertEquals(4, tracker.ackAll(offsets, 0, offsets.length, generation));
        assertEquals(3, tracker.invalidAcks());

        assertEquals(0, tracker.ackAll(new long[]{7, 8, 9}, 0, 3, generation - 1));
        assertEquals(3, tracker.staleAcks());
        assertEquals(0, tracker.ackAll(offsets, 2, 2, generation), "an empty range acks nothing");
        assertThrows(IndexOutOfBoundsException.class, () -> tracker.ackAll(offsets, 5, 8, generation));
        assertThrows(IndexOutOfBoundsException.class, () -> tracker.ackAll(offsets, 3, 2, generation));

        ackAll(tracker, 0);
        assertEquals(4, tracker.watermark());
    }

    @Test
    void shouldRejectOffsetsThatDoNotIncrease()
    {
        final AckTracker tracker = tracker(10, 64);

        assertThrows(IllegalArgumentException.class, () -> tracker.tryRegister(9));
        registerAll(tracker, 12);
        assertThrows(IllegalArgumentException.class, () -> tracker.tryRegister(12));
        assertThrows(IllegalArgumentException.class, () -> tracker.tryRegister(11));
        assertThrows(IllegalArgumentException.class, () -> tracker.tryRegister(AckTracker.MAX_OFFSET + 1));
        assertThrows(IllegalArgumentException.class, () -> tracker.trySkipTo(AckTracker.MAX_OFFSET + 1));
        assertEquals(13, tracker.registeredEnd());
    }

    @Test
    void shouldValidateTheConstructorArguments()
    {
        for (final int capacity : new int[]{0, -64, 32, 63, 100, 1 << 27, Integer.MIN_VALUE})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new AckTracker("t", 0, 0, capacity));
            assertTrue(ex.getMessage().contains("windowCapacity"), ex.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new AckTracker("t", -1, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> new AckTracker("t", 0, -1, 64));
        assertThrows(NullPointerException.class, () -> new AckTracker(null, 0, 0, 64));
        assertThrows(NullPointerException.class, () -> new AckTracker("t", 0, 0, 64, null));
        assertEquals(AckTracker.MAX_WINDOW_CAPACITY, new AckTracker("t", 0, 0, AckTracker.MAX_WINDOW_CAPACITY)
            .windowCapacity());

        final AckTracker tracker = tracker(0, 64);
        assertThrows(IllegalArgumentException.class, () -> tracker.reset(-1));
        assertEquals(AckTracker.INITIAL_GENERATION, tracker.generation(), "a rejected reset changes nothing");
    }

    @Test
    void shouldTrackProgressWithTheInjectedClock()
    {
        final AckTracker tracker = tracker(0, 64);
        assertEquals(1_000, tracker.lastProgressNanos());
        assertEquals(0, tracker.stalledNanos(50_000), "nothing in flight is not a stall");

        clock.set(2_000);
        registerAll(tracker, 0, 1);
        assertEquals(0, tracker.stalledNanos(60_000), "an idle period before the first record is not a stall");
        assertEquals(1_000, tracker.lastProgressNanos(), "registering reads no clock");

        clock.set(5_000);
        assertEquals(0, tracker.watermark());
        assertEquals(5_000, tracker.lastProgressNanos(), "the stall clock starts when watermark() first sees work");
        clock.set(6_000);
        assertEquals(0, tracker.watermark());
        assertEquals(5_000, tracker.lastProgressNanos());
        assertEquals(3_000, tracker.stalledNanos(8_000));

        ackAll(tracker, 0);
        clock.set(9_000);
        assertEquals(1, tracker.watermark());
        assertEquals(9_000, tracker.lastProgressNanos());
        assertEquals(1_000, tracker.stalledNanos(10_000));

        ackAll(tracker, 1);
        clock.set(11_000);
        assertEquals(2, tracker.watermark());
        assertEquals(11_000, tracker.lastProgressNanos());
        assertEquals(0, tracker.stalledNanos(12_000));

        clock.set(13_000);
        registerAll(tracker, 2);
        ackAll(tracker, 2);
        clock.set(14_000);
        assertEquals(3, tracker.watermark());
        assertEquals(14_000, tracker.lastProgressNanos(), "one clock read per advancing watermark() call");

        clock.set(20_000);
        tracker.reset(2);
        assertEquals(20_000, tracker.lastProgressNanos());
    }

    @Test
    void shouldReportThePendingOldestOffsetAndTheOffsetsInFlight()
    {
        final AckTracker tracker = tracker(10, 64);
        registerRange(tracker, 10, 15);
        ackAll(tracker, 10, 12);

        assertEquals(11, tracker.watermark());
        assertEquals(11, tracker.pendingOldestOffset());
        assertEquals(4, tracker.inFlight());
        assertEquals(15, tracker.registeredEnd());
    }

    @Test
    void shouldSkipToTheConsumerPosition()
    {
        final AckTracker tracker = tracker(0, 64);
        registerAll(tracker, 0);

        assertEquals(REGISTERED, tracker.trySkipTo(3));
        assertEquals(3, tracker.registeredEnd());
        assertEquals(0, tracker.watermark());
        ackAll(tracker, 0);
        assertEquals(3, tracker.watermark());

        assertEquals(REGISTERED, tracker.trySkipTo(2), "a position at or below the end changes nothing");
        assertThrows(IllegalArgumentException.class, () -> tracker.tryRegister(2));
        registerAll(tracker, 3);
        assertEquals(WINDOW_FULL, tracker.trySkipTo(500));
        ackAll(tracker, 3);
        assertEquals(REGISTERED, tracker.trySkipTo(500));
        assertEquals(500, tracker.watermark());
        assertEquals(500, tracker.registeredEnd());
        registerAll(tracker, 500);
        ackAll(tracker, 500);
        assertEquals(501, tracker.watermark());
    }

    /**
     * Case S1, skip: offsets 0-3 are click, view, purchase, click; purchase matches no branch and is dropped as a
     * success, so the committed offset becomes 4.
     */
    @Test
    void shouldCommitPastAnUnmatchedRecordThatIsSkipped()
    {
        final AckTracker tracker = tracker(0, 65536);
        registerRange(tracker, 0, 4);

        ackAll(tracker, 2); // dropped, reason unrouted: released as success
        ackAll(tracker, 1); // views
        ackAll(tracker, 0, 3); // clicks

        assertEquals(4, tracker.watermark());
        assertFalse(tracker.failed());
    }

    /**
     * Case S1, fail: offset 2 matches no branch under the Fail policy; the committed offset never passes 2 even
     * though 0, 1 and 3 were written.
     */
    @Test
    void shouldNotCommitPastAnUnmatchedRecordThatFails()
    {
        final AckTracker tracker = tracker(0, 65536);
        registerRange(tracker, 0, 4);

        assertEquals(FAIL_RECORDED, tracker.fail(2, 1, "unrouted: no branch matched"));
        ackAll(tracker, 0, 1, 3);

        assertEquals(2, tracker.watermark());
        assertTrue(tracker.failed());
        assertEquals(2, tracker.failedOffset());
        assertEquals("unrouted: no branch matched", tracker.failureReason());
    }

    /**
     * Case S3: offsets 10-14; 10, 12, 14 go to table A, 11 and 13 to table B, whose first insert fails and is
     * retried. The committed offset stays at 11 (10 is written) until B's retry succeeds, then becomes 15. A failing
     * insert that is being retried is pending, not failed.
     */
    @Test
    void shouldHoldTheCommitUntilEveryTableHasTheRows()
    {
        final AckTracker tracker = tracker(10, 65536);
        registerRange(tracker, 10, 15);

        ackAll(tracker, 10, 12, 14); // table A
        for (int poll = 0; poll < 3; poll++)
        {
            assertEquals(11, tracker.watermark(), "table B's insert is being retried");
        }
        assertFalse(tracker.failed());

        ackAll(tracker, 11, 13); // table B's retry succeeded
        assertEquals(15, tracker.watermark());
    }
}
