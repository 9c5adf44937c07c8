package io.sluice.codecs.json;

import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;

/**
 * A mutable flyweight over one JSON value inside a buffer: its {@link JsonKind kind} and byte range.
 *
 * <ul>
 *   <li>{@link JsonKind#STRING}: the raw bytes between the quotes, escapes not decoded; {@link #escaped()} tells
 *       whether a backslash occurs (decode with {@link JsonStrings#unescape}).</li>
 *   <li>{@link JsonKind#NUMBER}, {@link JsonKind#TRUE}, {@link JsonKind#FALSE}, {@link JsonKind#NULL}: the literal
 *       token as written.</li>
 *   <li>{@link JsonKind#OBJECT}, {@link JsonKind#ARRAY}: the whole value including its brackets (iterate with
 *       {@link JsonCursor}).</li>
 *   <li>{@link JsonKind#MISSING}: no bytes; {@link #buffer()} may be null.</li>
 * </ul>
 *
 * <p>Views filled by {@link JsonScanner} and {@link JsonCursor} cover bytes they validated; consumers such as the
 * RowBinary encoders rely on that and do not validate UTF-8 again. A view filled by hand with {@link #set} must
 * hold bytes of the same quality. Offsets are absolute indexes into {@link #buffer()}.
 *
 * <p>Not thread-safe; the view does not own the buffer, which must stay unchanged while the view is used.
 */
public final class JsonValueView
{
    private DirectBuffer buffer;
    private int kind;
    private int offset;
    private int length;
    private boolean escaped;

    /**
     * The buffer holding the value.
     *
     * @return the buffer, or null for a view that was never set.
     */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * The kind of the value.
     *
     * @return a {@link JsonKind} constant.
     */
    public int kind()
    {
        return kind;
    }

    /**
     * Index in {@link #buffer()} of the first byte of the value (for strings, the first byte after the quote).
     *
     * @return the offset in bytes.
     */
    public int offset()
    {
        return offset;
    }

    /**
     * Number of bytes of the value (for strings, the raw bytes between the quotes).
     *
     * @return the length in bytes.
     */
    public int length()
    {
        return length;
    }

    /**
     * Whether a string value contains a backslash escape; always false for other kinds.
     *
     * @return true if the raw bytes need {@link JsonStrings#unescape}.
     */
    public boolean escaped()
    {
        return escaped;
    }

    /**
     * Whether the view holds no value.
     *
     * @return {@code kind() == JsonKind.MISSING}.
     */
    public boolean isMissing()
    {
        return kind == JsonKind.MISSING;
    }

    /**
     * Points the view at a value.
     *
     * @param buffer  the buffer holding the value.
     * @param kind    a {@link JsonKind} constant.
     * @param offset  index of the first byte (see the class description for each kind).
     * @param length  number of bytes.
     * @param escaped whether a string's raw bytes contain a backslash.
     */
    public void set(final DirectBuffer buffer, final int kind, final int offset, final int length,
        final boolean escaped)
    {
        this.buffer = buffer;
        this.kind = kind;
        this.offset = offset;
        this.length = length;
        this.escaped = escaped;
    }

    /**
     * Makes the view {@link JsonKind#MISSING}, keeping no reference to a buffer.
     */
    public void setMissing()
    {
        this.buffer = null;
        this.kind = JsonKind.MISSING;
        this.offset = 0;
        this.length = 0;
        this.escaped = false;
    }

    /**
     * Copies another view's state into this one.
     *
     * @param other the view to copy.
     */
    public void set(final JsonValueView other)
    {
        set(other.buffer, other.kind, other.offset, other.length, other.escaped);
    }

    /**
     * The kind and raw text, for debugging only: this allocates.
     *
     * @return e.g. {@code STRING[abc]}.
     */
    @Override
    public String toString()
    {
        if (kind == JsonKind.MISSING || buffer == null)
        {
            return JsonKind.name(kind);
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return JsonKind.name(kind) + "[" + new String(bytes, StandardCharsets.UTF_8) + "]";
    }
}
