package io.sluice.codecs.json;

import org.agrona.DirectBuffer;

/**
 * Iterates the elements of an {@link JsonKind#OBJECT} or {@link JsonKind#ARRAY} value, one member at a time,
 * validating as it goes and allocating nothing. Reusable: {@link #wrap} starts over on another container.
 *
 * <pre>{@code
 * cursor.wrap(items);
 * while (cursor.next(element)) { ... cursor.key(key) for objects ... }
 * if (cursor.errorCode() != JsonError.NONE) { ... }
 * }</pre>
 *
 * <p>Element views are absolute ranges in the container's buffer, like those of {@link JsonScanner}. Duplicate
 * keys are all returned, in document order.
 *
 * <p>Not thread-safe: one per thread (or per nesting level of a consumer).
 */
public final class JsonCursor
{
    /** Nesting limit used by the no-argument constructor, counted inside the wrapped container. */
    public static final int DEFAULT_MAX_DEPTH = 512;

    private final JsonReader reader;
    private DirectBuffer buffer;
    private boolean isObject;
    private int position;
    private int closeIndex;
    private boolean first;
    private boolean done;
    private int keyOffset;
    private int keyLength;
    private boolean keyEscaped;
    private int errorCode;
    private int errorIndex;

    /**
     * Creates a cursor with {@link #DEFAULT_MAX_DEPTH}.
     */
    public JsonCursor()
    {
        this(DEFAULT_MAX_DEPTH);
    }

    /**
     * Creates a cursor.
     *
     * @param maxDepth deepest nesting accepted inside an element, {@code >= 1}.
     * @throws IllegalArgumentException if {@code maxDepth < 1}.
     */
    public JsonCursor(final int maxDepth)
    {
        this.reader = new JsonReader(maxDepth);
        this.done = true;
    }

    /**
     * Starts iterating a container. A view of any other kind leaves the cursor at its end with
     * {@link JsonError#NOT_A_CONTAINER}.
     *
     * @param container an OBJECT or ARRAY view covering the whole value including brackets.
     */
    public void wrap(final JsonValueView container)
    {
        errorCode = JsonError.NONE;
        errorIndex = 0;
        keyLength = 0;
        keyEscaped = false;
        final int kind = container.kind();
        if (kind != JsonKind.OBJECT && kind != JsonKind.ARRAY)
        {
            buffer = null;
            done = true;
            errorCode = JsonError.NOT_A_CONTAINER;
            return;
        }
        buffer = container.buffer();
        isObject = kind == JsonKind.OBJECT;
        final int start = container.offset();
        closeIndex = start + container.length() - 1;
        position = start + 1;
        first = true;
        done = false;
        // the closing bracket is not part of what the reader may consume as element bytes
        reader.reset(buffer, closeIndex);
        if (container.length() < 2 || buffer.getByte(start) != (isObject ? '{' : '[') ||
            buffer.getByte(closeIndex) != (isObject ? '}' : ']'))
        {
            fail(JsonError.UNEXPECTED_BYTE, start);
        }
    }

    /**
     * Advances to the next element.
     *
     * @param element the view to point at the element's value.
     * @return true if there was an element; false at the end or on an error (see {@link #errorCode()}).
     */
    public boolean next(final JsonValueView element)
    {
        if (done)
        {
            element.setMissing();
            return false;
        }
        final JsonReader reader = this.reader;
        int i = reader.skipWhitespace(position);
        if (!first)
        {
            if (i >= closeIndex)
            {
                return finish(element);
            }
            if (buffer.getByte(i) != ',')
            {
                return failNext(element, JsonError.UNEXPECTED_BYTE, i);
            }
            i = reader.skipWhitespace(i + 1);
            if (i >= closeIndex)
            {
                return failNext(element, JsonError.UNEXPECTED_BYTE, closeIndex);
            }
        }
        else if (i >= closeIndex)
        {
            return finish(element);
        }
        first = false;

        if (isObject)
        {
            if (buffer.getByte(i) != '"')
            {
                return failNext(element, JsonError.UNEXPECTED_BYTE, i);
            }
            final int keyEnd = reader.skipString(i + 1);
            if (keyEnd < 0)
            {
                return failNext(element, reader.errorCode, reader.errorIndex);
            }
            keyOffset = i + 1;
            keyLength = keyEnd - i - 2;
            keyEscaped = reader.lastEscaped;
            i = reader.skipWhitespace(keyEnd);
            if (i >= closeIndex || buffer.getByte(i) != ':')
            {
                return failNext(element, JsonError.UNEXPECTED_BYTE, i);
            }
            i = reader.skipWhitespace(i + 1);
            if (i >= closeIndex)
            {
                return failNext(element, JsonError.UNEXPECTED_BYTE, closeIndex);
            }
        }

        final int after = reader.skipValue(i, 0);
        if (after < 0)
        {
            return failNext(element, reader.errorCode, reader.errorIndex);
        }
        final int kind = JsonKind.ofFirstByte(buffer.getByte(i));
        if (kind == JsonKind.STRING)
        {
            element.set(buffer, kind, i + 1, after - i - 2, reader.lastEscaped);
        }
        else
        {
            element.set(buffer, kind, i, after - i, false);
        }
        position = after;
        return true;
    }

    /**
     * Points a view at the key of the current object member (a {@link JsonKind#STRING} view of the raw bytes
     * between the quotes); missing if the container is an array or there is no current member.
     *
     * @param keyInto the view to fill.
     */
    public void key(final JsonValueView keyInto)
    {
        if (!isObject || buffer == null || first)
        {
            keyInto.setMissing();
        }
        else
        {
            keyInto.set(buffer, JsonKind.STRING, keyOffset, keyLength, keyEscaped);
        }
    }

    /**
     * The error that ended the iteration, if any.
     *
     * @return {@link JsonError#NONE} or a negative {@link JsonError} code.
     */
    public int errorCode()
    {
        return errorCode;
    }

    /**
     * Absolute index in the buffer where the error was found.
     *
     * @return the index, 0 without an error.
     */
    public int errorIndex()
    {
        return errorIndex;
    }

    private boolean finish(final JsonValueView element)
    {
        done = true;
        element.setMissing();
        return false;
    }

    private boolean failNext(final JsonValueView element, final int code, final int index)
    {
        fail(code, index);
        element.setMissing();
        return false;
    }

    private void fail(final int code, final int index)
    {
        done = true;
        errorCode = code;
        errorIndex = index;
    }
}
