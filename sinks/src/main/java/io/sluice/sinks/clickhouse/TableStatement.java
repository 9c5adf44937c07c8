package io.sluice.sinks.clickhouse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What Sluice reads from a table's CREATE statement as the server prints it ({@code SHOW CREATE TABLE}, or
 * {@code system.tables.create_table_query}): the table's version and its engine. Both are computed from the text
 * alone, so reading them costs one statement of one table: on ClickHouse 18.16 {@code SHOW CREATE TABLE} opens that
 * table's metadata file only, while any query of {@code system.tables} builds its columns for every table of the
 * database before it filters (docs/schema-changes.md, section 3). Thread-safe (stateless).
 */
final class TableStatement
{
    private TableStatement()
    {
    }

    /**
     * The statement without the whitespace the server's formatting adds: current releases print
     * {@code SHOW CREATE TABLE} over several lines and {@code create_table_query} on one, 18.16 both on one line with
     * the same spacing. Outside quotes a run of whitespace is dropped, except between two characters of a word
     * (letters, digits, {@code _}), where it becomes one space, so {@code a UInt8} and {@code aU Int8} stay apart.
     * Inside {@code '...'}, {@code `...`} and {@code "..."} nothing changes; a quote ends at the same quote character
     * that is neither escaped by a backslash nor doubled ({@code ''}), as ClickHouse's lexer reads them.
     *
     * @param statement a CREATE statement as the server printed it (TabSeparated escapes already undone)
     * @return the normalised text
     */
    static String normalise(final String statement)
    {
        final int n = statement.length();
        final StringBuilder out = new StringBuilder(n);
        int i = 0;
        while (i < n)
        {
            final char c = statement.charAt(i);
            if (c == '\'' || c == '`' || c == '"')
            {
                final int end = quoteEnd(statement, i);
                out.append(statement, i, end);
                i = end;
            }
            else if (Character.isWhitespace(c))
            {
                int j = i + 1;
                while (j < n && Character.isWhitespace(statement.charAt(j)))
                {
                    j++;
                }
                if (!out.isEmpty() && j < n && word(out.charAt(out.length() - 1)) && word(statement.charAt(j)))
                {
                    out.append(' ');
                }
                i = j;
            }
            else
            {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** @return the index after the quoted part that starts at {@code start} (the end of the text if unclosed) */
    private static int quoteEnd(final String s, final int start)
    {
        final char quote = s.charAt(start);
        int i = start + 1;
        while (i < s.length())
        {
            final char c = s.charAt(i);
            if (c == '\\')
            {
                i += 2;
            }
            else if (c == quote)
            {
                if (i + 1 < s.length() && s.charAt(i + 1) == quote)
                {
                    i += 2;
                }
                else
                {
                    return i + 1;
                }
            }
            else
            {
                i++;
            }
        }
        return s.length();
    }

    private static boolean word(final char c)
    {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /**
     * The table's version: the first 64 bits of the SHA-256 of the {@link #normalise normalised} statement (UTF-8),
     * as 16 lower-case hex digits. Every ALTER that changes a column (its name, type, DEFAULT, codec, comment), the
     * engine or its settings changes the statement and so the version; a table dropped and created again with the
     * same statement keeps it (its columns are the same, so rows encoded for them still fit).
     *
     * @param statement a CREATE statement as the server printed it
     * @return 16 hex digits
     */
    static String version(final String statement)
    {
        final byte[] digest;
        try
        {
            digest = MessageDigest.getInstance("SHA-256").digest(normalise(statement).getBytes(
                StandardCharsets.UTF_8));
        }
        catch (final NoSuchAlgorithmException e)
        {
            // every Java platform has SHA-256 (MessageDigest's Javadoc)
            throw new IllegalStateException(e);
        }
        final StringBuilder hex = new StringBuilder(16);
        for (int i = 0; i < 8; i++)
        {
            hex.append(Character.forDigit(digest[i] >> 4 & 0xF, 16)).append(Character.forDigit(digest[i] & 0xF, 16));
        }
        return hex.toString();
    }

    /**
     * The engine as {@code system.tables.engine} names it, read from the statement: {@code View},
     * {@code MaterializedView}, {@code LiveView}, {@code WindowView} or {@code Dictionary} from the statement's
     * kind ({@code CREATE MATERIALIZED VIEW ...}: the ENGINE clause of a materialized view is its inner table's, not
     * its own); for {@code CREATE [TEMPORARY] TABLE} the name after the first {@code ENGINE =} outside quotes and
     * parentheses ({@code ReplicatedMergeTree('/p', '{replica}')} gives {@code ReplicatedMergeTree}). Empty when the
     * statement names none (a table over a table function, {@code CREATE TABLE t AS remote(...)}), which the version
     * guard treats as "not of the MergeTree family", its cautious side.
     *
     * @param statement a CREATE statement as the server printed it
     * @return the engine's name, or empty
     */
    static String engine(final String statement)
    {
        final String s = normalise(statement);
        if (s.startsWith("CREATE MATERIALIZED VIEW") || s.startsWith("ATTACH MATERIALIZED VIEW"))
        {
            return "MaterializedView";
        }
        if (s.startsWith("CREATE VIEW") || s.startsWith("ATTACH VIEW"))
        {
            return "View";
        }
        if (s.startsWith("CREATE LIVE VIEW"))
        {
            return "LiveView";
        }
        if (s.startsWith("CREATE WINDOW VIEW"))
        {
            return "WindowView";
        }
        if (s.startsWith("CREATE DICTIONARY"))
        {
            return "Dictionary";
        }
        int depth = 0;
        int i = 0;
        while (i < s.length())
        {
            final char c = s.charAt(i);
            if (c == '\'' || c == '`' || c == '"')
            {
                i = quoteEnd(s, i);
                continue;
            }
            if (c == '(')
            {
                depth++;
            }
            else if (c == ')')
            {
                depth--;
            }
            else if (depth == 0 && s.startsWith("ENGINE=", i) && (i == 0 || !word(s.charAt(i - 1))))
            {
                int end = i + "ENGINE=".length();
                final int start = end;
                while (end < s.length() && word(s.charAt(end)))
                {
                    end++;
                }
                return s.substring(start, end);
            }
            i++;
        }
        return "";
    }
}
