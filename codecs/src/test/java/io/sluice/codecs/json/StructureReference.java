package io.sluice.codecs.json;

/**
 * A byte-at-a-time reference of what {@link JsonReader#skipStructure} checks, for the tests: every unescaped
 * {@code "} opens or closes a string, a backslash inside a string escapes the next byte, a backslash outside a string
 * is an error, brackets outside strings nest and match in kind within a depth limit, and the input does not end
 * inside the value.
 */
final class StructureReference
{
    /** The index after the skipped value, or the error of the last {@link #skip}. */
    static int errorOffset;

    private StructureReference()
    {
    }

    /**
     * Skips the object or array whose opening bracket is at {@code index}.
     *
     * @return the index after its closing bracket, or a {@link JsonError} code with the offending index in
     *     {@link #errorOffset}
     */
    static int skip(final byte[] doc, final int index, final int end, final int depth, final int maxDepth)
    {
        final boolean[] isObject = new boolean[Math.min(maxDepth, depth + end - index) + 2];
        int d = depth;
        boolean inString = false;
        boolean escaped = false;
        for (int i = index; i < end; i++)
        {
            final int c = doc[i];
            if (inString)
            {
                if (escaped)
                {
                    escaped = false;
                }
                else if (c == '\\')
                {
                    escaped = true;
                }
                else if (c == '"')
                {
                    inString = false;
                }
                continue;
            }
            if (c == '"')
            {
                inString = true;
            }
            else if (c == '\\')
            {
                errorOffset = i;
                return JsonError.UNEXPECTED_BYTE;
            }
            else if (c == '{' || c == '[')
            {
                if (++d > maxDepth)
                {
                    errorOffset = i;
                    return JsonError.TOO_DEEP;
                }
                isObject[d] = c == '{';
            }
            else if (c == '}' || c == ']')
            {
                if (isObject[d] != (c == '}'))
                {
                    errorOffset = i;
                    return JsonError.UNEXPECTED_BYTE;
                }
                if (--d == depth)
                {
                    return i + 1;
                }
            }
        }
        errorOffset = end;
        return JsonError.TRUNCATED;
    }

    /**
     * The structure of a whole document: its top-level object or array as {@link #skip} checks it, then only
     * whitespace. A top-level scalar is not looked at (the scanner validates those in full).
     *
     * @return {@link JsonError#NONE} or an error code
     */
    static int check(final byte[] doc, final int maxDepth)
    {
        int i = 0;
        while (i < doc.length && JsonBytes.isWhitespace(doc[i]))
        {
            i++;
        }
        if (i == doc.length)
        {
            return JsonError.EMPTY_DOCUMENT;
        }
        if (doc[i] != '{' && doc[i] != '[')
        {
            return JsonError.NONE;
        }
        final int after = skip(doc, i, doc.length, 0, maxDepth);
        if (after < 0)
        {
            return after;
        }
        for (int k = after; k < doc.length; k++)
        {
            if (!JsonBytes.isWhitespace(doc[k]))
            {
                return JsonError.TRAILING_DATA;
            }
        }
        return JsonError.NONE;
    }
}
