package io.sluice.core.gather.batch;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;

/**
 * A resolved destination table of one branch: its names, the SQL text that names it, and its current
 * {@link Binding} (the branch's encoder bound to the table's columns as last described). Created once per (branch,
 * resolved table) off the hot path; the binding is replaced when the table changes ({@link #rebind}, route stage
 * only) and read by any thread. A refresh is asked for by whoever notices a change ({@link #requestRefresh}: an
 * insert worker whose insert the server refused because the table changed, or the schema watch that saw the table's
 * version move); the route stage describes the table again and rebinds before it encodes the next row for it. The
 * counters are updated by insert workers (atomically, once per batch) and read by metrics.
 */
public final class Destination
{
    private final int id;
    private final int branch;
    private final String branchName;
    private final String database;
    private final String table;
    private final String sqlTable;
    private final String sink;
    private final DestinationCatalog catalog;
    private final long schemaRefreshMs;
    private volatile Binding binding;
    private volatile String refreshReason;
    private volatile long lastVersionCheckNanos;
    private volatile String unwritable;
    /** The table's positions for an exactly-once sink (route stage only); null for at-least-once. */
    private PositionChain positions;
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong rowsDeleted = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong inserts = new AtomicLong();

    /**
     * A destination whose table's columns are not known (its encoder writes what it writes): for tests and
     * embedders that bind encoders themselves.
     *
     * @param id         dense id, unique within the pipeline
     * @param branch     index of the branch that owns it
     * @param branchName name of that branch
     * @param database   database, verbatim
     * @param table      table, verbatim
     * @param sqlTable   the qualified, quoted name as written in SQL
     * @param sqlColumns the quoted column names in insert order
     * @param sink       name of the sink it belongs to
     * @param encoder    the branch's encoder bound to this table, or null
     */
    public Destination(final int id, final int branch, final String branchName, final String database,
        final String table,
        final String sqlTable, final List<String> sqlColumns, final String sink,
        final RowEncoder.Bound<?> encoder)
    {
        this(id, branch, branchName, database, table, sqlTable, sink, null, 0, encoder == null
            ? null
            : new Binding(encoder, new TableSchema(database, table, List.of()), sqlColumns, 1));
    }

    /**
     * @param id              dense id, unique within the pipeline
     * @param branch          index of the branch that owns it
     * @param branchName      name of that branch
     * @param database        database, verbatim
     * @param table           table, verbatim
     * @param sqlTable        the qualified, quoted name as written in SQL
     * @param sink            name of the sink it belongs to
     * @param catalog         the sink's catalog (the schema watch reads the table's version through it), or null
     * @param schemaRefreshMs how often the table's version is read, ms ({@code schema_refresh_ms}); 0: never
     * @param binding         the branch's encoder bound to the table as described now
     */
    public Destination(final int id, final int branch, final String branchName, final String database,
        final String table, final String sqlTable, final String sink, final DestinationCatalog catalog,
        final long schemaRefreshMs, final Binding binding)
    {
        this.id = id;
        this.branch = branch;
        this.branchName = branchName;
        this.database = database;
        this.table = table;
        this.sqlTable = sqlTable;
        this.sink = sink;
        this.catalog = catalog;
        this.schemaRefreshMs = schemaRefreshMs;
        this.binding = binding;
        this.lastVersionCheckNanos = System.nanoTime();
    }

    /**
     * Makes this an exactly-once destination (before the route stage uses it).
     *
     * @param chain the table's positions
     */
    public void positions(final PositionChain chain)
    {
        this.positions = chain;
    }

    /** @return the table's positions when its sink is exactly-once, else null (route stage thread) */
    public PositionChain positions()
    {
        return positions;
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

    /** @return quoted column names in insert order, of the current binding */
    public List<String> sqlColumns()
    {
        final Binding b = binding;
        return b == null ? List.of() : b.sqlColumns();
    }

    /** @return number of columns written, of the current binding */
    public int columnCount()
    {
        return sqlColumns().size();
    }

    /** @return the name of the sink this destination belongs to */
    public String sink()
    {
        return sink;
    }

    /** @return the branch's encoder bound to this table (the route stage casts it to the branch's row type) */
    public RowEncoder.Bound<?> encoder()
    {
        final Binding b = binding;
        return b == null ? null : b.encoder();
    }

    /** @return the current binding: the encoder and the table's columns it was bound to */
    public Binding binding()
    {
        return binding;
    }

    /**
     * Replaces the binding after the table was described again (route stage only); clears a pending refresh.
     *
     * @param next the new binding
     */
    public void rebind(final Binding next)
    {
        binding = next;
        refreshReason = null;
    }

    /**
     * Asks the route stage to describe the table again and rebind before it encodes the next row for it (any
     * thread).
     *
     * @param reason what was noticed, for the log (e.g. the server's refusal)
     */
    public void requestRefresh(final String reason)
    {
        refreshReason = reason;
    }

    /** @return why a refresh was asked for and not yet done, or {@code null} (one volatile read: per record) */
    public String refreshRequested()
    {
        return refreshReason;
    }

    /** Forgets a refresh request that could not be carried out (the table could not be described). */
    public void clearRefresh()
    {
        refreshReason = null;
    }

    /**
     * @return why the table, as it changed, cannot be written by the branch (a mapped column dropped, a type the
     *     encoder cannot write), or {@code null}; records that reach it stop their partitions until it can
     */
    public String unwritable()
    {
        return unwritable;
    }

    /** @param reason why the changed table cannot be written, or {@code null} once it can (route stage) */
    public void unwritable(final String reason)
    {
        unwritable = reason;
    }

    /** @return the sink's catalog, for reading the table's version; null when the destination has none */
    public DestinationCatalog catalog()
    {
        return catalog;
    }

    /** @return how often the table's version is read, ms; 0 when never */
    public long schemaRefreshMs()
    {
        return schemaRefreshMs;
    }

    /** @return when the schema watch last read the table's version, {@link System#nanoTime()} (watch thread) */
    public long lastVersionCheckNanos()
    {
        return lastVersionCheckNanos;
    }

    /** @param nanos when the schema watch read the table's version, {@link System#nanoTime()} (watch thread) */
    public void lastVersionCheckNanos(final long nanos)
    {
        lastVersionCheckNanos = nanos;
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

    /**
     * Counts rows a successful insert deleted (tombstones under {@code tombstones = "delete"}; insert worker).
     *
     * @param rows how many
     */
    public void onDeleted(final int rows)
    {
        if (rows > 0)
        {
            rowsDeleted.addAndGet(rows);
        }
    }

    /** @return rows deleted so far (thread-safe) */
    public long rowsDeleted()
    {
        return rowsDeleted.get();
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
