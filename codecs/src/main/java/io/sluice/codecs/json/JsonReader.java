package io.sluice.codecs.json;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * The validating lexer under {@link JsonScanner} and {@link JsonCursor}: skips whitespace, strings, numbers,
 * literals and whole containers while checking them against RFC 8259, without recursion (a bit stack of
 * {@code maxDepth} bits records whether each open container is an object or an array) and without allocation.
 *
 * <p>Methods take and return absolute buffer indexes. A method that fails returns {@link #FAIL} and leaves the
 * reason in {@link #errorCode} and the absolute index of the offending byte in {@link #errorIndex}.
 *
 * <p>Not thread-safe: one per owner.
 */
final class JsonReader
{
    static final int FAIL = -1;

    final int maxDepth;
    private final long[] containerIsObject;

    DirectBuffer buffer;
    /** {@link DirectBuffer#byteArray()} of {@link #buffer}: null for off-heap memory. */
    private Object array;
    /** {@link DirectBuffer#addressOffset()} of {@link #buffer}. */
    private long address;
    int end;
    int errorCode;
    int errorIndex;
    /** Whether the last string skipped by {@link #skipString} held a backslash. */
    boolean lastEscaped;

    JsonReader(final int maxDepth)
    {
        if (maxDepth < 1)
        {
            throw new IllegalArgumentException("maxDepth must be >= 1: " + maxDepth);
        }
        this.maxDepth = maxDepth;
        this.containerIsObject = new long[(maxDepth >>> 6) + 2];
    }

    /**
     * Points the reader at a buffer. The caller has checked that {@code [start, end)} lies inside the buffer's
     * capacity: {@link #skipStructure} reads it without Agrona's per-access bounds checks.
     */
    void reset(final DirectBuffer buffer, final int end)
    {
        this.buffer = buffer;
        this.array = buffer.byteArray();
        this.address = buffer.addressOffset();
        this.end = end;
        this.errorCode = JsonError.NONE;
        this.errorIndex = 0;
    }

    int fail(final int code, final int index)
    {
        errorCode = code;
        errorIndex = index;
        return FAIL;
    }

    int skipWhitespace(final int index)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        int i = index;
        while (i < end)
        {
            final int c = buffer.getByte(i);
            // every byte above the space, and every negative (non-ASCII) byte, ends the run: one compare for both
            if ((c & 0xff) > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t'))
            {
                return i;
            }
            i++;
        }
        return i;
    }

    /**
     * Skips a string whose opening quote is at {@code index - 1}, validating UTF-8, control characters and escapes.
     *
     * @return the index after the closing quote, or {@link #FAIL}; sets {@link #lastEscaped}.
     */
    int skipString(final int index)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        boolean escaped = false;
        int i = index;
        while (true)
        {
            i = JsonBytes.skipPlain(buffer, i, end);
            if (i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            final int c = buffer.getByte(i) & 0xff;
            if (c == '"')
            {
                lastEscaped = escaped;
                return i + 1;
            }
            if (c == '\\')
            {
                escaped = true;
                final int codePoint = JsonBytes.decodeEscape(buffer, i, end, false);
                if (codePoint < 0)
                {
                    return fail(codePoint, codePoint == JsonError.TRUNCATED ? end : i);
                }
                i += JsonBytes.escapeLength(buffer, i, codePoint);
            }
            else if (c < 0x20)
            {
                return fail(JsonError.CONTROL_CHAR_IN_STRING, i);
            }
            else
            {
                final int length = JsonBytes.utf8SequenceLength(buffer, i, end, c);
                if (length < 0)
                {
                    return length == JsonBytes.UTF8_TRUNCATED
                        ? fail(JsonError.TRUNCATED, end)
                        : fail(JsonError.INVALID_UTF8, i);
                }
                i += length;
            }
        }
    }

    /**
     * Skips a number starting at {@code index} ({@code -} or a digit) by the RFC 8259 grammar; the number must be
     * followed by the end of input, whitespace, a comma or a closing bracket.
     *
     * @return the index after the number, or {@link #FAIL}.
     */
    int skipNumber(final int index)
    {
        // fast path, small enough to be inlined: [1-9][0-9]* followed by ',', '}' or ']'
        final DirectBuffer b = this.buffer;
        final int c0 = b.getByte(index);
        if (c0 >= '1' && c0 <= '9')
        {
            int i = index + 1;
            final int limit = this.end;
            int c = 0;
            while (i < limit && (c = b.getByte(i)) >= '0' && c <= '9')
            {
                i++;
            }
            if (i < limit && (c == ',' || c == '}' || c == ']'))
            {
                return i;
            }
        }
        return skipNumberFully(index);
    }

    private int skipNumberFully(final int index)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        int i = index;
        int c = buffer.getByte(i);
        if (c == '-')
        {
            if (++i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            c = buffer.getByte(i);
        }
        if (c == '0')
        {
            i++;
        }
        else if (c >= '1' && c <= '9')
        {
            i = skipDigits(i + 1);
        }
        else
        {
            return fail(JsonError.BAD_NUMBER, i);
        }
        if (i >= end)
        {
            return i;
        }
        c = buffer.getByte(i);
        if (c == '.')
        {
            if (++i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            if (!isDigit(buffer.getByte(i)))
            {
                return fail(JsonError.BAD_NUMBER, i);
            }
            i = skipDigits(i + 1);
            if (i >= end)
            {
                return i;
            }
            c = buffer.getByte(i);
        }
        if (c == 'e' || c == 'E')
        {
            if (++i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            c = buffer.getByte(i);
            if (c == '+' || c == '-')
            {
                if (++i >= end)
                {
                    return fail(JsonError.TRUNCATED, end);
                }
                c = buffer.getByte(i);
            }
            if (!isDigit(c))
            {
                return fail(JsonError.BAD_NUMBER, i);
            }
            i = skipDigits(i + 1);
            if (i >= end)
            {
                return i;
            }
            c = buffer.getByte(i);
        }
        return JsonBytes.isDelimiter(c) ? i : fail(JsonError.BAD_NUMBER, i);
    }

    private int skipDigits(final int index)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        int i = index;
        while (i < end && isDigit(buffer.getByte(i)))
        {
            i++;
        }
        return i;
    }

    private static boolean isDigit(final int c)
    {
        return c >= '0' && c <= '9';
    }

    /**
     * Skips {@code true}, {@code false} or {@code null} starting at {@code index}; the literal must be followed by the
     * end of input, whitespace, a comma or a closing bracket.
     *
     * @return the index after the literal, or {@link #FAIL}.
     */
    int skipLiteral(final int index, final int first)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        // compare the four bytes after 'f', or the four bytes of "true"/"null", as one little-endian int
        final int from = first == 'f' ? index + 1 : index;
        final int expected = first == 't' ? TRUE_LE : first == 'f' ? ALSE_LE : NULL_LE;
        final int after = from + 4;
        if (after > end || buffer.getInt(from, JsonBytes.LE) != expected)
        {
            return literalError(index, first);
        }
        return after >= end || JsonBytes.isDelimiter(buffer.getByte(after))
            ? after
            : fail(JsonError.UNEXPECTED_BYTE, after);
    }

    private static final int TRUE_LE = 't' | 'r' << 8 | 'u' << 16 | 'e' << 24;
    private static final int ALSE_LE = 'a' | 'l' << 8 | 's' << 16 | 'e' << 24;
    private static final int NULL_LE = 'n' | 'u' << 8 | 'l' << 16 | 'l' << 24;

    /** Finds where a literal that did not match goes wrong: a wrong byte, or the end of input. */
    private int literalError(final int index, final int first)
    {
        final String literal = first == 't' ? "true" : first == 'f' ? "false" : "null";
        for (int k = 1; k < literal.length(); k++)
        {
            final int i = index + k;
            if (i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            if (buffer.getByte(i) != literal.charAt(k))
            {
                return fail(JsonError.UNEXPECTED_BYTE, i);
            }
        }
        return fail(JsonError.UNEXPECTED_BYTE, index);
    }

    /**
     * Skips any value starting at {@code index} (no leading whitespace) inside containers already open to
     * {@code depth}.
     *
     * @return the index after the value, or {@link #FAIL}.
     */
    int skipValue(final int index, final int depth)
    {
        final int c = buffer.getByte(index);
        switch (c)
        {
            case '"' :
                return skipString(index + 1);
            case '{' :
            case '[' :
                return skipContainer(index, depth);
            case 't' :
            case 'f' :
            case 'n' :
                return skipLiteral(index, c);
            default :
                if (c == '-' || (c >= '0' && c <= '9'))
                {
                    return skipNumber(index);
                }
                return fail(JsonError.UNEXPECTED_BYTE, index);
        }
    }

    private int skipScalar(final int index, final int c)
    {
        if (c == '"')
        {
            return skipString(index + 1);
        }
        if (c == 't' || c == 'f' || c == 'n')
        {
            return skipLiteral(index, c);
        }
        if (c == '-' || (c >= '0' && c <= '9'))
        {
            return skipNumber(index);
        }
        return fail(JsonError.UNEXPECTED_BYTE, index);
    }

    /**
     * Skips an object member's key and colon: {@code index} is at the key's opening quote.
     *
     * @return the index of the member's value (whitespace skipped, at least one byte available), or {@link #FAIL}.
     */
    int skipKeyAndColon(final int index)
    {
        final DirectBuffer buffer = this.buffer;
        if (buffer.getByte(index) != '"')
        {
            return fail(JsonError.UNEXPECTED_BYTE, index);
        }
        int i = skipString(index + 1);
        if (i < 0)
        {
            return FAIL;
        }
        // compact JSON: "key":value with no whitespace, checked with one two-byte read
        if (i + 2 <= end)
        {
            final int pair = buffer.getShort(i, JsonBytes.LE);
            if ((pair & 0xff) == ':' && (pair >> 8 & 0xff) > ' ')
            {
                return i + 1;
            }
        }
        i = skipWhitespace(i);
        if (i >= end)
        {
            return fail(JsonError.TRUNCATED, end);
        }
        if (buffer.getByte(i) != ':')
        {
            return fail(JsonError.UNEXPECTED_BYTE, i);
        }
        i = skipWhitespace(i + 1);
        return i < end ? i : fail(JsonError.TRUNCATED, end);
    }

    /**
     * Skips an object or array whose opening bracket is at {@code index}, inside containers already open to
     * {@code depth}, iteratively.
     *
     * @return the index after the closing bracket, or {@link #FAIL}.
     */
    int skipContainer(final int index, final int depth)
    {
        final DirectBuffer buffer = this.buffer;
        final int end = this.end;
        final long[] stack = this.containerIsObject;
        final int maxDepth = this.maxDepth;
        int i = index;
        int d = depth;
        int c = buffer.getByte(i);
        while (true)
        {
            // i is at an opening bracket c
            if (++d > maxDepth)
            {
                return fail(JsonError.TOO_DEEP, i);
            }
            boolean isObject = c == '{';
            if (isObject)
            {
                stack[d >>> 6] |= 1L << d;
            }
            else
            {
                stack[d >>> 6] &= ~(1L << d);
            }
            i = skipWhitespace(i + 1);
            if (i >= end)
            {
                return fail(JsonError.TRUNCATED, end);
            }
            c = buffer.getByte(i);
            boolean open = false;
            if (c == (isObject ? '}' : ']'))
            {
                i++;
                d--;
            }
            else
            {
                if (isObject)
                {
                    i = skipKeyAndColon(i);
                    if (i < 0)
                    {
                        return FAIL;
                    }
                    c = buffer.getByte(i);
                }
                if (c == '{' || c == '[')
                {
                    open = true;
                }
                else if ((i = skipScalar(i, c)) < 0)
                {
                    return FAIL;
                }
            }

            // after a complete value (or an empty container): continue the enclosing container at depth d
            while (!open)
            {
                if (d == depth)
                {
                    return i;
                }
                i = skipWhitespace(i);
                if (i >= end)
                {
                    return fail(JsonError.TRUNCATED, end);
                }
                c = buffer.getByte(i);
                isObject = (stack[d >>> 6] & (1L << d)) != 0;
                if (c == ',')
                {
                    // compact JSON: the next member starts right after the comma
                    if (i + 1 < end && buffer.getByte(i + 1) > ' ')
                    {
                        i++;
                    }
                    else
                    {
                        i = skipWhitespace(i + 1);
                        if (i >= end)
                        {
                            return fail(JsonError.TRUNCATED, end);
                        }
                    }
                    if (isObject)
                    {
                        i = skipKeyAndColon(i);
                        if (i < 0)
                        {
                            return FAIL;
                        }
                    }
                    c = buffer.getByte(i);
                    if (c == '{' || c == '[')
                    {
                        open = true;
                    }
                    else if ((i = skipScalar(i, c)) < 0)
                    {
                        return FAIL;
                    }
                }
                else if (c == (isObject ? '}' : ']'))
                {
                    i++;
                    d--;
                }
                else
                {
                    return fail(JsonError.UNEXPECTED_BYTE, i);
                }
            }
        }
    }

    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;

    /**
     * Skips an object or array whose opening bracket is at {@code index}, inside containers already open to
     * {@code depth}, checking its <em>structure</em> only: every unescaped {@code "} opens or closes a string, a
     * backslash inside a string escapes the next byte, brackets outside strings nest and match in kind, nesting stays
     * within {@link #maxDepth}, no backslash stands outside a string, and the input does not end inside it. Nothing
     * else is checked (the grammar between tokens, escape letters, UTF-8, control characters, numbers and literals):
     * the caller reads nothing inside the skipped value, so those bytes never become a value.
     *
     * <p>Bracket counting: outside strings one byte per step (brackets, quotes and backslashes are all that matter
     * there); a string's contents 16 bytes per step, testing each 8-byte word for a quote at once (SWAR, the
     * "determine if a word has a zero byte" test of Anderson's Bit Twiddling Hacks on the word XOR a repeated quote),
     * a quote closing the string when an even number of backslashes stands before it.
     *
     * @return the index after the closing bracket, or {@link #FAIL}: {@link JsonError#TRUNCATED} (at the end),
     *     {@link JsonError#UNEXPECTED_BYTE} at a closing bracket of the wrong kind or a backslash outside a string,
     *     {@link JsonError#TOO_DEEP} at the first bracket past the limit.
     */
    int skipStructure(final int index, final int depth)
    {
        final long[] stack = this.containerIsObject;
        final int maxDepth = this.maxDepth;
        final int end = this.end;
        final Object array = this.array;
        final long address = this.address;
        int d = depth;
        int i = index;
        while (i < end)
        {
            final int c = UnsafeApi.getByte(array, address + i);
            if (c == '"')
            {
                i = skipStringStructure(i + 1, end);
                continue;
            }
            final int folded = c | 0x20;
            if (folded == '{')
            {
                if (++d > maxDepth)
                {
                    return fail(JsonError.TOO_DEEP, i);
                }
                if (c == '{')
                {
                    stack[d >>> 6] |= 1L << d;
                }
                else
                {
                    stack[d >>> 6] &= ~(1L << d);
                }
            }
            else if (folded == '}')
            {
                if (((stack[d >>> 6] & (1L << d)) != 0) != (c == '}'))
                {
                    return fail(JsonError.UNEXPECTED_BYTE, i);
                }
                if (--d == depth)
                {
                    return i + 1;
                }
            }
            else if (c == '\\')
            {
                return fail(JsonError.UNEXPECTED_BYTE, i);
            }
            i++;
        }
        return fail(JsonError.TRUNCATED, end);
    }

    /**
     * The index after the quote that closes the string whose contents start at {@code from}, or {@code end}. Looks for
     * quotes only, 16 bytes per step (two words, each tested for a quote byte at once); a quote found closes the
     * string when an even number of backslashes (none, mostly) stands right before it, since each backslash escapes
     * the byte after it. Each backslash is looked at once at most: the runs before different quotes do not overlap.
     */
    private int skipStringStructure(final int from, final int end)
    {
        int i = from;
        while (true)
        {
            int quote = -1;
            while (i + 16 <= end)
            {
                final long a = word(i) ^ QUOTES;
                final long b = word(i + 8) ^ QUOTES;
                final long ma = (a - ONES) & ~a & HIGH_BITS;
                final long mb = (b - ONES) & ~b & HIGH_BITS;
                if ((ma | mb) != 0)
                {
                    // the lowest flag of a word is exact (a borrow only flags lanes above a real match)
                    quote = ma != 0
                        ? i + (Long.numberOfTrailingZeros(ma) >>> 3)
                        : i + 8 + (Long.numberOfTrailingZeros(mb) >>> 3);
                    break;
                }
                i += 16;
            }
            if (quote < 0)
            {
                while (i < end && UnsafeApi.getByte(array, address + i) != '"')
                {
                    i++;
                }
                if (i >= end)
                {
                    return end;
                }
                quote = i;
            }
            int before = quote - 1;
            while (before >= from && UnsafeApi.getByte(array, address + before) == '\\')
            {
                before--;
            }
            if (((quote - 1 - before) & 1) == 0)
            {
                return quote + 1;
            }
            i = quote + 1;
        }
    }

    /** The 8 bytes at {@code i} as a little-endian word; {@code i + 8 <= end}. */
    private long word(final int i)
    {
        final long w = UnsafeApi.getLong(array, address + i);
        return NATIVE_LE ? w : Long.reverseBytes(w);
    }
}
