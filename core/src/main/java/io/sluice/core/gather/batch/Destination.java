package io.sluice.core.gather.batch;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.core.gather.split.RowEncoder;

/**
 * A resolved destination table of one branch: its names, the SQL text that names it and its columns, and the bound
 * columns in insert order. Created once per (branch, resolved table) off the hot path and then shared read-only;
 * the counters are updated by insert workers (atomically, once per batch) and read by metrics.
 */
public final class Destination
{
    private final int id;
    private final int branch;
    private final String branchName;
    private final String database;
    private final String table;
    private final String sqlTable;
    private final List<String> sqlColumns;
    private final String sink;
    private final RowEncoder.Bound<?> encoder;
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong inserts = new AtomicLong();

    /**
     * @param id         dense id, unique within the pipeline
     * @param branch     index of the branch that owns it
     * @param branchName name of that branch
     * @param database   database, verbatim
     * @param table      table, verbatim
     * @param sqlTable   the qualified, quoted name as written in SQL
     * @param sqlColumns the quoted column names in insert order
     * @param sink       name of the sink it belongs to
     * @param encoder    the branch's encoder bound to this table
     */
    public Destination(final int id, final int branch, final String branchName, final String database,
        final String table,
        final String sqlTable, final List<String> sqlColumns, final String sink,
        final RowEncoder.Bound<?> encoder)
    {
        this.id = id;
        this.branch = branch;
        this.branchName = branchName;
        this.database = database;
        this.table = table;
        this.sqlTable = sqlTable;
        this.sqlColumns = List.copyOf(sqlColumns);
        this.sink = sink;
        this.encoder = encoder;
    }

    /** @return dense id */
    public int id()
    {
        return id;
    }

    /** @return owning branch index */
    public int branch()
    {
        return branch;
    }

    /** @return owning branch name */
    public String branchName()
    {
        return branchName;
    }

    /** @return database, verbatim */
    public String database()
    {
        return database;
    }

    /** @return table, verbatim */
    public String table()
    {
        return table;
    }

    /** @return the qualified quoted name for SQL */
    public String sqlTable()
    {
        return sqlTable;
    }

    /** @return quoted column names in insert order */
    public List<String> sqlColumns()
    {
        return sqlColumns;
    }

    /** @return number of columns written */
    public int columnCount()
    {
        return sqlColumns.size();
    }

    /** @return the name of the sink this destination belongs to */
    public String sink()
    {
        return sink;
    }

    /** @return the branch's encoder bound to this table (the route stage casts it to the branch's row type) */
    public RowEncoder.Bound<?> encoder()
    {
        return encoder;
    }

    /**
     * Counts one successful insert (insert worker).
     *
     * @param rows  rows the insert wrote
     * @param bytes encoded bytes the insert sent
     */
    public void onInserted(final int rows, final long bytes)
    {
        rowsWritten.addAndGet(rows);
        bytesWritten.addAndGet(bytes);
        inserts.incrementAndGet();
    }

    /** @return rows durably written so far */
    public long rowsWritten()
    {
        return rowsWritten.get();
    }

    /** @return encoded bytes written so far */
    public long bytesWritten()
    {
        return bytesWritten.get();
    }

    /** @return successful inserts so far */
    public long inserts()
    {
        return inserts.get();
    }

    /** @return {@code database.table} for messages */
    @Override
    public String toString()
    {
        return database + "." + table;
    }
}
