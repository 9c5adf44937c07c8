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
}
