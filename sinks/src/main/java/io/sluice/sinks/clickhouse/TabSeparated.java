package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads ClickHouse's TabSeparated output: rows end with {@code \n}, fields are separated by {@code \t}, and a field
 * escapes {@code \t}, {@code \n}, {@code \\} and a few more with a backslash (ClickHouse docs, "Formats →
 * TabSeparated → Data Formatting"). Used for metadata queries because every server version, including 18.16,
 * speaks it. Thread-safe (stateless).
 */
final class TabSeparated
{
    private TabSeparated()
    {
    }

    /**
     * @param text the whole response body
     * @return rows of unescaped fields
     */
    static List<List<String>> parse(final String text)
    {
        final List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        final StringBuilder field = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length())
            {
                final char n = text.charAt(++i);
                switch (n)
                {
                    case 't' -> field.append('\t');
                    case 'n' -> field.append('\n');
                    case 'r' -> field.append('\r');
                    case 'b' -> field.append('\b');
                    case 'f' -> field.append('\f');
                    case '0' -> field.append('\0');
                    case 'a' -> field.append('\u0007');
                    case 'v' -> field.append('\u000B');
                    default -> field.append(n);
                }
            }
            else if (c == '\t')
            {
                row.add(field.toString());
                field.setLength(0);
            }
            else if (c == '\n')
            {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
            }
            else
            {
                field.append(c);
            }
        }
        if (field.length() > 0 || !row.isEmpty())
        {
            row.add(field.toString());
            rows.add(row);
        }
        return rows;
    }
}
