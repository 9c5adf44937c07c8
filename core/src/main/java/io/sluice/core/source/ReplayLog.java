package io.sluice.core.source;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The lines a file or stdin source has read but Kafka has not yet acknowledged, kept off-heap so a nacked batch can be
 * replayed from the failed line (stdin cannot seek, and a gzip file cannot either). A bounded circular log of
 * records appended in line order and trimmed from the front as the watermark advances.
 *
 * <p>Layout, at 8-byte aligned positions: {@code [long line][int length][int tooLargeBytes][length bytes]}, padded to
 * 8 bytes. A record never wraps: when it does not fit before the end of the buffer, the rest of the buffer is
 * padding (a header with line -1, or nothing when fewer than 16 bytes remain) and the record starts at index 0.
 * A line larger than {@code engine.max_record_bytes} is kept as a header with its size in {@code tooLargeBytes} and
 * no bytes, so that it fails again, with its size, when replayed.
 *
 * <p>Positions are byte counts since creation (they never wrap), so a reader can hold a position across appends.
 * Not thread-safe: owned by the source thread.
 */
public final class ReplayLog
{
    static final int HEADER = 16;
    private static final long PADDING = -1;

    private final UnsafeBuffer buffer;
    private final int capacity;
    private long head;
    private long tail;
    private int records;

    /** @param capacity bytes, rounded down to a multiple of 8, at least 64 */
    ReplayLog(final int capacity)
    {
        this.capacity = Math.max(64, capacity & ~7);
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(this.capacity, 64));
    }

    /**
     * @param length the record's length in bytes
     * @return the size of a record of {@code length} bytes in the log, header and alignment included
     */
    public static int recordSize(final int length)
    {
        return HEADER + ((length + 7) & ~7);
    }

    /**
     * Appends a line.
     *
     * @param line   the line's index in the input (0-based), above every line appended so far
     * @param src    its bytes
     * @param offset index of the first byte in {@code src}
     * @param length number of bytes
     * @return false when there is no room now (trim first); nothing was written
     */
    boolean tryAppend(final long line, final DirectBuffer src, final int offset, final int length)
    {
        final long at = reserve(recordSize(length));
        if (at < 0)
        {
            return false;
        }
        final int index = (int)(at % capacity);
        buffer.putLong(index, line);
        buffer.putInt(index + 8, length);
        buffer.putInt(index + 12, 0);
        buffer.putBytes(index + HEADER, src, offset, length);
        return true;
    }

    /**
     * Appends a line that is too large to keep: only its size is kept.
     *
     * @param line  the line's index
     * @param bytes its size
     * @return false when there is no room now
     */
    boolean tryAppendTooLarge(final long line, final int bytes)
    {
        final long at = reserve(HEADER);
        if (at < 0)
        {
            return false;
        }
        final int index = (int)(at % capacity);
        buffer.putLong(index, line);
        buffer.putInt(index + 8, 0);
        buffer.putInt(index + 12, Math.max(1, bytes));
        return true;
    }

    /** @return the position of the new record, or -1 when it does not fit */
    private long reserve(final int size)
    {
        if (size > capacity / 2)
        {
            return -1;
        }
        final int index = (int)(tail % capacity);
        final int toEnd = capacity - index;
        final long pad = toEnd < size ? toEnd : 0;
        if (tail + pad + size - head > capacity)
        {
            return -1;
        }
        if (pad > 0)
        {
            if (pad >= HEADER)
            {
                buffer.putLong(index, PADDING);
            }
            tail += pad;
        }
        final long at = tail;
        tail += size;
        records++;
        return at;
    }

    /** Drops every record of a line below {@code line} from the front. */
    void trimBefore(final long line)
    {
        while (head < tail)
        {
            final long at = skipPadding(head);
            if (at == tail)
            {
                head = at;
                return;
            }
            if (line(at) >= line)
            {
                head = at;
                return;
            }
            head = next(at);
            records--;
        }
    }

    /** @return the position of the first record (after any padding), or {@link #tail()} when empty */
    long first()
    {
        return skipPadding(head);
    }

    /** @return the position after the last record */
    long tail()
    {
        return tail;
    }

    /**
     * @param position a record's position
     * @return the position of the next record (after any padding), or {@link #tail()}
     */
    long next(final long position)
    {
        return skipPadding(position + recordSize(length(position)));
    }

    /** @return the line index of the record at {@code position} */
    long line(final long position)
    {
        return buffer.getLong((int)(position % capacity));
    }

    /** @return the byte length of the record at {@code position} (0 for a line too large to keep) */
    int length(final long position)
    {
        return buffer.getInt((int)(position % capacity) + 8);
    }

    /** @return the size of a line too large to keep, else 0 */
    int tooLargeBytes(final long position)
    {
        return buffer.getInt((int)(position % capacity) + 12);
    }

    /** @return the buffer holding the records' bytes */
    DirectBuffer buffer()
    {
        return buffer;
    }

    /** @return the index in {@link #buffer()} of the bytes of the record at {@code position} */
    int bytesIndex(final long position)
    {
        return (int)(position % capacity) + HEADER;
    }

    /** @return the number of records kept */
    int records()
    {
        return records;
    }

    /** @return bytes in use, padding included */
    long usedBytes()
    {
        return tail - head;
    }

    /** @return the capacity in bytes */
    int capacity()
    {
        return capacity;
    }

    /**
     * @param position a record's position, or a past {@link #tail()} (a reader that had caught up)
     * @return the position of the record there, after any padding written since; {@link #tail()} when none
     */
    long recordAt(final long position)
    {
        return skipPadding(position);
    }

    private long skipPadding(final long position)
    {
        if (position >= tail)
        {
            return tail;
        }
        final int index = (int)(position % capacity);
        final int toEnd = capacity - index;
        if (toEnd < HEADER || buffer.getLong(index) == PADDING)
        {
            return Math.min(tail, position + toEnd);
        }
        return position;
    }
}
