package io.sluice.core.naming;

import java.util.Locale;
import java.util.Objects;

/**
 * What a sink does with a resolved destination name before using it as a database or table identifier.
 *
 * <p>Topic names can carry {@code -} and {@code .}, which unquoted SQL identifiers cannot. ClickHouse accepts an
 * unquoted identifier only if it matches {@code ^[a-zA-Z_][0-9a-zA-Z_]*$} (ClickHouse documentation, "Syntax →
 * Identifiers"); anything else has to be quoted in every query that names it.
 *
 * <ul>
 *   <li>{@link #REWRITE} (the ClickHouse sink's default) makes a name that every later query can write without
 *       quotes: {@code orders.eu} becomes {@code orders_eu}.</li>
 *   <li>{@link #QUOTE} keeps the name verbatim: a table literally called {@code orders.eu}, which every later query
 *       has to quote.</li>
 * </ul>
 *
 * <p>Either way Sluice quotes every identifier it puts into SQL (the sink kind's quoting, e.g. backquotes):
 * rewriting does not make a keyword such as {@code table} safe to leave bare. Rewriting can map different topics
 * to one table ({@code orders.eu} and {@code orders_eu} both become {@code orders_eu}); that is by design, as with
 * Kafka's own metric names.
 *
 * <p>Thread-safe (enum constants are stateless).
 */
public enum IdentifierPolicy
{
    /**
     * Replace every code point outside {@code [A-Za-z0-9_]} with one {@code _} (no Unicode normalisation, so a
     * decomposed accent is two code points and two {@code _}), then prefix a leading digit with {@code _}.
     * {@code RÖKSKÅP_1} becomes {@code R_KSK_P_1}, {@code 1test} becomes {@code _1test}, {@code table} stays
     * {@code table}.
     */
    REWRITE,

    /** Keep the name verbatim; it is quoted wherever it is used. */
    QUOTE;

    /**
     * Reads the policy from a configuration value.
     *
     * @param configValue {@code rewrite} or {@code quote}, in any letter case.
     * @return the policy.
     * @throws NullPointerException     if {@code configValue} is null.
     * @throws IllegalArgumentException naming the value if it is neither.
     */
    public static IdentifierPolicy parse(final String configValue)
    {
        Objects.requireNonNull(configValue, "configValue");
        switch (configValue.toLowerCase(Locale.ROOT))
        {
            case "rewrite" :
                return REWRITE;
            case "quote" :
                return QUOTE;
            default :
                throw new IllegalArgumentException(
                    "identifier policy '" + configValue + "' is not one of: rewrite, quote");
        }
    }

    /**
     * The configuration spelling of this policy.
     *
     * @return {@code rewrite} or {@code quote}.
     */
    public String configValue()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Applies the policy to a resolved destination name.
     *
     * @param name the resolved name, not null or empty.
     * @return the identifier: for {@link #REWRITE} matching {@code ^[A-Za-z_][A-Za-z0-9_]*$}, for {@link #QUOTE}
     *         the name itself. Still to be quoted in SQL.
     * @throws NullPointerException     if {@code name} is null.
     * @throws IllegalArgumentException if {@code name} is empty.
     */
    public String apply(final String name)
    {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty())
        {
            throw new IllegalArgumentException("an identifier must not be empty");
        }
        if (this == QUOTE)
        {
            return name;
        }

        final StringBuilder out = new StringBuilder(name.length() + 1);
        if (name.charAt(0) >= '0' && name.charAt(0) <= '9')
        {
            out.append('_');
        }
        for (int i = 0; i < name.length();)
        {
            final int codePoint = name.codePointAt(i);
            out.append(isUnquotedIdentifierChar(codePoint) ? (char)codePoint : '_');
            i += Character.charCount(codePoint);
        }
        return out.toString();
    }

    private static boolean isUnquotedIdentifierChar(final int c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
}
