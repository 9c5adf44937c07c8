package io.sluice.core.config;

/**
 * Makes text from outside (a name from a record, a topic, a header, a configuration value) safe to put into one log
 * line or one line of command output: control characters are written as escapes, so a name cannot end a log line,
 * forge the next one, or move the terminal's cursor. Thread-safe (stateless).
 *
 * <p>Escapes: {@code \n}, {@code \r}, {@code \t}, and {@code \}{@code uXXXX} for every other character of Unicode
 * category Cc (C0 and C1 controls, DEL), for the line and paragraph separators U+2028/U+2029 and for the
 * bidirectional overrides U+202A..U+202E, U+2066..U+2069 (which reorder what a terminal shows). Other characters,
 * backslashes included, are kept: the result is for reading, not for parsing back.
 */
public final class Printable
{
    private Printable()
    {
    }

    /**
     * @param text any text, or null
     * @return the text with every control character escaped (the same instance when there is none); "null" for null
     */
    public static String escape(final CharSequence text)
    {
        if (text == null)
        {
            return "null";
        }
        final int n = text.length();
        int i = 0;
        while (i < n && !needsEscape(text.charAt(i)))
        {
            i++;
        }
        if (i == n)
        {
            return text.toString();
        }
        final StringBuilder sb = new StringBuilder(n + 16).append(text, 0, i);
        for (; i < n; i++)
        {
            final char c = text.charAt(i);
            if (!needsEscape(c))
            {
                sb.append(c);
                continue;
            }
            switch (c)
            {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(String.format("\\u%04x", (int)c));
            }
        }
        return sb.toString();
    }

    /**
     * @param c a UTF-16 unit
     * @return whether {@link #escape} rewrites it
     */
    public static boolean needsEscape(final char c)
    {
        return c < 0x20 || c >= 0x7f && c <= 0x9f || c == 0x2028 || c == 0x2029 || c >= 0x202a && c <= 0x202e
            || c >= 0x2066 && c <= 0x2069;
    }
}
