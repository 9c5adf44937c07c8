package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;

/**
 * Case T8's rule on the tracker alone: offsets 0-4 go to tables A, B, A, B, A; B fails. The re-read from the
 * watermark (1) sends 1 and 3 again and acknowledges 2 and 4 without sending them; offset 0 is below the watermark.
 */
class RereadFilterTest
{
    @Test
    void shouldNotSendAgainWhatWasWrittenAboveTheWatermark()
    {
        final AckTracker t = new AckTracker("t", 0, 0, 64);
        for (long o = 0; o < 5; o++)
        {
            assertEquals(AckTracker.REGISTERED, t.tryRegister(o));
        }
        final int g = t.generation();
        t.ack(0, g);
        t.ack(2, g);
        t.ack(4, g);
        t.fail(1, g, 60, "table B does not exist");
        t.fail(3, g, 60, "table B does not exist");
        final long wm = t.watermark();
        assertEquals(1, wm);
        assertTrue(t.isDone(0));
        assertFalse(t.isDone(1));
        assertTrue(t.isDone(2));
        assertFalse(t.isDone(3));
        assertTrue(t.isDone(4));
        assertFalse(t.isDone(5), "beyond the registered end nothing is done");

        final RereadFilter f = new RereadFilter();
        assertEquals(2, f.capture(t, wm), "offsets 2 and 4 are written");
        assertEquals(5, f.capturedEnd());
        t.reset(wm);
        assertTrue(f.active());
        assertFalse(f.written(1));
        assertTrue(f.written(2));
        assertFalse(f.written(3));
        assertTrue(f.written(4));
        assertFalse(f.written(5), "past the captured range: sent as usual");
        assertFalse(f.active(), "the filter empties itself once the re-read passed it");
    }

    @Test
    void shouldTreatGapsAsWrittenAndKeepItsBitmapWhenCapturingAgain()
    {
        final AckTracker t = new AckTracker("t", 0, 10, 64);
        assertEquals(AckTracker.REGISTERED, t.tryRegister(12));
        assertEquals(AckTracker.REGISTERED, t.tryRegister(13));
        assertEquals(AckTracker.REGISTERED, t.trySkipTo(16));
        final int g = t.generation();
        t.fail(12, g, 1, "x");
        t.ack(13, g);
        final long wm = t.watermark();
        assertEquals(12, wm, "10 and 11 are gaps");
        final RereadFilter f = new RereadFilter();
        assertEquals(3, f.capture(t, wm), "13 written, 14 and 15 gaps (markers)");
        assertFalse(f.written(12));
        assertTrue(f.written(13));
        t.reset(wm);
        assertEquals(3, f.capture(t, wm), "nothing registered in the new generation yet: the last range still holds");
        assertTrue(f.active());
        assertFalse(f.written(12));
        assertTrue(f.written(13));
        assertFalse(f.written(16));
        assertFalse(f.active());
    }

    /**
     * The failure comes back before the re-read has passed what the last capture found written (a short
     * {@code linger_ms}: the failed record's batch is refused again while the source still walks a long range).
     * The next capture still knows the offsets of that range the re-read did not reach: nothing of it is sent a
     * second time (issue 12, item 2: before, every such re-read re-inserted them).
     */
    @Test
    void shouldKeepWhatTheLastCaptureFoundWrittenWhenTheReReadFailsBeforePassingIt()
    {
        final AckTracker t = new AckTracker("t", 0, 0, 64);
        for (long o = 0; o < 10; o++)
        {
            assertEquals(AckTracker.REGISTERED, t.tryRegister(o));
        }
        int g = t.generation();
        for (long o = 0; o < 10; o++)
        {
            if (o % 3 == 1)
            {
                t.fail(o, g, 60, "table B does not exist"); // 1, 4, 7 go to B
            }
            else
            {
                t.ack(o, g);
            }
        }
        assertEquals(1, t.watermark());
        final RereadFilter f = new RereadFilter();
        assertEquals(6, f.capture(t, 1), "2, 3, 5, 6, 8, 9");
        t.reset(1);

        // the re-read: 1 sent again, 2 and 3 acknowledged at once, 4 sent again; then 1 fails again
        g = t.generation();
        for (long o = 1; o <= 4; o++)
        {
            assertEquals(AckTracker.REGISTERED, t.tryRegister(o));
            if (f.written(o))
            {
                t.ack(o, g);
            }
        }
        t.fail(1, g, 60, "table B does not exist");
        t.fail(4, g, 60, "table B does not exist");
        assertEquals(1, t.watermark());

        assertEquals(6, f.capture(t, 1), "2 and 3 from the tracker, 5, 6, 8 and 9 from the last capture");
        assertEquals(10, f.capturedEnd());
        t.reset(1);
        final StringBuilder sent = new StringBuilder();
        for (long o = 1; o < 12; o++)
        {
            if (!f.written(o))
            {
                sent.append(o).append(' ');
            }
        }
        assertEquals("1 4 7 10 11 ", sent.toString(), "sent again: B's records, then what is new");
        assertFalse(f.active());
    }

    @Test
    void shouldForgetTheLastRangeOnClear()
    {
        final AckTracker t = new AckTracker("t", 0, 0, 64);
        assertEquals(AckTracker.REGISTERED, t.tryRegister(0));
        assertEquals(AckTracker.REGISTERED, t.tryRegister(1));
        t.fail(0, t.generation(), 60, "x");
        t.ack(1, t.generation());
        final RereadFilter f = new RereadFilter();
        assertEquals(1, f.capture(t, 0));
        f.clear();
        t.reset(0);
        assertEquals(0, f.capture(t, 0), "a reassignment starts over: nothing carried");
        assertFalse(f.written(1));
    }
}
