package io.sluice.codecs.json;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Byte-level helpers shared by the scanner, the cursor and the string decoder: word-at-a-time (SWAR) detection of
 * bytes that end a plain run inside a string, UTF-8 validation per RFC 3629, hex digits and escapes.
 *
 * <p>Stateless and thread-safe.
 */
final class JsonBytes
{
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == LE;

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    /** Returned by {@link #utf8SequenceLength} for a malformed sequence. */
    static final int UTF8_INVALID = -1;
    /** Returned by {@link #utf8SequenceLength} when the input ends inside a sequence. */
    static final int UTF8_TRUNCATED = -2;

    private JsonBytes()
    {
    }

    /**
     * Flags, in the high bit of each byte lane, the bytes of a little-endian word that need attention inside a string:
     * {@code "}, {@code \}, a control byte below 0x20, or a non-ASCII byte. The lowest flagged lane is exact; lanes
     * above it may be false positives (borrow propagation), so callers only use the lowest one.
     */
    static long specialMask(final long word)
    {
        // (x - 0x01..) sets a lane's high bit where x's byte is 0 (a quote or backslash) and also where it is above
        // 0x80; (word - 0x20..) where the byte is below 0x20 and also above 0xA0. Those extra lanes all hold a
        // non-ASCII byte, which "| word" flags anyway, so the usual "& ~x" terms are not needed.
        return (((word ^ QUOTES) - ONES) | ((word ^ BACKSLASHES) - ONES) | (word - SPACES) | word) & HIGHS;
    }

    /** Index of the first byte flagged by a non-zero {@link #specialMask}, relative to the word's first byte. */
    static int firstFlagged(final long mask)
    {
        return Long.numberOfTrailingZeros(mask) >>> 3;
    }

    /**
     * Skips bytes that need no attention inside a string (printable ASCII other than {@code "} and {@code \}),
     * sixteen at a time where possible (two words per step, read without Agrona's per-access bounds checks once
     * {@code end} is known to lie within the buffer).
     *
     * @return the index of the first byte at or after {@code index} that needs attention, or {@code end}.
     */
    static int skipPlain(final DirectBuffer buffer, final int index, final int end)
    {
        int i = index;
        if (end <= buffer.capacity() && index >= 0)
        {
            final byte[] array = buffer.byteArray();
            final long address = buffer.addressOffset();
            while (i + 16 <= end)
            {
                final long a = specialMask(word(array, address + i));
                final long b = specialMask(word(array, address + i + 8));
                if ((a | b) != 0)
                {
                    return a != 0 ? i + firstFlagged(a) : i + 8 + firstFlagged(b);
                }
                i += 16;
            }
        }
        final int wordsEnd = end - 8;
        while (i <= wordsEnd)
        {
            final long mask = specialMask(buffer.getLong(i, LE));
            if (mask != 0)
            {
                return i + firstFlagged(mask);
            }
            i += 8;
        }
        while (i < end)
        {
            final int c = buffer.getByte(i) & 0xff;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            {
                return i;
            }
            i++;
        }
        return end;
    }

    /** The 8 bytes at {@code address} of {@code array} (null: off-heap) as a little-endian word. */
    private static long word(final byte[] array, final long address)
    {
        final long w = UnsafeApi.getLong(array, address);
        return NATIVE_LE ? w : Long.reverseBytes(w);
    }

    /**
     * Validates one multi-byte UTF-8 sequence starting with {@code lead} (already read, {@code >= 0x80}) at
     * {@code index}, by the table of well-formed sequences in RFC 3629 section 4 (Unicode table 3-7).
     *
     * @return the sequence length 2..4, {@link #UTF8_INVALID} or {@link #UTF8_TRUNCATED}.
     */
    static int utf8SequenceLength(final DirectBuffer buffer, final int index, final int end, final int lead)
    {
        final int length;
        int lo = 0x80;
        int hi = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF)
        {
            length = 2;
        }
        else if (lead >= 0xE0 && lead <= 0xEF)
        {
            length = 3;
            if (lead == 0xE0)
            {
                lo = 0xA0;
            }
            else if (lead == 0xED)
            {
                hi = 0x9F;
            }
        }
        else if (lead >= 0xF0 && lead <= 0xF4)
        {
            length = 4;
            if (lead == 0xF0)
            {
                lo = 0x90;
            }
            else if (lead == 0xF4)
            {
                hi = 0x8F;
            }
        }
        else
        {
            return UTF8_INVALID;
        }

