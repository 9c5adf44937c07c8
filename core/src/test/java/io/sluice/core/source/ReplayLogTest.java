package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The replay log of file and stdin sources: order, wrap-around, trimming, back-pressure, too-large lines. */
class ReplayLogTest
{
    private static UnsafeBuffer text(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String at(final ReplayLog log, final long position)
    {
        return log.buffer().getStringWithoutLengthUtf8(log.bytesIndex(position), log.length(position));
    }

    @Test
    void shouldKeepLinesInOrderAcrossWrapAroundsAgainstAModel()
    {
        final Random random = new Random(7);
        final ReplayLog log = new ReplayLog(1024);
        final Deque<String> model = new ArrayDeque<>();
        final Deque<Long> lines = new ArrayDeque<>();
        long next = 0;
        for (int step = 0; step < 100_000; step++)
        {
            if (random.nextInt(3) > 0)
            {
                final String s = "x".repeat(random.nextInt(200)) + next;
                if (log.tryAppend(next, text(s), 0, s.length()))
                {
                    model.addLast(s);
                    lines.addLast(next);
                }
                else
                {
                    assertTrue(log.usedBytes() + 2L * ReplayLog.recordSize(s.length()) > 1024, "refused with room");
                }
                next += 1 + random.nextInt(2);
            }
            else if (!lines.isEmpty())
            {
                final long upTo = lines.peekFirst() + random.nextInt(4);
                log.trimBefore(upTo);
                while (!lines.isEmpty() && lines.peekFirst() < upTo)
                {
                    lines.removeFirst();
                    model.removeFirst();
                }
            }
            assertEquals(model.size(), log.records());
            long p = log.first();
            for (final String expected : model)
            {
                assertEquals(expected, at(log, p));
                p = log.next(p);
            }
            assertEquals(log.tail(), p);
        }
    }

    /**
     * A reader that caught up holds the old tail; the next append may pad to the end of the buffer and start at index 0.
     * The reader must find that record, not the padding (a file source read 64 MiB, one replay buffer, and then
     * published a padding header as line -1).
     */
    @Test
    void shouldLeadAReaderHoldingTheOldTailPastPaddingWrittenSince()
    {
        final Random random = new Random(11);
        final ReplayLog log = new ReplayLog(1024);
        long cursor = log.tail();
        long next = 0;
        long read = 0;
        int wraps = 0;
        for (int step = 0; step < 20_000; step++)
        {
            final String s = "y".repeat(random.nextInt(300)) + next;
            final long tailBefore = log.tail();
            if (log.tryAppend(next, text(s), 0, s.length()))
            {
                wraps += log.tail() - tailBefore > ReplayLog.recordSize(s.length()) ? 1 : 0;
                // the reader: caught up before the append, reads exactly the new record
                cursor = log.recordAt(cursor);
                assertEquals(next, log.line(cursor), "step " + step);
                assertEquals(s, at(log, cursor));
                cursor = log.next(cursor);
                assertEquals(log.tail(), cursor);
                read++;
                next++;
            }
            log.trimBefore(next - random.nextInt(3));
        }
        assertTrue(wraps > 100, "padded appends: " + wraps);
        assertEquals(next, read);
    }

    @Test
    void shouldRefuseWhenFullAndAcceptAfterTrimming()
    {
        final ReplayLog log = new ReplayLog(256);
        int appended = 0;
        while (log.tryAppend(appended, text("0123456789"), 0, 10))
        {
            appended++;
        }
        assertEquals(256 / ReplayLog.recordSize(10), appended);
        log.trimBefore(1);
        assertTrue(log.tryAppend(appended, text("0123456789"), 0, 10));
        assertFalse(log.tryAppend(appended + 1, text("0123456789"), 0, 10));
    }

    @Test
    void shouldKeepOnlyTheSizeOfALineTooLargeToKeep()
    {
        final ReplayLog log = new ReplayLog(256);
        assertTrue(log.tryAppendTooLarge(5, 9_000_000));
        assertEquals(5, log.line(log.first()));
        assertEquals(0, log.length(log.first()));
        assertEquals(9_000_000, log.tooLargeBytes(log.first()));
        assertFalse(log.tryAppend(6, new UnsafeBuffer(new byte[200]), 0, 200),
            "a record above half the log never fits");
    }
}
