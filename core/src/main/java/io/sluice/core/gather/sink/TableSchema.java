package io.sluice.core.gather.sink;

import java.util.List;

/**
 * The columns of one destination table, in table order.
 *
 * @param database database name, verbatim
 * @param table    table name, verbatim
 * @param columns  every column, in table order
 */
public record TableSchema(String database, String table, List<ColumnSpec> columns)
{
    /**
     * Copies the column list.
     *
     * @param database database name, verbatim
     * @param table    table name, verbatim
     * @param columns  every column, in table order
     */
    public TableSchema
    {
        columns = List.copyOf(columns);
    }
}
