package io.sluice.sinks.postgres;

import java.nio.charset.StandardCharsets;

import io.sluice.core.gather.sink.SinkException;

/**
 * PostgreSQL identifiers as Sluice writes them: a schema and a table are two separate names, each always written as
 * a quoted identifier ({@code "..."} with every embedded {@code "} doubled, PostgreSQL manual, section 4.1.1
 * "Identifiers and Key Words"), so case is kept and no dot, space or quote inside a name is ever read as syntax. A
 * name is never split on dots: topic {@code orders.eu} is the one table {@code "orders.eu"}.
 *
 * <p>PostgreSQL keeps at most {@value #MAX_BYTES} bytes of an identifier (NAMEDATALEN - 1, in the server's
 * encoding, here UTF-8) and silently truncates longer ones, so two long names could become the same table.
 * {@link #requireValid} refuses such a name before any statement names it; it is never truncated. Thread-safe
 * (stateless).
 */
public final class PostgresIdentifiers
{
    /** The longest identifier PostgreSQL keeps, in bytes: NAMEDATALEN (64) minus its terminating NUL. */
    public static final int MAX_BYTES = 63;

    private PostgresIdentifiers()
    {
    }

    /**
     * @param name an identifier, verbatim (any characters)
     * @return the name as a quoted identifier, e.g. {@code orders.eu} as {@code "orders.eu"} and {@code a"b} as
     *     {@code "a""b"}
     */
    public static String quote(final String name)
    {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * @param schema schema name, verbatim
     * @param table  table name, verbatim
     * @return both quoted and joined by a dot, e.g. {@code "public"."orders.eu"}
     */
    public static String qualified(final String schema, final String table)
    {
        return quote(schema) + '.' + quote(table);
    }

    /**
     * @param name an identifier, verbatim
     * @return its length in bytes in UTF-8, the unit of PostgreSQL's limit
     */
    public static int utf8Length(final String name)
    {
        return name.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Checks that PostgreSQL stores a name exactly as given: not empty, no NUL character, at most
     * {@value #MAX_BYTES} bytes in UTF-8.
     *
     * @param what what the name is, for the message (e.g. {@code "table"} or {@code "schema"})
     * @param name the name, verbatim
     * @return the name
     * @throws SinkException (not retriable, code {@link PostgresErrors#code(String)} of 42622 name_too_long or
     *     42602 invalid_name) naming the name and its length in bytes
     */
    public static String requireValid(final String what, final String name) throws SinkException
    {
        if (name == null || name.isEmpty())
        {
            throw new SinkException("the " + what + " name is empty: PostgreSQL has no zero-length identifier", false,
                PostgresErrors.code("42602"), null);
        }
        if (name.indexOf('\0') >= 0)
        {
            throw new SinkException("the " + what + " name " + quote(name.replace("\0", "\\0")) + " contains a NUL "
                + "character, which no PostgreSQL identifier can hold", false, PostgresErrors.code("42602"), null);
        }
        final int bytes = utf8Length(name);
        if (bytes > MAX_BYTES)
        {
            throw new SinkException("the " + what + " name " + quote(name) + " is " + bytes + " bytes in UTF-8; "
                + "PostgreSQL keeps at most " + MAX_BYTES + " (NAMEDATALEN - 1) and would silently truncate it, so "
                + "Sluice refuses it rather than write to a truncated name: shorten the topic or the target_table "
                + "template", false, PostgresErrors.code("42622"), null);
        }
        return name;
    }
}
