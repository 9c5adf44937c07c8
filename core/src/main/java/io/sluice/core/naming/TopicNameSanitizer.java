package io.sluice.core.naming;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Sanitising: turns a rendered routing template into a topic name that Kafka accepts, or reports it as missing.
 *
 * <p>The rules, applied in this order to the UTF-8 bytes of the rendered name:
 * <ol>
 *   <li><b>Trim</b> surrounding whitespace. Whitespace is exactly the 25 code points with the Unicode
 *       {@code White_Space} property: ASCII space, {@code \t}, {@code \n}, {@code \u000B}, {@code \f}, {@code \r},
 *       U+0085, U+00A0 (no-break space), U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F and U+3000
 *       (ideographic space); see {@link #isWhitespace(int)}. Zero-width characters such as U+200B and U+FEFF
 *       are not whitespace and become {@code _} like any other character.</li>
 *   <li><b>Keep</b> ASCII letters, ASCII digits, {@code .}, {@code _} and {@code -}: the legal characters of
 *       Kafka's {@code org.apache.kafka.common.internals.Topic.validate} ({@code [a-zA-Z0-9._-]}, checked there
 *       by ASCII range, so non-ASCII letters are not legal).</li>
 *   <li><b>Replace</b> anything else with one {@code _} per Unicode code point: a multi-byte UTF-8 sequence
 *       (é, €, an emoji) becomes a single {@code _}. Every byte that is not part of a well-formed UTF-8 sequence
 *       (Unicode Standard, table 3-7: stray continuation bytes, truncated sequences, overlong forms, encoded
 *       surrogates, values above U+10FFFF, bytes 0xC0, 0xC1, 0xF5 to 0xFF) becomes one {@code _} per byte.</li>
 *   <li><b>Cut</b> at {@value #MAX_LENGTH} characters, Kafka's limit on a topic name's length
 *       ({@code Topic.validate}), counted after replacement.</li>
 *   <li><b>Missing</b>: an empty result, and the names {@code .} and {@code ..} that {@code Topic.validate}
 *       rejects, are reported as {@link #MISSING}. Any other result passes {@code Topic.validate}.</li>
 * </ol>
 *
 * <p>Names that differ only in {@code .} versus {@code _} are legal but make Kafka's metric names collide;
 * {@link #collidesInMetrics(String, String)} tells a tool when two names do.
 *
 * <p>Stateless and thread-safe. The buffer methods never allocate.
 */
public final class TopicNameSanitizer
{
    /**
     * Returned instead of a length when the sanitised name is empty, {@code .} or {@code ..}; accepted as a
     * {@code length} by {@link #sanitize(DirectBuffer, int, int, MutableDirectBuffer, int)} so that a missing
     * rendering stays missing.
     */
    public static final int MISSING = -1;

    /** Longest legal Kafka topic name, in characters (and bytes, since a sanitised name is ASCII). */
    public static final int MAX_LENGTH = 249;

    private static final byte REPLACEMENT = '_';
    private static final boolean[] LEGAL_ASCII = new boolean[128];

    static
    {
        for (int c = 'a'; c <= 'z'; c++)
        {
            LEGAL_ASCII[c] = true;
        }
        for (int c = 'A'; c <= 'Z'; c++)
        {
            LEGAL_ASCII[c] = true;
        }
        for (int c = '0'; c <= '9'; c++)
        {
            LEGAL_ASCII[c] = true;
        }
        LEGAL_ASCII['.'] = true;
        LEGAL_ASCII['_'] = true;
        LEGAL_ASCII['-'] = true;
    }

    private TopicNameSanitizer()
    {
    }

    /**
     * Sanitises the UTF-8 bytes {@code src[offset, offset + length)} into a topic name written as ASCII bytes at
     * {@code dst[dstOffset, dstOffset + result)}.
     *
     * <p>{@code dst} must have room for {@code min(length, MAX_LENGTH)} bytes from {@code dstOffset}: every
     * output byte consumes at least one input byte. For the same reason sanitising in place is allowed when
     * {@code dst} is {@code src} and {@code dstOffset <= offset}: a write never overtakes a read.
     * Bytes of {@code dst} beyond the returned length are left as they were.
     *
     * <p>Zero allocation; thread-safe as long as no other thread writes the same buffer regions.
     *
     * @param src       the rendered name, UTF-8 (invalid sequences are tolerated as described on the class).
     * @param offset    index of the first byte in {@code src}.
     * @param length    number of bytes, or {@link #MISSING} (the result is then {@link #MISSING}, so a
     *                  missing rendering from {@link RoutingTemplate#render} can be passed straight through).
     * @param dst       where the sanitised name is written.
     * @param dstOffset index in {@code dst} of the first byte written.
     * @return the length of the sanitised name in bytes, 1 to {@value #MAX_LENGTH}, or {@link #MISSING} when it
     *         is empty, {@code .} or {@code ..}.
     * @throws IllegalArgumentException if {@code length} is negative and not {@link #MISSING}.
     * @throws IndexOutOfBoundsException if a range falls outside a buffer (when Agrona's bounds checks are on).
     */
    public static int sanitize(
        final DirectBuffer src, final int offset, final int length, final MutableDirectBuffer dst, final int dstOffset)
    {
        if (length < 0)
        {
            if (length == MISSING)
            {
                return MISSING;
            }
            throw new IllegalArgumentException("length must be >= 0 or MISSING: " + length);
        }

        final int start = trimStart(src, offset, offset + length);
        final int end = trimEnd(src, start, offset + length);
        final boolean[] legal = LEGAL_ASCII;

        int out = 0;
        int i = start;
        while (i < end && out < MAX_LENGTH)
        {
            final byte b = src.getByte(i);
            if (b >= 0)
            {
                dst.putByte(dstOffset + out, legal[b] ? b : REPLACEMENT);
                i++;
            }
            else
            {
                final int sequenceLength = wellFormedLength(src, i, end);
                dst.putByte(dstOffset + out, REPLACEMENT);
                i += sequenceLength == 0 ? 1 : sequenceLength;
            }
            out++;
        }

        if (out == 0 || (out <= 2 && isDots(dst, dstOffset, out)))
        {
            return MISSING;
        }
        return out;
    }

    /**
     * Sanitises a rendered name given as a String, by the same rules as the buffer method (the String is encoded
     * as UTF-8 first, so an unpaired surrogate counts as one code point and becomes one {@code _}).
     * Allocates; meant for tools, tests and configuration checks, not the hot path. Thread-safe.
     *
     * @param value the rendered name, or null.
     * @return the sanitised topic name, or null when {@code value} is null or the name is missing
     *         (empty, {@code .} or {@code ..} after sanitising).
     */
    public static String sanitize(final String value)
    {
        if (value == null || value.isEmpty())
        {
            return null;
        }
        final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        final byte[] out = new byte[Math.min(utf8.length, MAX_LENGTH)];
        final int length = sanitize(new UnsafeBuffer(utf8), 0, utf8.length, new UnsafeBuffer(out), 0);
        return length == MISSING ? null : new String(out, 0, length, StandardCharsets.US_ASCII);
    }

    /**
     * Whether a value is blank: empty, or only whitespace in the sense of {@link #isWhitespace(int)}.
     * A blank value is a missing value; {@link RoutingTemplate#render} reports it as {@link #MISSING}.
     * Zero allocation, thread-safe.
     *
     * @param src    the value, UTF-8.
     * @param offset index of its first byte.
     * @param length its length in bytes, at least zero.
     * @return true if the range holds nothing but whitespace.
     */
    public static boolean isBlank(final DirectBuffer src, final int offset, final int length)
    {
        return trimStart(src, offset, offset + length) == offset + length;
    }

    /**
     * Whether a String is null, empty, or only whitespace in the sense of {@link #isWhitespace(int)}.
     * Thread-safe.
     *
     * @param value the value, or null.
     * @return true if null or blank.
     */
    public static boolean isBlank(final String value)
    {
        return value == null || trim(value).isEmpty();
    }

    /**
     * Whether a code point is whitespace for trimming: exactly the Unicode {@code White_Space} property
     * (U+0009 to U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F,
     * U+3000). Unlike {@link Character#isWhitespace(int)} this includes the no-break spaces and excludes the
     * information separators U+001C to U+001F. Thread-safe.
     *
     * @param codePoint a Unicode code point.
     * @return true if it is trimmed from the ends of a name.
     */
    public static boolean isWhitespace(final int codePoint)
    {
        if (codePoint <= 0x20)
        {
            return codePoint == 0x20 || (codePoint >= 0x09 && codePoint <= 0x0D);
        }
        switch (codePoint)
        {
            case 0x85 :
            case 0xA0 :
            case 0x1680 :
            case 0x2028 :
            case 0x2029 :
            case 0x202F :
            case 0x205F :
            case 0x3000 :
                return true;
            default :
                return codePoint >= 0x2000 && codePoint <= 0x200A;
        }
    }

    /**
     * Whether two topic names are different but collide in Kafka's metric names, where {@code .} and {@code _}
     * are the same character (Kafka's {@code Topic.hasCollision}; Kafka 4 refuses to create a topic that collides
     * with an existing one; unlike it, this returns false for two equal names). Zero allocation, thread-safe.
     *
     * @param a a topic name, not null.
     * @param b another topic name, not null.
     * @return true if {@code a} and {@code b} differ but are equal once every {@code .} is read as {@code _}.
     * @throws NullPointerException if either name is null.
     */
    public static boolean collidesInMetrics(final String a, final String b)
    {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        if (a.length() != b.length() || a.equals(b))
        {
            return false;
        }
        for (int i = 0; i < a.length(); i++)
        {
            final char ca = a.charAt(i);
            final char cb = b.charAt(i);
            if (ca != cb && !(isDotOrUnderscore(ca) && isDotOrUnderscore(cb)))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code value} without surrounding whitespace code points (see {@link #isWhitespace(int)}).
     */
    static String trim(final String value)
    {
        int start = 0;
        int end = value.length();
        while (start < end && isWhitespace(value.codePointAt(start)))
        {
            start += Character.charCount(value.codePointAt(start));
        }
        while (end > start && isWhitespace(value.codePointBefore(end)))
        {
            end -= Character.charCount(value.codePointBefore(end));
        }
        return value.substring(start, end);
    }

    /**
     * Index of the first byte in {@code [start, end)} that does not begin a whitespace code point.
     */
    static int trimStart(final DirectBuffer buffer, final int start, final int end)
    {
        int i = start;
        while (i < end)
        {
            final int whitespaceLength = whitespaceLengthAt(buffer, i, end);
            if (whitespaceLength == 0)
            {
                break;
            }
            i += whitespaceLength;
        }
        return i;
    }

    /**
     * End (exclusive) of {@code [start, end)} once trailing whitespace code points are removed.
     */
    static int trimEnd(final DirectBuffer buffer, final int start, final int end)
    {
        int e = end;
        while (e > start)
        {
            final int whitespaceLength = whitespaceLengthBefore(buffer, start, e);
            if (whitespaceLength == 0)
            {
                break;
            }
            e -= whitespaceLength;
        }
        return e;
    }

    /**
     * Length in bytes (1 to 3) of the whitespace code point starting at {@code i}, or 0 if none starts there.
     * The UTF-8 forms: 09 to 0D, 20; C2 85, C2 A0; E1 9A 80; E2 80 80 to E2 80 8A, E2 80 A8, E2 80 A9, E2 80 AF,
     * E2 81 9F; E3 80 80. A lead byte is never a continuation byte, so a match here is also where a forward
     * UTF-8 decode of the whole range would see this code point start.
     */
    private static int whitespaceLengthAt(final DirectBuffer buffer, final int i, final int end)
    {
        final int b0 = buffer.getByte(i) & 0xFF;
        if (b0 < 0x80)
        {
            return b0 == 0x20 || (b0 >= 0x09 && b0 <= 0x0D) ? 1 : 0;
        }
        if (b0 == 0xC2)
        {
            if (i + 1 < end)
            {
                final int b1 = buffer.getByte(i + 1) & 0xFF;
                return b1 == 0x85 || b1 == 0xA0 ? 2 : 0;
            }
            return 0;
        }
        if (b0 < 0xE1 || b0 > 0xE3 || i + 2 >= end)
        {
            return 0;
        }
        final int b1 = buffer.getByte(i + 1) & 0xFF;
        final int b2 = buffer.getByte(i + 2) & 0xFF;
        final boolean whitespace;
        if (b0 == 0xE1)
        {
            whitespace = b1 == 0x9A && b2 == 0x80;
        }
        else if (b0 == 0xE2)
        {
            whitespace = (b1 == 0x80 && ((b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF)) ||
                (b1 == 0x81 && b2 == 0x9F);
        }
        else
        {
            whitespace = b1 == 0x80 && b2 == 0x80;
        }
        return whitespace ? 3 : 0;
    }

    /**
     * Length in bytes (1 to 3) of the whitespace code point that ends just before {@code end}, or 0.
     */
    private static int whitespaceLengthBefore(final DirectBuffer buffer, final int start, final int end)
    {
        for (int n = 1; n <= 3 && end - n >= start; n++)
        {
            if (whitespaceLengthAt(buffer, end - n, end) == n)
            {
                return n;
            }
        }
        return 0;
    }

    /**
     * Length (2 to 4) of the well-formed UTF-8 sequence starting at the non-ASCII byte at {@code i}, or 0 if the
     * bytes there are not one (Unicode Standard, table 3-7 "Well-Formed UTF-8 Byte Sequences").
     */
    static int wellFormedLength(final DirectBuffer buffer, final int i, final int end)
    {
        final int b0 = buffer.getByte(i) & 0xFF;
        if (b0 < 0xC2 || b0 > 0xF4)
        {
            return 0;
        }
        if (b0 < 0xE0)
        {
            return i + 1 < end && isContinuation(buffer.getByte(i + 1) & 0xFF) ? 2 : 0;
        }
        if (b0 < 0xF0)
        {
            if (i + 2 >= end)
            {
                return 0;
            }
            final int b1 = buffer.getByte(i + 1) & 0xFF;
            final int low = b0 == 0xE0 ? 0xA0 : 0x80;
            final int high = b0 == 0xED ? 0x9F : 0xBF;
            return b1 >= low && b1 <= high && isContinuation(buffer.getByte(i + 2) & 0xFF) ? 3 : 0;
        }
        if (i + 3 >= end)
        {
            return 0;
        }
        final int b1 = buffer.getByte(i + 1) & 0xFF;
        final int low = b0 == 0xF0 ? 0x90 : 0x80;
        final int high = b0 == 0xF4 ? 0x8F : 0xBF;
        return b1 >= low && b1 <= high &&
            isContinuation(buffer.getByte(i + 2) & 0xFF) &&
            isContinuation(buffer.getByte(i + 3) & 0xFF) ? 4 : 0;
    }

    private static boolean isContinuation(final int b)
    {
        return (b & 0xC0) == 0x80;
    }

    private static boolean isDots(final DirectBuffer buffer, final int offset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != '.')
            {
                return false;
            }
        }
        return true;
    }

    private static boolean isDotOrUnderscore(final char c)
    {
        return c == '.' || c == '_';
    }
}
