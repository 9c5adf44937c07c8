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
        assertEquals(0, f.capture(t, wm), "nothing registered in the new generation yet");
        assertFalse(f.active());
        assertFalse(f.written(13));
    }
}
