package io.sluice.codecs.json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One parsed path into a JSON document, such as {@code user.id} or {@code items.0.sku}.
 *
 * <p>Syntax (the same as the {@code path} of a {@code field} routing rule):
 * <ul>
 *   <li>Segments are separated by {@code .}; each segment names an object key, compared byte for byte with the
 *       key's UTF-8 text after JSON unescaping.</li>
 *   <li>{@code \.} is a literal dot inside a name and {@code \\} a literal backslash: {@code a\.b} is the single key
 *       {@code "a.b"}, {@code a\\.b} is key {@code "a\"} then key {@code "b"}. A backslash before any other character
 *       or at the end is an error.</li>
 *   <li>A segment of only ASCII digits matches an object key with that name and, when it is {@code 0} or has no
 *       leading zero and fits an {@code int}, also the array element at that index (case R7:
 *       {@code heads.0.value} finds {@code {"heads":{"0":{"value":250}}}} and {@code items.1.sku} finds the second
 *       element of an {@code items} array). {@code 01} matches only the key {@code "01"}.</li>
 *   <li>Empty expressions and empty segments ({@code .a}, {@code a.}, {@code a..b}) are errors.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class JsonPath
{
    private final String expression;
    private final String[] segments;
    private final int[] arrayIndexes;

    private JsonPath(final String expression, final String[] segments, final int[] arrayIndexes)
    {
        this.expression = expression;
        this.segments = segments;
        this.arrayIndexes = arrayIndexes;
    }

    /**
     * Parses a path expression.
     *
     * @param expression the expression, e.g. {@code actor.login}; not null.
     * @return the parsed path.
     * @throws IllegalArgumentException naming the expression, the problem and its character position, for an empty
     *                                  expression or segment, a bad escape, or an unpaired UTF-16 surrogate.
     */
    public static JsonPath parse(final String expression)
    {
        if (expression == null)
        {
            throw new IllegalArgumentException("JSON path is null");
        }
        if (expression.isEmpty())
        {
            throw new IllegalArgumentException("JSON path '' is empty");
        }
        final List<String> segments = new ArrayList<>();
        final StringBuilder segment = new StringBuilder();
        for (int i = 0; i < expression.length(); i++)
        {
            final char c = expression.charAt(i);
            if (c == '\\')
            {
                if (i + 1 >= expression.length())
                {
                    throw problem(expression, "ends with a lone backslash (write \\\\ for a literal backslash)", i);
                }
                final char next = expression.charAt(++i);
                if (next != '.' && next != '\\')
                {
                    throw problem(expression, "has an unknown escape \\" + next +
                        " (only \\. and \\\\ are escapes)", i - 1);
                }
                segment.append(next);
            }
            else if (c == '.')
            {
                if (segment.length() == 0)
                {
                    throw problem(expression, "has an empty segment", i);
                }
                segments.add(segment.toString());
                segment.setLength(0);
            }
            else
            {
                if (Character.isSurrogate(c))
                {
                    if (Character.isHighSurrogate(c) && i + 1 < expression.length() &&
                        Character.isLowSurrogate(expression.charAt(i + 1)))
                    {
                        segment.append(c).append(expression.charAt(++i));
                        continue;
                    }
                    throw problem(expression, "has an unpaired UTF-16 surrogate", i);
                }
                segment.append(c);
            }
        }
        if (segment.length() == 0)
        {
            throw problem(expression, "has an empty segment", expression.length());
        }
        segments.add(segment.toString());

        final String[] names = segments.toArray(new String[0]);
        final int[] indexes = new int[names.length];
        for (int s = 0; s < names.length; s++)
        {
            indexes[s] = arrayIndexOf(names[s]);
        }
        return new JsonPath(expression, names, indexes);
    }

    private static IllegalArgumentException problem(final String expression, final String what, final int position)
    {
        return new IllegalArgumentException("JSON path '" + expression + "' " + what + " at position " + position);
    }

    private static int arrayIndexOf(final String name)
    {
        final int length = name.length();
        if (length > 10 || (length > 1 && name.charAt(0) == '0'))
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < length; i++)
        {
            final char c = name.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value <= Integer.MAX_VALUE ? (int)value : -1;
    }

    /**
     * The expression as given to {@link #parse}.
     *
     * @return the expression text.
     */
    public String expression()
    {
        return expression;
    }

    /**
     * Number of segments, at least one.
     *
     * @return the segment count.
     */
    public int segmentCount()
    {
        return segments.length;
    }

    /**
     * The key name of a segment with escapes resolved ({@code a\.b} gives {@code a.b}).
     *
     * @param index segment index in {@code [0, segmentCount())}.
     * @return the name.
     */
    public String segment(final int index)
    {
        return segments[index];
    }

    /**
     * The array index a segment also matches, or -1 if it matches object keys only.
     *
     * @param index segment index in {@code [0, segmentCount())}.
     * @return the array index ({@code >= 0}) or -1.
     */
    public int arrayIndex(final int index)
    {
        return arrayIndexes[index];
    }

    /**
     * Two paths are equal when their segments are equal, whatever the spelling.
     *
     * @param other the other object.
     * @return whether both address the same location.
     */
    @Override
    public boolean equals(final Object other)
    {
        return other instanceof JsonPath && Arrays.equals(segments, ((JsonPath)other).segments);
    }

    /**
     * Hash of the segments, consistent with {@link #equals}.
     *
     * @return the hash code.
     */
    @Override
    public int hashCode()
    {
        return Arrays.hashCode(segments);
    }

    /**
     * The expression.
     *
     * @return {@link #expression()}.
     */
    @Override
    public String toString()
    {
        return expression;
    }
}
