package io.sluice.sinks.clickhouse;

import java.util.Objects;

import io.sluice.core.naming.IdentifierPolicy;

/**
 * Quoting for names and values that Sluice puts into ClickHouse SQL text.
 *
 * <p>Every identifier is backquoted, always, even one that {@link IdentifierPolicy#REWRITE} produced: ClickHouse's
 * keywords are not reserved but are only safe as identifiers when quoted, and a name can come from a topic that
 * anybody allowed to create topics chose. The rules come from ClickHouse's documentation, "Syntax" page
 * (https://clickhouse.com/docs/sql-reference/syntax): identifiers may be quoted with backquotes or double quotes;
 * string literals use single quotes; inside both, a backslash starts an escape sequence, with {@code \b},
 * {@code \f}, {@code \r}, {@code \n}, {@code \t}, {@code \0}, {@code \a}, {@code \v} and {@code \xHH} having a
 * special value and {@code \c} standing for {@code c} otherwise.
 *
 * <p>What the quoting methods write between the quotes:
 * <ul>
 *   <li>{@code \} as {@code \\}, and the quote character as {@code \`} or {@code \'};</li>
 *   <li>backspace, form feed, line feed, carriage return, tab and NUL as {@code \b}, {@code \f}, {@code \n},
 *       {@code \r}, {@code \t}, {@code \0} (the same set ClickHouse's own {@code writeAnyEscapedString} escapes);</li>
 *   <li>every other ASCII control character (U+0001 to U+001F, U+007F) as {@code \xHH} with two lower-case hex
 *       digits;</li>
 *   <li>everything else verbatim, including non-ASCII text, which is sent as UTF-8.</li>
 * </ul>
 * Only escapes that decode the same way in old servers (18.x) and current ones are used; in particular no
 * {@code \c} for an ordinary {@code c}, which newer servers keep with its backslash, and never {@code \N}.
 * The output therefore contains no raw control character and no unescaped quote, so the name is exactly one
 * token of the statement whatever it holds ({@code ;}, {@code --}, {@code /*}, newlines, quotes).
 *
 * <p>Stateless and thread-safe. Allocates; meant for statements built once per destination, not per record.
 */
public final class ClickHouseIdentifiers
{
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private ClickHouseIdentifiers()
    {
    }

    /**
     * Quotes an identifier (database, table or column name) with backquotes.
     *
     * @param identifier the identifier exactly as ClickHouse should store it, not empty.
     * @return {@code `identifier`} with the escapes described on the class.
     * @throws NullPointerException     if {@code identifier} is null.
     * @throws IllegalArgumentException if it is empty (ClickHouse rejects an empty quoted identifier) or contains
     *                                  an unpaired surrogate, which has no UTF-8 form.
     */
    public static String quote(final String identifier)
    {
        Objects.requireNonNull(identifier, "identifier");
        if (identifier.isEmpty())
        {
            throw new IllegalArgumentException("an identifier must not be empty");
        }
        return quoted(identifier, '`', "identifier");
    }

    /**
     * Quotes a qualified table name, {@code `database`.`table`}. Always qualify: client-v2 does not apply its
     * default database to inserts.
     *
     * @param database the database name, not empty.
     * @param table    the table name, not empty.
     * @return the two quoted identifiers joined by {@code .}.
     * @throws NullPointerException     if either is null.
     * @throws IllegalArgumentException as {@link #quote(String)}.
     */
    public static String qualified(final String database, final String table)
    {
        return quote(database) + '.' + quote(table);
    }

    /**
     * Quotes a string literal with single quotes, for values in SQL text such as
     * {@code WHERE name = 'my.table'} in a lookup in {@code system.tables}.
     *
     * @param value the value, may be empty.
     * @return {@code 'value'} with the escapes described on the class.
     * @throws NullPointerException     if {@code value} is null.
     * @throws IllegalArgumentException if it contains an unpaired surrogate, which has no UTF-8 form.
     */
    public static String quoteString(final String value)
    {
        Objects.requireNonNull(value, "value");
        return quoted(value, '\'', "string");
    }

    private static String quoted(final String text, final char quote, final String what)
    {
        final StringBuilder out = new StringBuilder(text.length() + 8);
        out.append(quote);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '\\' :
                    out.append("\\\\");
                    break;
                case '\b' :
                    out.append("\\b");
                    break;
                case '\f' :
                    out.append("\\f");
                    break;
                case '\n' :
                    out.append("\\n");
                    break;
                case '\r' :
                    out.append("\\r");
                    break;
                case '\t' :
                    out.append("\\t");
                    break;
                case '\0' :
                    out.append("\\0");
                    break;
                default :
                    if (c == quote)
                    {
                        out.append('\\').append(c);
                    }
                    else if (c < 0x20 || c == 0x7F)
                    {
                        out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    }
                    else if (Character.isSurrogate(c))
                    {
                        if (Character.isHighSurrogate(c) && i + 1 < text.length() &&
                            Character.isLowSurrogate(text.charAt(i + 1)))
                        {
                            out.append(c).append(text.charAt(++i));
                        }
                        else
                        {
                            throw new IllegalArgumentException(
                                "the " + what + " has an unpaired surrogate at index " + i + ": " + text);
                        }
                    }
                    else
                    {
                        out.append(c);
                    }
                    break;
            }
        }
        return out.append(quote).toString();
    }
}
