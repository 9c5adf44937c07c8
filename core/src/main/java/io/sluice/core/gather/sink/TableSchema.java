package io.sluice.core.gather.sink;

import java.util.List;

/**
 * The columns of one destination table, in table order, with what the destination says about the table itself when
 * it knows: its engine and its version (a token that changes with every change of the table's definition).
 *
 * @param database database name, verbatim
 * @param table    table name, verbatim
 * @param columns  every column, in table order
 * @param engine   the table's engine as the destination names it (ClickHouse: {@code MergeTree}, {@code Memory}, ...),
 *                 or empty when unknown
 * @param version  the table's version when it was described (see {@link DestinationCatalog#tableVersion}), or empty
 *                 when the destination has none
 */
public record TableSchema(String database, String table, List<ColumnSpec> columns, String engine, String version)
{
    /**
     * Copies the column list; a null engine or version is empty.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @param columns  every column, in table order
     * @param engine   the table's engine, or empty when unknown
     * @param version  the table's version when it was described, or empty
     */
    public TableSchema
    {
        columns = List.copyOf(columns);
        engine = engine == null ? "" : engine;
        version = version == null ? "" : version;
    }

    /**
     * A table whose engine and version are unknown.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @param columns  every column, in table order
     */
    public TableSchema(final String database, final String table, final List<ColumnSpec> columns)
    {
        this(database, table, columns, "", "");
    }

    /**
     * @param other another description of a table
     * @return whether both have the same columns (names, types, default kinds and expressions, in order), whatever
     *     their versions
     */
    public boolean sameColumns(final TableSchema other)
    {
        return other != null && columns.equals(other.columns);
    }
}
