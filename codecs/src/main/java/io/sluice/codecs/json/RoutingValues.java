package io.sluice.codecs.json;

import org.agrona.MutableDirectBuffer;

/**
 * Derives the routing value of a JSON field, exactly as the routing specification (seed 000, "How the value is
 * derived from a JSON field") says:
 *
 * <table>
 *   <caption>derivation</caption>
 *   <tr><th>at the path</th><th>becomes</th></tr>
 *   <tr><td>a string, e.g. {@code "acme"}</td><td>its text, unescaped: {@code acme}</td></tr>
 *   <tr><td>a number, e.g. {@code 42}, {@code -1.5e3}</td><td>its text as written: {@code 42}, {@code -1.5e3}</td></tr>
 *   <tr><td>{@code true} / {@code false}</td><td>{@code true} / {@code false}</td></tr>
 *   <tr><td>{@code null}, an object, an array, or nothing</td><td>missing</td></tr>
 * </table>
 *
 * <p>Sanitising (trimming, replacing characters, treating an empty result as missing) is the routing rule's job and
 * happens after this: an empty string derives the empty text (length 0), not missing.
 *
 * <p>Static, allocation-free and thread-safe.
 */
public final class RoutingValues
{
    /** Returned by {@link #derive} when the value is missing; never a {@link JsonError} code. */
    public static final int MISSING = -1;

    private RoutingValues()
    {
    }

    /**
     * Writes the derived UTF-8 text of a value.
     *
     * @param value     the value found at the rule's path.
     * @param dst       destination; needs {@code value.length()} bytes of room at {@code dstOffset}.
     * @param dstOffset index of the first byte to write.
     * @return the length of the derived text ({@code >= 0}); {@link #MISSING} ({@code -1}) for null, object, array or
     *     missing; or a {@link JsonError} code ({@code <= -2}) if a string cannot be decoded or {@code dst} is too
     *     small ({@link JsonError#BUFFER_TOO_SMALL}).
     */
    public static int derive(final JsonValueView value, final MutableDirectBuffer dst, final int dstOffset)
    {
        switch (value.kind())
        {
            case JsonKind.STRING :
                if (value.escaped())
                {
                    return JsonStrings.unescape(value.buffer(), value.offset(), value.length(), dst, dstOffset);
                }
                return copy(value, dst, dstOffset);
            case JsonKind.NUMBER :
            case JsonKind.TRUE :
            case JsonKind.FALSE :
                return copy(value, dst, dstOffset);
            default :
                return MISSING;
        }
    }

    private static int copy(final JsonValueView value, final MutableDirectBuffer dst, final int dstOffset)
    {
        final int length = value.length();
        if (dstOffset < 0 || (long)dstOffset + length > dst.capacity())
        {
            return JsonError.BUFFER_TOO_SMALL;
        }
        dst.putBytes(dstOffset, value.buffer(), value.offset(), length);
        return length;
    }
}
