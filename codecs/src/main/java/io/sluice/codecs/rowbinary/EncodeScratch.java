package io.sluice.codecs.rowbinary;

import java.util.Arrays;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonStrings;
import io.sluice.codecs.json.JsonValueView;

/**
 * Per-thread working memory for {@link ColumnEncoder}s: a buffer for unescaped strings, cursors and element views for
 * each nesting level of Array, Map and Tuple, and the fields conversions leave their results in.
 *
 * <p>Everything is allocated up front or on the first use of a nesting level, so encoding allocates nothing in
 * steady state. Not thread-safe: one per encoding thread, shared by all of that thread's encoders.
 */
public final class EncodeScratch
{
    private final UnsafeBuffer unescaped;
    private JsonCursor[] cursors = new JsonCursor[0];
    private JsonValueView[] elements = new JsonValueView[0];
    private JsonValueView[] keys = new JsonValueView[0];

    // results of text() and of the number parsers; a 256-bit result is resultLow (bits 0-63), resultHigh (64-127),
    // resultWord2 (128-191) and resultWord3 (192-255)
    DirectBuffer textBuffer;
    int textOffset;
    int textLength;
    long resultLow;
    long resultHigh;
    long resultWord2;
    long resultWord3;

    // the parts of a number found by Numbers.split
    boolean negative;
    int intStart;
    int intEnd;
    int fracStart;
    int fracEnd;
    long exponent;

    /**
     * Creates scratch space.
     *
     * @param maxStringBytes the longest string, in raw bytes, that may need unescaping; escaped strings longer than
     *                       this fail with {@link ConversionError#TOO_LONG}. Strings without escapes have no limit.
     * @throws IllegalArgumentException if negative.
     */
    public EncodeScratch(final int maxStringBytes)
    {
        if (maxStringBytes < 0)
        {
            throw new IllegalArgumentException("maxStringBytes must be >= 0: " + maxStringBytes);
        }
        this.unescaped = new UnsafeBuffer(new byte[Math.max(64, maxStringBytes)]);
    }

    /**
     * Capacity of the unescape buffer in bytes.
     *
     * @return the capacity.
     */
    public int maxStringBytes()
    {
        return unescaped.capacity();
    }

    /**
     * Points {@link #textBuffer}/{@link #textOffset}/{@link #textLength} at the UTF-8 text of a STRING view,
     * unescaping into this scratch only when the string holds escapes.
     *
     * @param value a STRING view.
     * @return {@link ConversionError#NONE}, {@link ConversionError#INVALID_STRING} or {@link ConversionError#TOO_LONG}.
     */
    public int text(final JsonValueView value)
    {
        if (!value.escaped())
        {
            textBuffer = value.buffer();
            textOffset = value.offset();
            textLength = value.length();
            return ConversionError.NONE;
        }
        if (JsonStrings.maxUnescapedLength(value.length()) > unescaped.capacity())
        {
            return ConversionError.TOO_LONG;
        }
        final int n = JsonStrings.unescape(value.buffer(), value.offset(), value.length(), unescaped, 0);
        if (n < 0)
        {
            return ConversionError.INVALID_STRING;
        }
        textBuffer = unescaped;
        textOffset = 0;
        textLength = n;
        return ConversionError.NONE;
    }

    /**
     * Points the text fields at the literal bytes of a NUMBER, or the text of a STRING.
     *
     * @param value a NUMBER or STRING view.
     * @return {@link ConversionError#NONE}, a string error, or {@link ConversionError#WRONG_KIND} for other kinds.
     */
    public int numberText(final JsonValueView value)
    {
        if (value.kind() == JsonKind.NUMBER)
        {
            textBuffer = value.buffer();
            textOffset = value.offset();
            textLength = value.length();
            return ConversionError.NONE;
        }
        if (value.kind() == JsonKind.STRING)
        {
            return text(value);
        }
        return ConversionError.WRONG_KIND;
    }

    /**
     * The buffer holding the text found by the last {@link #text} or {@link #numberText}.
     *
     * @return the buffer (the value's own buffer, or this scratch's unescape buffer).
     */
    public DirectBuffer textBuffer()
    {
        return textBuffer;
    }

    /**
     * Index of the first byte of the last text in {@link #textBuffer()}.
     *
     * @return the offset in bytes.
     */
    public int textOffset()
    {
        return textOffset;
    }

    /**
     * Length in bytes of the last text.
     *
     * @return the length in bytes.
     */
    public int textLength()
    {
        return textLength;
    }

    /**
     * The low (or only) 64 bits of the last parse result (see each parser of {@link SharedParsers}).
     *
     * @return the result.
     */
    public long resultLow()
    {
        return resultLow;
    }

    /**
     * The high 64 bits of the last parse result (see each parser of {@link SharedParsers}).
     *
     * @return the result.
     */
    public long resultHigh()
    {
        return resultHigh;
    }

    /**
     * Whether the number last split by {@link SharedParsers#split} is negative.
     *
     * @return the sign.
     */
    public boolean negative()
    {
        return negative;
    }

    /**
     * Index of the first integer digit of the number last split by {@link SharedParsers#split}.
     *
     * @return the index in the number's buffer.
     */
    public int intStart()
    {
        return intStart;
    }

    /**
     * Index after the last integer digit of the number last split.
     *
     * @return the index in the number's buffer.
     */
    public int intEnd()
    {
        return intEnd;
    }

    /**
     * Index of the first fraction digit of the number last split (equal to {@link #fracEnd()} without fraction).
     *
     * @return the index in the number's buffer.
     */
    public int fracStart()
    {
        return fracStart;
    }

    /**
     * Index after the last fraction digit of the number last split.
     *
     * @return the index in the number's buffer.
     */
    public int fracEnd()
    {
        return fracEnd;
    }

    /**
     * The decimal exponent of the number last split (0 without exponent; clamped to +-10^9).
     *
     * @return the exponent.
     */
    public long exponent()
    {
        return exponent;
    }

    JsonCursor cursor(final int level)
    {
        ensureLevel(level);
        return cursors[level];
    }

    JsonValueView element(final int level)
    {
        ensureLevel(level);
        return elements[level];
    }

    JsonValueView key(final int level)
    {
        ensureLevel(level);
        return keys[level];
    }

    private void ensureLevel(final int level)
    {
        if (level < cursors.length)
        {
            return;
        }
        final int size = level + 1;
        final JsonCursor[] newCursors = Arrays.copyOf(cursors, size);
        final JsonValueView[] newElements = Arrays.copyOf(elements, size);
        final JsonValueView[] newKeys = Arrays.copyOf(keys, size);
        for (int i = cursors.length; i < size; i++)
        {
            newCursors[i] = new JsonCursor();
            newElements[i] = new JsonValueView();
            newKeys[i] = new JsonValueView();
        }
        cursors = newCursors;
        elements = newElements;
        keys = newKeys;
    }
}
