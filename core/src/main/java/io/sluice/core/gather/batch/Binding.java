package io.sluice.core.gather.batch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * What the rows of a batch were encoded for: a branch's encoder bound to one version of a destination table, with the
 * table's description, the columns the rows hold and each column's type as the table spelled it then. A batch keeps
 * the binding it was opened with ({@link BatchBuffer#binding()}), so its rows are inserted with the types they were
 * encoded for (a Native block names them, and the server refuses them if the table has changed since) even when the
 * destination has been rebound meanwhile. Immutable; shared by the route stage and the insert workers.
 *
 * <p>Rows of an encoder with {@link RowEncoder.Bound#omittableColumns()} carry a 64-bit little-endian mask before
 * their values: bit {@code i} set means the {@code i}-th omittable column is not in the row, so the server evaluates
 * its DEFAULT (the kind's writer sends such rows without those columns).
 */
public final class Binding
{
    private final RowEncoder.Bound<?> encoder;
    private final TableSchema schema;
    private final List<String> columns;
    private final List<String> sqlColumns;
    private final List<String> types;
    private final int[] omittable;
    private final int generation;

    /**
     * @param encoder    the encoder bound to the table
     * @param schema     the table as described when the encoder was bound
     * @param sqlColumns the encoder's columns quoted for SQL, in its order
     * @param generation 1 for the first binding of a destination, one more for each rebinding
     * @throws IllegalArgumentException when the encoder writes a column the table does not have, or more than 64
     *                                  omittable columns
     */
    public Binding(final RowEncoder.Bound<?> encoder, final TableSchema schema, final List<String> sqlColumns,
        final int generation)
    {
        this.encoder = encoder;
        this.schema = schema;
        this.columns = List.copyOf(encoder.columns());
        this.sqlColumns = List.copyOf(sqlColumns);
        this.generation = generation;
        final Map<String, String> typeOf = new HashMap<>();
        for (final ColumnSpec c : schema.columns())
        {
            typeOf.put(c.name(), c.type());
        }
        final List<String> t = new ArrayList<>(columns.size());
        // a table described without columns (a destination made by hand) leaves the types unknown
        for (final String c : typeOf.isEmpty() ? List.<String>of() : columns)
        {
            final String type = typeOf.get(c);
            if (type == null)
            {
                throw new IllegalArgumentException("the encoder writes column " + c + " which table "
                    + schema.database() + "." + schema.table() + " does not have");
            }
            t.add(type);
        }
        this.types = List.copyOf(t);
        this.omittable = encoder.omittableColumns().clone();
        if (omittable.length > 64)
        {
            throw new IllegalArgumentException(omittable.length + " columns of " + schema.database() + "."
                + schema.table() + " need the server's DEFAULT; at most 64 can be left out of a row");
        }
    }

    /** @return the encoder bound to the table */
    public RowEncoder.Bound<?> encoder()
    {
        return encoder;
    }

    /** @return the table as described when the encoder was bound */
    public TableSchema schema()
    {
        return schema;
    }

    /** @return the columns a row holds, verbatim, in row order */
    public List<String> columns()
    {
        return columns;
    }

    /** @return the same columns quoted for SQL */
    public List<String> sqlColumns()
    {
        return sqlColumns;
    }

    /**
     * @return each column's type as the table spelled it when described, in row order; empty when the table was
     *     described without columns
     */
    public List<String> types()
    {
        return types;
    }

    /**
     * @return the indexes (into {@link #columns()}) of the columns a row may leave to the server's DEFAULT; when
     *     not empty every row starts with their 64-bit omission mask
     */
    public int[] omittableColumns()
    {
        return omittable.clone();
    }

    /** @return whether rows start with an omission mask */
    public boolean rowsCarryMask()
    {
        return omittable.length > 0;
    }

    /** @return 1 for a destination's first binding, one more for each rebinding */
    public int generation()
    {
        return generation;
    }

    /** @return the table's version when it was described, or empty when unknown */
    public String version()
    {
        return schema.version();
    }
}