        for (int k = 1; k < length; k++)
        {
            if (index + k >= end)
            {
                return UTF8_TRUNCATED;
            }
            final int c = buffer.getByte(index + k) & 0xff;
            if (c < lo || c > hi)
            {
                return UTF8_INVALID;
            }
            lo = 0x80;
            hi = 0xBF;
        }
        return length;
    }

    /** The value of an ASCII hex digit, or -1. */
    static int hexValue(final int c)
    {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        final int lower = c | 0x20;
        if (lower >= 'a' && lower <= 'f')
        {
            return lower - 'a' + 10;
        }
        return -1;
    }

    /**
     * Reads the four hex digits of a {@code \}{@code u} escape whose backslash is at {@code index}.
     *
     * @return the UTF-16 code unit, {@code -1} for a bad digit, {@code -2} if the input ends first.
     */
    static int readUnicodeEscape(final DirectBuffer buffer, final int index, final int end)
    {
        if (index + 6 > end)
        {
            for (int k = index + 2; k < end; k++)
            {
                if (hexValue(buffer.getByte(k)) < 0)
                {
                    return -1;
                }
            }
            return -2;
        }
        int unit = 0;
        for (int k = index + 2; k < index + 6; k++)
        {
            final int h = hexValue(buffer.getByte(k));
            if (h < 0)
            {
                return -1;
            }
            unit = (unit << 4) | h;
        }
        return unit;
    }

    /** The byte a simple (non-{@code u}) escape letter stands for, or -1 if the letter is not a JSON escape. */
    static int simpleEscape(final int letter)
    {
        switch (letter)
        {
            case '"' :
                return '"';
            case '\\' :
                return '\\';
            case '/' :
                return '/';
            case 'b' :
                return '\b';
            case 'f' :
                return '\f';
            case 'n' :
                return '\n';
            case 'r' :
                return '\r';
            case 't' :
                return '\t';
            default :
                return -1;
        }
    }

    /**
     * Decodes the escape whose backslash is at {@code index}, pairing a high-surrogate {@code \}{@code u} escape with
     * the low-surrogate escape that must follow it.
     *
     * @return the code point (0..0x10FFFF, never a surrogate) or a negative {@link JsonError} code:
     *     {@link JsonError#TRUNCATED}, {@link JsonError#BAD_ESCAPE} or {@link JsonError#LONE_SURROGATE}. The raw length
     *     of a successful escape is {@link #escapeLength}.
     * @param endsString true if {@code end} is the end of the string's contents (a high surrogate there is lone),
     *                   false if it is the end of the document (a high surrogate there is truncated).
     */
    static int decodeEscape(final DirectBuffer buffer, final int index, final int end, final boolean endsString)
    {
        if (index + 1 >= end)
        {
            return JsonError.TRUNCATED;
        }
        final int letter = buffer.getByte(index + 1);
        if (letter != 'u')
        {
            final int simple = simpleEscape(letter);
            return simple >= 0 ? simple : JsonError.BAD_ESCAPE;
        }
        final int high = readUnicodeEscape(buffer, index, end);
        if (high < 0)
        {
            return high == -1 ? JsonError.BAD_ESCAPE : JsonError.TRUNCATED;
        }
        if (high < 0xD800 || high > 0xDFFF)
        {
            return high;
        }
        if (high >= 0xDC00)
        {
            return JsonError.LONE_SURROGATE;
        }
        final int next = index + 6;
        if (next >= end && endsString)
        {
            return JsonError.LONE_SURROGATE;
        }
        if (next >= end || (next + 1 >= end && buffer.getByte(next) == '\\'))
        {
            return JsonError.TRUNCATED;
        }
        if (buffer.getByte(next) != '\\' || buffer.getByte(next + 1) != 'u')
        {
            return JsonError.LONE_SURROGATE;
        }
        final int low = readUnicodeEscape(buffer, next, end);
        if (low < 0)
        {
            return low == -1 ? JsonError.BAD_ESCAPE : JsonError.TRUNCATED;
        }
        if (low < 0xDC00 || low > 0xDFFF)
        {
            return JsonError.LONE_SURROGATE;
        }
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    }

    /** Raw length of an escape at {@code index} that {@link #decodeEscape} decoded to {@code codePoint}. */
    static int escapeLength(final DirectBuffer buffer, final int index, final int codePoint)
    {
        if (buffer.getByte(index + 1) != 'u')
        {
            return 2;
        }
        return codePoint >= 0x10000 ? 12 : 6;
    }

    static boolean isWhitespace(final int c)
    {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    /** A byte that may follow a number or literal: whitespace, a comma or a closing bracket. */
    static boolean isDelimiter(final int c)
    {
        return c == ',' || c == '}' || c == ']' || isWhitespace(c);
    }
}
