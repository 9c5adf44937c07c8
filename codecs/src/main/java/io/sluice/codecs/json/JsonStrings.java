package io.sluice.codecs.json;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Decoding of JSON string contents (the raw bytes between the quotes) into UTF-8.
 *
 * <p>Rules, chosen so that nothing invalid is ever written:
 * <ul>
 *   <li>Every escape of RFC 8259 section 7 is decoded: {@code \" \\ \/ \b \f \n \r \t} and {@code \}{@code uXXXX}
 *       (hex digits in either case).</li>
 *   <li>A high-surrogate escape followed by a low-surrogate escape ({@code \}{@code ud83d\}{@code ude00}) becomes one
 *       4-byte UTF-8 sequence ({@code f0 9f 98 80}), never the 6-byte CESU-8 form.</li>
 *   <li>A lone surrogate escape (a high one not followed by a low one, or a low one on its own) is an error,
 *       {@link JsonError#LONE_SURROGATE}; it is not replaced by U+FFFD.</li>
 *   <li>{@code \}{@code u0000} is kept as the byte {@code 00}.</li>
 *   <li>Raw bytes must be well-formed UTF-8 (RFC 3629) and must not be control characters below 0x20 or an
 *       unescaped {@code "}: otherwise {@link JsonError#INVALID_UTF8}, {@link JsonError#CONTROL_CHAR_IN_STRING} or
 *       {@link JsonError#UNEXPECTED_BYTE}.</li>
 * </ul>
 *
 * <p>Static, allocation-free and thread-safe.
 */
public final class JsonStrings
{
    private JsonStrings()
    {
    }

    /**
     * The largest number of bytes {@link #unescape} can write for {@code rawLength} raw bytes. Decoding never grows a
     * string: a 2-byte escape gives 1 byte, a 6-byte {@code \}{@code u} escape at most 3, a 12-byte surrogate pair 4.
     *
     * @param rawLength number of raw bytes, {@code >= 0}.
     * @return {@code rawLength}.
     */
    public static int maxUnescapedLength(final int rawLength)
    {
        return rawLength;
    }

    /**
     * Decodes the raw contents of a JSON string into UTF-8 bytes.
     *
     * @param src       buffer holding the raw bytes.
     * @param offset    index of the first raw byte (after the opening quote).
     * @param length    number of raw bytes (up to, excluding, the closing quote).
     * @param dst       destination; needs {@link #maxUnescapedLength maxUnescapedLength(length)} bytes of room
     *                  at {@code dstOffset}, checked before anything is written.
     * @param dstOffset index in {@code dst} of the first byte to write.
     * @return number of bytes written ({@code >= 0}), or a negative {@link JsonError} code:
     *     {@link JsonError#BAD_ESCAPE}, {@link JsonError#LONE_SURROGATE}, {@link JsonError#INVALID_UTF8},
     *     {@link JsonError#CONTROL_CHAR_IN_STRING}, {@link JsonError#UNEXPECTED_BYTE}, {@link JsonError#TRUNCATED}
     *     (an escape cut by the end) or {@link JsonError#BUFFER_TOO_SMALL}. On error, bytes before the problem may
     *     have been written.
     * @throws IndexOutOfBoundsException if the source range lies outside {@code src} (a programming error).
     */
    public static int unescape(final DirectBuffer src, final int offset, final int length,
        final MutableDirectBuffer dst, final int dstOffset)
    {
        if (offset < 0 || length < 0 || (long)offset + length > src.capacity())
        {
            throw new IndexOutOfBoundsException("string [" + offset + ", +" + length + ") outside buffer capacity " +
                src.capacity());
        }
        if (dstOffset < 0 || (long)dstOffset + length > dst.capacity())
        {
            return JsonError.BUFFER_TOO_SMALL;
        }
        final int end = offset + length;
        int i = offset;
        int out = dstOffset;
        while (i < end)
        {
            final int runEnd = JsonBytes.skipPlain(src, i, end);
            if (runEnd > i)
            {
                dst.putBytes(out, src, i, runEnd - i);
                out += runEnd - i;
                i = runEnd;
                if (i >= end)
                {
                    break;
                }
            }
            final int c = src.getByte(i) & 0xff;
            if (c == '\\')
            {
                final int codePoint = JsonBytes.decodeEscape(src, i, end, true);
                if (codePoint < 0)
                {
                    return codePoint;
                }
                i += JsonBytes.escapeLength(src, i, codePoint);
                out += putUtf8(dst, out, codePoint);
            }
            else if (c >= 0x80)
            {
                final int sequence = JsonBytes.utf8SequenceLength(src, i, end, c);
                if (sequence < 0)
                {
                    return JsonError.INVALID_UTF8;
                }
                dst.putBytes(out, src, i, sequence);
                out += sequence;
                i += sequence;
            }
            else
            {
                return c == '"' ? JsonError.UNEXPECTED_BYTE : JsonError.CONTROL_CHAR_IN_STRING;
            }
        }
        return out - dstOffset;
    }

    /**
     * Writes a code point as UTF-8.
     *
     * @return the number of bytes written, 1 to 4.
     */
    static int putUtf8(final MutableDirectBuffer dst, final int index, final int codePoint)
    {
        if (codePoint < 0x80)
        {
            dst.putByte(index, (byte)codePoint);
            return 1;
        }
        if (codePoint < 0x800)
        {
            dst.putByte(index, (byte)(0xC0 | (codePoint >>> 6)));
            dst.putByte(index + 1, (byte)(0x80 | (codePoint & 0x3F)));
            return 2;
        }
        if (codePoint < 0x10000)
        {
            dst.putByte(index, (byte)(0xE0 | (codePoint >>> 12)));
            dst.putByte(index + 1, (byte)(0x80 | ((codePoint >>> 6) & 0x3F)));
            dst.putByte(index + 2, (byte)(0x80 | (codePoint & 0x3F)));
            return 3;
        }
        dst.putByte(index, (byte)(0xF0 | (codePoint >>> 18)));
        dst.putByte(index + 1, (byte)(0x80 | ((codePoint >>> 12) & 0x3F)));
        dst.putByte(index + 2, (byte)(0x80 | ((codePoint >>> 6) & 0x3F)));
        dst.putByte(index + 3, (byte)(0x80 | (codePoint & 0x3F)));
        return 4;
    }
}
