package io.sluice.core.gather.json;

import io.sluice.codecs.json.JsonPath;

/**
 * Checks a branch's {@code columns} mapping without a table: the column name is not empty, a value starting with
 * {@code $} names a Kafka metadata source ({@link MetadataColumn}: {@code $topic}, {@code $offset},
 * {@code $header.NAME}, ...), and any other value is a JSON path ({@code \$x} reads the key {@code $x}). Whether the
 * column exists and takes the source's type is checked when the table is bound. Stateless; any thread.
 */
public final class ColumnMappings
{
    private ColumnMappings()
    {
    }

    /**
     * @param column  the mapped column's name, as written
     * @param mapping what it is filled from, as written
     * @return null when the mapping is well-formed, else what is wrong with it (without the config key)
     */
    public static String problem(final String column, final String mapping)
    {
        if (column.isBlank())
        {
            return "a column name is empty (columns maps a table column to a JSON path or a $ source)";
        }
        final String spec = MetadataColumn.specOf(column, mapping);
        if (spec != null)
        {
            return MetadataColumn.knownSource(spec)
                ? null
                : "'" + spec + "' is no Kafka metadata source: " + MetadataColumn.SOURCES
                    + " (a JSON path starting with $ is written \\$...)";
        }
        try
        {
            JsonPath.parse(MetadataColumn.jsonPath(mapping));
            return null;
        }
        catch (final IllegalArgumentException e)
        {
            return e.getMessage();
        }
    }

    /**
     * A column name used as a JSON path: dots and backslashes in the name are escaped (JsonPath syntax), so
     * {@code a.b} reads the key {@code "a.b"}, not the member {@code b} of {@code a}.
     *
     * @param name a column name, verbatim
     * @return the JSON path that reads the key of that name
     */
    public static String escapeName(final String name)
    {
        return name.replace("\\", "\\\\").replace(".", "\\.");
    }

    /**
     * The JSON path a column reads: its mapping ({@code \$x} reads the key {@code $x}), else its own name
     * ({@link #escapeName}). For a column that is not filled from Kafka metadata
     * ({@link MetadataColumn#specOf} is null).
     *
     * @param column  the column's name
     * @param mapping its {@code columns} mapping, or null
     * @return the JSON path expression
     */
    public static String jsonPath(final String column, final String mapping)
    {
        return mapping != null ? MetadataColumn.jsonPath(mapping) : escapeName(column);
    }
}
