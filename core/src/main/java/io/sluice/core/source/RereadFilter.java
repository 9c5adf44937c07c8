package io.sluice.core.source;

import java.util.Arrays;

import io.sluice.core.ack.AckTracker;

/**
 * What a re-read need not send again: when a partition (or the lines of a file source) is read again from its
 * watermark after a failure, the records above the watermark that were already durably written (acknowledged in the
 * tracker before its reset) are registered and acknowledged at once instead of being published, so each row is
 * written once (issue 12, case T8: a stalled table's re-read must not re-insert the healthy tables' rows). Only the
 * records that failed, or were still unacknowledged, go through the stages again.
 *
 * <p>{@link #capture} takes the tracker's done flags of {@code [watermark, registeredEnd)} just before the reset (when
 * everything published of the partition has settled, so the flags are final); {@link #written} answers per offset
 * while the re-read passes that range, and the filter empties itself once it is passed.
 *
 * <p>Thread-safety: the source thread only. Allocates only in {@link #capture} (two bitmaps of the range, the last
 * capture's and the new one, reused).
 */
final class RereadFilter
{
    private long from;
    private long to;
    private long end;
    private long[] bits = new long[0];
    /** The bitmap before the last capture, reused by the next one. */
    private long[] spare = new long[0];
    private long written;

    /**
     * Takes which offsets of {@code [watermark, tracker.registeredEnd())} are done. When the last capture's range is
     * not passed yet (the failure came back while the re-read was still inside it), its offsets at or beyond
     * {@code tracker.registeredEnd()} keep what that capture found: the tracker, reset since, knows only the offsets
     * the re-read reached, and a durably written row stays written.
     *
     * @param tracker   the partition's tracker, before its reset
     * @param watermark its watermark (the re-read starts here)
     * @return how many offsets of the range are done (and will not be sent again)
     */
    long capture(final AckTracker tracker, final long watermark)
    {
        final long registered = Math.max(watermark, tracker.registeredEnd());
        final boolean carry = active();
        final long lastFrom = from;
        final long lastTo = to;
        final long[] last = bits;
        final long newTo = carry ? Math.max(registered, lastTo) : registered;
        final int words = (int)((newTo - watermark + 63) >>> 6);
        long[] next = spare;
        if (next.length < words)
        {
            next = new long[Math.max(words, last.length)];
        }
        else
        {
            Arrays.fill(next, 0, words, 0L);
        }
        long n = 0;
        for (long o = watermark; o < registered; o++)
        {
            if (tracker.isDone(o))
            {
                final long i = o - watermark;
                next[(int)(i >>> 6)] |= 1L << (int)(i & 63);
                n++;
            }
        }
        for (long o = Math.max(registered, lastFrom); o < newTo; o++)
        {
            final long j = o - lastFrom;
            if ((last[(int)(j >>> 6)] & (1L << (int)(j & 63))) != 0)
            {
                final long i = o - watermark;
                next[(int)(i >>> 6)] |= 1L << (int)(i & 63);
                n++;
            }
        }
        spare = last;
        bits = next;
        from = watermark;
        to = n == 0 ? watermark : newTo;
        end = newTo;
        written = n;
        return n;
    }

    /**
     * @param offset an offset the re-read reached (offsets come in increasing order)
     * @return true when its record was written before the re-read: acknowledge it, do not send it again
     */
    boolean written(final long offset)
    {
        if (offset >= to)
        {
            to = from;
            return false;
        }
        if (offset < from)
        {
            return false;
        }
        final long i = offset - from;
        return (bits[(int)(i >>> 6)] & (1L << (int)(i & 63))) != 0;
    }

    /** @return whether a captured range is still ahead of the re-read */
    boolean active()
    {
        return to > from;
    }

    /** @return the offsets the last capture found written */
    long capturedWritten()
    {
        return written;
    }

    /** @return the end of the last captured range, exclusive */
    long capturedEnd()
    {
        return end;
    }

    /** Forgets the range (a reassignment: the partition starts over from its committed offset). */
    void clear()
    {
        to = from;
    }
}
