package io.sluice.sinks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.gather.BatchWriter;
import io.sluice.core.gather.SourcePositions;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.OmissionMask;
import io.sluice.core.gather.sink.SinkException;

/**
 * Writes a sealed batch into PostgreSQL with binary COPY, one transaction per batch (or part of one, when the insert
 * worker splits a refused batch to find its records: {@link #writesPartOfBatch()} is true).
 *
 * <p>Each transaction:
 * <ol>
 *   <li>{@code LOCK TABLE t IN ROW EXCLUSIVE MODE}: the lock COPY and INSERT take anyway, taken first so that an
 *       {@code ALTER TABLE} (ACCESS EXCLUSIVE) either committed before it or waits until this transaction ends;</li>
 *   <li>the table's version ({@link PostgresCatalog#tableVersion}'s query, in the same transaction) compared with the
 *       version the rows were encoded for ({@link Binding#version()}): a table changed since is a
 *       {@link SinkException#schemaChanged()} and nothing is written, so a row is never read with another column's
 *       type;</li>
 *   <li>append: {@code COPY t (columns) FROM STDIN (FORMAT binary)} through pgJDBC's {@link CopyManager}, the header,
 *       each row's tuple copied from the batch's off-heap bytes ({@link BatchBuffer#rowStart}..{@link
 *       BatchBuffer#rowEnd}, after the row's 8-byte omission mask when the binding has one), the trailer; one COPY per
 *       omission mask, naming only the columns the rows hold, so the server evaluates the others' DEFAULT;</li>
 *   <li>upsert ({@code insert_mode = "upsert"}): the same COPY into a temporary staging table of this session
 *       ({@code ON COMMIT DELETE ROWS}; two more columns, the row's index in the batch and its mask, prepended to
 *       each tuple), the batch's deletes run, then {@code INSERT INTO t (columns) SELECT ... ON CONFLICT (key) DO
 *       UPDATE SET c = EXCLUDED.c} with at most one row per key each, so a key repeated in a batch never raises
 *       21000: when all rows set the same columns, one such statement of the latest row of each key; else the rows
 *       that matter to the end state numbered in rounds ({@link #rounds}) and one statement per round and mask, so
 *       that the end state is that of applying the records one by one in offset order, whatever the batching;</li>
 *   <li>{@code delivery = "exactly_once"}: the positions of the batch's partitions moved
 *       ({@link PostgresPositions#move}), each conditional on the position the batch was built on, as the last
 *       statements before COMMIT, so that the positions' row locks are held only between a statement and the next
 *       and never while the server waits for a COPY's data: a writer whose client froze there is a session idle in
 *       its transaction, which {@code idle_in_transaction_session_timeout} ends ({@link PostgresConnections});</li>
 *   <li>COMMIT; on any failure ROLLBACK, and the failure classified by {@link PostgresErrors}: a value or constraint
 *       the server refuses (classes 22 and 23) is {@link SinkException#recordCaused()} (the insert worker then splits
 *       the batch to find the records), the message naming the SQLSTATE, the table, the column and constraint the
 *       server named; never 25P02.</li>
 * </ol>
 * One connection per writer, opened on first use and again after it broke. The rows' bytes go through one reusable
 * 64 KiB array: nothing is allocated per row. One instance per insert worker; not thread-safe.
 */
final class PostgresBatchWriter implements BatchWriter
{
    private static final Logger LOG = LoggerFactory.getLogger(PostgresBatchWriter.class);
    private static final int CHUNK = 64 * 1024;
    /** The staging table's column holding a row's index in the batch. */
    static final String ROW_COLUMN = "sluice$row";
    /** The staging table's column holding a row's omission mask. */
    static final String MASK_COLUMN = "sluice$mask";
    /** The staging table's column holding a row's round of the merge ({@link #rounds}); NULL: not merged. */
    static final String ROUND_COLUMN = "sluice$round";
    private static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte)0xff, '\r', '\n', 0, 0, 0, 0, 0,
        0, 0, 0, 0};
    private static final byte[] TRAILER = {(byte)0xff, (byte)0xff};

    private final PostgresConfig config;
    private final String server;
    private final byte[] chunk = new byte[CHUNK];
    private int filled;
    private Connection connection;
    private CopyManager copyManager;
    private long[] masks = new long[4];
    /** Per destination id: the staging table's binding (recreated when the binding changes). */
    private final Map<Integer, Binding> staged = new HashMap<>();
    /** Per binding: the key columns of its table for upsert. */
    private final Map<Binding, List<String>> keys = new HashMap<>();
    private final Map<String, String> sql = new HashMap<>();
    /** The positions table of an exactly-once sink; null for at-least-once. */
    private final PostgresPositions positions;
    /** What the write in progress moves (exactly-once); null otherwise. */
    private SourcePositions moving;

    PostgresBatchWriter(final PostgresConfig config)
    {
        this.config = config;
        this.server = PostgresProvider.serverOf(config.jdbcUrl());
        this.positions = config.exactlyOnce() ? new PostgresPositions(config, null) : null;
    }

    /** @return whether the sink is exactly-once: each write moves its partitions' positions in its transaction */
    @Override
    public boolean storesPositions()
    {
        return positions != null;
    }

    /** As {@link #write(BatchBuffer)}, the positions moved last in the same transaction ({@link PostgresPositions}). */
    @Override
    public void write(final BatchBuffer batch, final SourcePositions p) throws SinkException
    {
        write(batch, null, batch.rowCount(), p);
    }

    /** As {@link #write(BatchBuffer, int[], int)}, the positions moved last in the same transaction. */
    @Override
    public void write(final BatchBuffer batch, final int[] selected, final int count, final SourcePositions p)
        throws SinkException
    {
        moving = p;
        try
        {
            write(batch, selected, count);
        }
        finally
        {
            moving = null;
        }
    }

    @Override
    public void write(final BatchBuffer batch) throws SinkException
    {
        write(batch, null, batch.rowCount());
    }

    /** Writes the rows {@code selected} names (null: the first {@code count}), as {@link #write(BatchBuffer)}. */
    @Override
    public void write(final BatchBuffer batch, final int[] selected, final int count) throws SinkException
    {
        final String table = batch.destination().sqlTable();
        final String what = (config.upsert() ? "upsert of " : "COPY of ") + count + " rows into " + table + " at "
            + server;
        final Connection c;
        try
        {
            c = connection();
        }
        catch (final SQLException e)
        {
            throw PostgresErrors.classify("connect to " + server + " for " + what, e);
        }
        try
        {
            execute(c, "LOCK TABLE " + table + " IN ROW EXCLUSIVE MODE");
            checkVersion(c, batch, what);
            final int distinct = collectMasks(batch, selected, count);
            if (config.upsert())
            {
                upsert(c, batch, selected, count, distinct);
            }
            else
            {
                for (int m = 0; m < distinct; m++)
                {
                    if (presentColumns(batch.binding(), masks[m]).isEmpty())
                    {
                        defaultRows(c, batch, selected, count, table, masks[m]);
                    }
                    else
                    {
                        copy(batch, selected, count, table, masks[m], false);
                    }
                }
            }
            if (moving != null)
            {
                // last, right before COMMIT: the positions' row locks are never held while the server waits for a
                // COPY's data from this client (a frozen client is then idle in transaction, which the server ends)
                positions.move(c, table, moving, what);
            }
            c.commit();
        }
        catch (final SQLException e)
        {
            rollback();
            final SinkException classified = tableGone(withServerFields(PostgresErrors.classify(what, e), e), e);
            if (moving != null && classified.recordCaused())
            {
                staleInstead(table, what, classified);
            }
            throw classified;
        }
        catch (final SinkException | RuntimeException e)
        {
            rollback();
            throw e;
        }
    }

    /**
     * A write refused for its data that is stale instead ({@link PostgresPositions#verify}) throws the position
     * mismatch; when the positions cannot be read, or still match, it returns and the refusal stands.
     */
    private void staleInstead(final String table, final String what, final SinkException refused)
        throws SinkException
    {
        try
        {
            final Connection c = connection();
            try
            {
                positions.verify(c, table, moving, what, refused.getMessage());
            }
            finally
            {
                rollback();
            }
        }
        catch (final SQLException e)
        {
            LOG.warn("{}: the positions could not be read after the refusal ({}); the refusal stands", what,
                e.getMessage());
        }
    }

    /**
     * Runs a statement made of quoted identifiers and numbers only (never a value of a record).
     *
     * @param c         the connection
     * @param statement the statement
     * @throws SQLException as the server refuses it
     */
    private static void execute(final Connection c, final String statement) throws SQLException
    {
        try (Statement s = c.createStatement())
        {
            s.execute(statement);
        }
    }

    private Connection connection() throws SQLException
    {
        if (connection != null && connection.isClosed())
        {
            drop();
        }
        if (connection == null)
        {
            final Connection c = PostgresConnections.connect(config);
            c.setAutoCommit(false);
            connection = c;
            copyManager = c.unwrap(PGConnection.class).getCopyAPI();
        }
        return connection;
    }

    private void rollback()
    {
        if (connection == null)
        {
            return;
        }
        // a staging table made in the transaction is gone with it
        staged.clear();
        try
        {
            connection.rollback();
        }
        catch (final SQLException e)
        {
            LOG.warn("rollback at {} failed ({}); the connection is closed and opened again", server, e.getMessage());
            drop();
        }
    }

    private void drop()
    {
        try
        {
            if (connection != null)
            {
                connection.close();
            }
        }
        catch (final SQLException e)
        {
            // closing is best effort
        }
        connection = null;
        copyManager = null;
        staged.clear();
    }

    /** The table's version now, under the lock, against the one the rows were encoded for. */
    private static void checkVersion(final Connection c, final BatchBuffer batch, final String what)
        throws SQLException, SinkException
    {
        final String expected = batch.binding().version();
        if (expected == null || expected.isEmpty())
        {
            return;
        }
        final String[] now = PostgresCatalog.version(c, batch.destination().database(), batch.destination().table());
        if (now == null)
        {
            throw SinkException.schemaChanged(what + ": the table no longer exists (42P01 undefined_table); nothing "
                + "was written, the table is described again", PostgresErrors.code("42P01"), null);
        }
        if (!expected.equals(now[1]))
        {
            throw SinkException.schemaChanged(what + ": the table changed since its columns were read (version "
                + expected + ", now " + now[1] + "); nothing was written, the records are encoded again", 0, null);
        }
    }

    /** Fills {@link #masks} with the distinct omission masks of the rows, in first-seen order; returns how many. */
    private int collectMasks(final BatchBuffer batch, final int[] selected, final int count)
    {
        if (!batch.binding().rowsCarryMask())
        {
            masks[0] = 0;
            return 1;
        }
        final Bytes<Void> rows = batch.rows();
        int distinct = 0;
        for (int k = 0; k < count; k++)
        {
            if (isDelete(batch, selected == null ? k : selected[k]))
            {
                continue;
            }
            final long mask = OmissionMask.read(rows, batch.rowStart(selected == null ? k : selected[k]));
            boolean seen = false;
            for (int m = 0; m < distinct && !seen; m++)
            {
                seen = masks[m] == mask;
            }
            if (!seen)
            {
                if (distinct == masks.length)
                {
                    masks = java.util.Arrays.copyOf(masks, distinct * 2);
                }
                masks[distinct++] = mask;
            }
        }
        return distinct;
    }

    /**
     * One COPY of the rows with omission mask {@code mask}.
     *
     * @param staging whether the target is the staging table: each tuple then starts with the row's index and mask
     */
    private void copy(final BatchBuffer batch, final int[] selected, final int count, final String target,
        final long mask, final boolean staging) throws SQLException
    {
        final Binding binding = batch.binding();
        final boolean carry = binding.rowsCarryMask();
        if (sql.size() > 1024)
        {
            sql.clear();
        }
        // the statement depends on these only (a key string per batch, not per row)
        final String statement = sql.computeIfAbsent(target + "\u0000" + mask + "\u0000" + staging + "\u0000"
            + binding.sqlColumns() + "\u0000" + java.util.Arrays.toString(binding.omittableColumns()),
            k -> "COPY " + target + " (" + (staging
                ? PostgresIdentifiers.quote(ROW_COLUMN) + ", "
                    + PostgresIdentifiers.quote(MASK_COLUMN) + (presentColumns(binding, mask).isEmpty() ? "" : ", ")
                : "")
                + String.join(", ", presentColumns(binding, mask)) + ") FROM STDIN (FORMAT binary)");
        final CopyIn in = copyManager.copyIn(statement);
        boolean done = false;
        try
        {
            filled = 0;
            append(in, HEADER, HEADER.length);
            final Bytes<Void> rows = batch.rows();
            for (int k = 0; k < count; k++)
            {
                final int r = selected == null ? k : selected[k];
                long start = batch.rowStart(r);
                if (isDelete(batch, r))
                {
                    continue;
                }
                if (carry)
                {
                    if (OmissionMask.read(rows, start) != mask)
                    {
                        continue;
                    }
                    start += 8;
                }
                final long end = batch.rowEnd(r);
                if (staging)
                {
                    final int fields = rows.readUnsignedByte(start) << 8 | rows.readUnsignedByte(start + 1);
                    room(in, 2 + 12 + 12);
                    putShort(fields + 2);
                    putInt(8);
                    putLong(r);
                    putInt(8);
                    putLong(mask);
                    start += 2;
                }
                append(in, rows, start, end);
            }
            append(in, TRAILER, TRAILER.length);
            flush(in);
            in.endCopy();
            done = true;
        }
        finally
        {
            if (!done && in.isActive())
            {
                try
                {
                    in.cancelCopy();
                }
                catch (final SQLException e)
                {
                    // the COPY's own failure is reported
                }
            }
        }
    }

    /**
     * Rows that leave every column to the server (COPY cannot name no column): one
     * {@code INSERT ... DEFAULT VALUES} each.
     */
    private static void defaultRows(final Connection c, final BatchBuffer batch, final int[] selected,
        final int count, final String table, final long mask) throws SQLException
    {
        for (int k = 0; k < count; k++)
        {
            final int r = selected == null ? k : selected[k];
            if (OmissionMask.read(batch.rows(), batch.rowStart(r)) == mask)
            {
                execute(c, defaultValues(table));
            }
        }
    }

    /** @return the statement that inserts one row of DEFAULTs */
    private static String defaultValues(final String table)
    {
        return "INSERT INTO " + table + " DEFAULT VALUES";
    }

    private static List<String> presentColumns(final Binding binding, final long mask)
    {
        final List<String> all = binding.sqlColumns();
        if (mask == 0)
        {
            return all;
        }
        final int[] omittable = binding.omittableColumns();
        final List<String> out = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++)
        {
            boolean omitted = false;
            for (int j = 0; j < omittable.length && !omitted; j++)
            {
                omitted = omittable[j] == i && (mask & (1L << j)) != 0;
            }
            if (!omitted)
            {
                out.add(all.get(i));
            }
        }
        return out;
    }

    private void upsert(final Connection c, final BatchBuffer batch, final int[] selected, final int count,
        final int distinct) throws SQLException, SinkException
    {
        final Binding binding = batch.binding();
        final int id = batch.destination().id();
        final String stage = "pg_temp." + PostgresIdentifiers.quote("sluice_stage_" + id);
        final List<String> key = keyColumns(c, batch);
        if (staged.get(id) != binding)
        {
            execute(c, dropStage(stage));
            execute(c, createStage(stage, binding));
            staged.remove(id);
        }
        for (int m = 0; m < distinct; m++)
        {
            copy(batch, selected, count, stage, masks[m], true);
        }
        final String table = batch.destination().sqlTable();
        if (copyDeletes(batch, selected, count, stage, key))
        {
            execute(c, delete(table, stage, key));
        }
        if (distinct == 1)
        {
            // every row sets the same columns: the latest row of a key sets all a key's earlier rows set
            execute(c, merge(table, stage, binding, key, masks[0], 0));
        }
        else if (distinct > 1)
        {
            execute(c, rounds(stage, key));
            final List<long[]> steps = new ArrayList<>();
            try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery(roundsAndMasks(stage)))
            {
                while (r.next())
                {
                    steps.add(new long[]{r.getLong(1), r.getLong(2)});
                }
            }
            for (final long[] step : steps)
            {
                execute(c, merge(table, stage, binding, key, step[1], step[0]));
            }
        }
        // the staging table is known to exist once the transaction that made it commits (the caller commits next)
        staged.put(id, binding);
    }

    /**
     * @return the UPDATE that gives each staged row that matters to the end state its round (1, 2, ... per key, in
     *     offset order), leaving the others' NULL. A row matters when it comes after the key's last delete and sets
     *     a column (clears a bit of its omission mask) that no later row of its key sets: the AND of the later rows'
     *     masks is the set of columns none of them sets. Applying round 1 of every key, then round 2, and so on, each
     *     row updating the columns it sets, leaves every column with the value of the latest row that set it, the
     *     row inserted by the key's first round taking the DEFAULT for the columns no row set: the end state of
     *     applying the rows one by one. A key has at most as many rounds as there are distinct masks (and 65)
     */
    private static String rounds(final String stage, final List<String> key)
    {
        final String keyList = String.join(", ", key);
        final String row = PostgresIdentifiers.quote(ROW_COLUMN);
        final String mask = PostgresIdentifiers.quote(MASK_COLUMN);
        return "UPDATE " + stage + " AS s SET " + PostgresIdentifiers.quote(ROUND_COLUMN) + " = k.round FROM (SELECT "
            + row + ", row_number() OVER (PARTITION BY " + keyList + " ORDER BY " + row + ") AS round FROM (SELECT "
            + row + ", " + mask + ", " + keyList + ", bit_and(" + mask + ") OVER (PARTITION BY " + keyList
            + " ORDER BY " + row + " DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS later, max(" + row
            + ") FILTER (WHERE " + mask + " IS NULL) OVER (PARTITION BY " + keyList + ") AS cut FROM " + stage
            + ") AS w WHERE " + mask + " IS NOT NULL AND (cut IS NULL OR " + row + " > cut) AND (later IS NULL OR (~"
            + mask + " & later) <> 0)) AS k WHERE s." + row + " = k." + row;
    }

    /** @return the query of the distinct (round, mask) pairs {@link #rounds} gave, rounds in order */
    private static String roundsAndMasks(final String stage)
    {
        final String round = PostgresIdentifiers.quote(ROUND_COLUMN);
        final String mask = PostgresIdentifiers.quote(MASK_COLUMN);
        return "SELECT " + round + ", " + mask + " FROM " + stage + " WHERE " + round + " IS NOT NULL GROUP BY "
            + round + ", " + mask + " ORDER BY " + round + ", " + mask;
    }

    /** @return the statement that drops the staging table of a session, if there is one */
    private static String dropStage(final String stage)
    {
        return "DROP TABLE IF EXISTS " + stage;
    }

    /**
     * @return the staging table: the row's index and mask, then the binding's columns with the table's types, no
     *     constraint and no default; its rows go at each commit
     */
    private static String createStage(final String stage, final Binding binding)
    {
        final StringBuilder ddl = new StringBuilder("CREATE TEMP TABLE ").append(stage).append(" (")
            .append(PostgresIdentifiers.quote(ROW_COLUMN)).append(" bigint, ")
            .append(PostgresIdentifiers.quote(MASK_COLUMN)).append(" bigint, ")
            .append(PostgresIdentifiers.quote(ROUND_COLUMN)).append(" bigint");
        final List<String> types = binding.types();
        for (int i = 0; i < binding.sqlColumns().size(); i++)
        {
            ddl.append(", ").append(binding.sqlColumns().get(i)).append(' ')
                .append(types.isEmpty() ? "text" : types.get(i));
        }
        return ddl.append(") ON COMMIT DELETE ROWS").toString();
    }

    /**
     * @param round 0: the latest row of each key (by its index in the batch), when every row of the batch has the
     *              same mask; else the staged rows of that round ({@link #rounds}), at most one per key
     * @return the INSERT that merges the staged rows of one omission mask into the table, inserted in key order, a
     *     conflict on the key updating the columns the rows set
     */
    private static String merge(final String table, final String stage, final Binding binding,
        final List<String> key, final long mask, final long round)
    {
        final String keyList = String.join(", ", key);
        final List<String> cols = presentColumns(binding, mask);
        final String list = String.join(", ", cols);
        final StringBuilder set = new StringBuilder();
        for (final String col : cols)
        {
            if (!key.contains(col))
            {
                set.append(set.length() == 0 ? "" : ", ").append(col).append(" = EXCLUDED.").append(col);
            }
        }
        final String from = round == 0
            ? "(SELECT DISTINCT ON (" + keyList + ") * FROM " + stage + " ORDER BY " + keyList + ", "
                + PostgresIdentifiers.quote(ROW_COLUMN) + " DESC) AS latest WHERE "
            : stage + " WHERE " + PostgresIdentifiers.quote(ROUND_COLUMN) + " = " + round + " AND ";
        return "INSERT INTO " + table + " (" + list + ") SELECT " + list + " FROM " + from
            + PostgresIdentifiers.quote(MASK_COLUMN) + " = " + mask + " ORDER BY " + keyList
            + " ON CONFLICT (" + keyList + ") "
            + (set.length() == 0 ? "DO NOTHING" : "DO UPDATE SET " + set);
    }

    /**
     * Whether row {@code r} is a delete ({@code tombstones = "delete"}): its tuple's field count carries
     * {@link PgJsonRowEncoder#DELETE_FLAG}.
     */
    private static boolean isDelete(final BatchBuffer batch, final int r)
    {
        final long at = batch.rowStart(r) + (batch.binding().rowsCarryMask() ? 8 : 0);
        return (batch.rows().readUnsignedByte(at) & PgJsonRowEncoder.DELETE_FLAG >>> 8) != 0;
    }

    /**
     * Copies the batch's delete rows into the staging table: their index, a NULL mask (which no merge selects), and
     * the key columns the encoder wrote, in table order.
     *
     * @return whether there was any
     */
    private boolean copyDeletes(final BatchBuffer batch, final int[] selected, final int count, final String stage,
        final List<String> key) throws SQLException
    {
        CopyIn in = null;
        boolean done = false;
        try
        {
            for (int k = 0; k < count; k++)
            {
                final int r = selected == null ? k : selected[k];
                if (!isDelete(batch, r))
                {
                    continue;
                }
                if (in == null)
                {
                    in = copyManager.copyIn("COPY " + stage + " (" + PostgresIdentifiers.quote(ROW_COLUMN) + ", "
                        + PostgresIdentifiers.quote(MASK_COLUMN) + ", " + String.join(", ", keyInTableOrder(batch, key))
                        + ") FROM STDIN (FORMAT binary)");
                    filled = 0;
                    append(in, HEADER, HEADER.length);
                }
                final long start = batch.rowStart(r) + (batch.binding().rowsCarryMask() ? 8 : 0);
                final int fields = (batch.rows().readUnsignedByte(start) << 8
                    | batch.rows().readUnsignedByte(start + 1))
                    & ~PgJsonRowEncoder.DELETE_FLAG;
                room(in, 2 + 12 + 4);
                putShort(fields + 2);
                putInt(8);
                putLong(r);
                putInt(-1);
                append(in, batch.rows(), start + 2, batch.rowEnd(r));
            }
            if (in == null)
            {
                return false;
            }
            append(in, TRAILER, TRAILER.length);
            flush(in);
            in.endCopy();
            done = true;
            return true;
        }
        finally
        {
            if (in != null && !done && in.isActive())
            {
                try
                {
                    in.cancelCopy();
                }
                catch (final SQLException e)
                {
                    // the COPY's own failure is reported
                }
            }
        }
    }

    /** @return the key columns in the order of the binding's columns (the order the encoder writes them) */
    private static List<String> keyInTableOrder(final BatchBuffer batch, final List<String> key)
    {
        final List<String> out = new ArrayList<>(key.size());
        for (final String col : batch.binding().sqlColumns())
        {
            if (key.contains(col))
            {
                out.add(col);
            }
        }
        return out;
    }

    /**
     * @return the DELETE of every row whose key has a delete row in the batch, run before the merges: a key whose
     *     latest row is a delete stays deleted (no merge selects it), and a key deleted and then written again in
     *     the batch is a new row, as it would be one record at a time
     */
    private static String delete(final String table, final String stage, final List<String> key)
    {
        final StringBuilder match = new StringBuilder();
        for (final String col : key)
        {
            match.append(match.length() == 0 ? "" : " AND ").append("t.").append(col).append(" = d.").append(col);
        }
        return "DELETE FROM " + table + " AS t USING " + stage + " AS d WHERE d."
            + PostgresIdentifiers.quote(MASK_COLUMN) + " IS NULL AND " + match;
    }

    /** key_columns, or the table's primary key, quoted; read once per binding. */
    private List<String> keyColumns(final Connection c, final BatchBuffer batch) throws SQLException, SinkException
    {
        final Binding binding = batch.binding();
        List<String> key = keys.get(binding);
        if (key != null)
        {
            return key;
        }
        final List<String> names = new ArrayList<>(config.keyColumns());
        if (names.isEmpty())
        {
            try (PreparedStatement ps = c.prepareStatement(PostgresCatalog.PRIMARY_KEY_QUERY))
            {
                ps.setString(1, batch.destination().sqlTable());
                try (ResultSet r = ps.executeQuery())
                {
                    while (r.next())
                    {
                        names.add(r.getString(1));
                    }
                }
            }
        }
        if (names.isEmpty())
        {
            throw new SinkException("upsert into " + batch.destination().sqlTable() + " at " + server + ": the table "
                + "has no primary key and key_columns is not set, so no row can be matched", false, 0, null);
        }
        key = new ArrayList<>(names.size());
        for (final String n : names)
        {
            if (!binding.columns().contains(n))
            {
                throw new SinkException("upsert into " + batch.destination().sqlTable() + " at " + server
                    + ": key column " + PostgresIdentifiers.quote(n) + " is not among the columns the branch writes "
                    + binding.columns(), false, 0, null);
            }
            key.add(PostgresIdentifiers.quote(n));
        }
        keys.put(binding, List.copyOf(key));
        return key;
    }

    private void room(final CopyIn in, final int bytes) throws SQLException
    {
        if (filled + bytes > chunk.length)
        {
            flush(in);
        }
    }

    private void putShort(final int v)
    {
        chunk[filled++] = (byte)(v >>> 8);
        chunk[filled++] = (byte)v;
    }

    private void putInt(final int v)
    {
        putShort(v >>> 16);
        putShort(v);
    }

    private void putLong(final long v)
    {
        putInt((int)(v >>> 32));
        putInt((int)v);
    }

    private void append(final CopyIn in, final byte[] bytes, final int length) throws SQLException
    {
        room(in, length);
        System.arraycopy(bytes, 0, chunk, filled, length);
        filled += length;
    }

    private void append(final CopyIn in, final Bytes<Void> rows, final long from, final long to) throws SQLException
    {
        long at = from;
        while (at < to)
        {
            if (filled == chunk.length)
            {
                flush(in);
            }
            final int n = (int)Math.min(to - at, chunk.length - filled);
            rows.read(at, chunk, filled, n);
            filled += n;
            at += n;
        }
    }

    private void flush(final CopyIn in) throws SQLException
    {
        if (filled > 0)
        {
            in.writeToCopy(chunk, 0, filled);
            filled = 0;
        }
    }

    /**
     * A table dropped or renamed away while the engine runs (42P01 undefined_table, 3F000 invalid_schema_name: the
     * {@code LOCK TABLE} fails first) is a schema change: nothing was written, core forgets the table's columns and
     * describes it again (creating it where {@code create_table} allows) and the records are read again; without
     * the table the partitions stop, the message naming it.
     */
    private static SinkException tableGone(final SinkException classified, final SQLException e)
    {
        if (classified.schemaChanged()
            || PostgresErrors.kind(PostgresErrors.firstReal(e).getSQLState()) != PostgresErrors.Kind.TABLE_GONE)
        {
            return classified;
        }
        return SinkException.schemaChanged(classified.getMessage(), classified.code(), e);
    }

    /** Adds the fields the server named (schema, table, column, constraint, where) to a classified failure. */
    private static SinkException withServerFields(final SinkException classified, final SQLException e)
    {
        final SQLException real = PostgresErrors.firstReal(e);
        final org.postgresql.util.ServerErrorMessage m = real instanceof org.postgresql.util.PSQLException p
            ? p.getServerErrorMessage()
            : null;
        if (m == null)
        {
            return classified;
        }
        final StringBuilder fields = new StringBuilder();
        final String schema = m.getSchema();
        final String table = m.getTable();
        final String column = m.getColumn();
        final String constraint = m.getConstraint();
        field(fields, "table", table == null
            ? null
            : (schema == null ? "" : PostgresIdentifiers.quote(schema) + ".") + PostgresIdentifiers.quote(table));
        field(fields, "column", column == null ? null : PostgresIdentifiers.quote(column));
        field(fields, "constraint", constraint == null ? null : PostgresIdentifiers.quote(constraint));
        field(fields, "where", m.getWhere());
        if (fields.length() == 0)
        {
            return classified;
        }
        final String message = classified.getMessage() + " [" + fields + "]";
        return classified.schemaChanged()
            ? SinkException.schemaChanged(message, classified.code(), e)
            : new SinkException(message, classified.retriable(), classified.code(), classified.recordCaused(), e);
    }

    private static void field(final StringBuilder out, final String name, final String value)
    {
        if (value != null && !value.isEmpty())
        {
            out.append(out.length() == 0 ? "" : ", ").append(name).append(' ').append(value.replace('\n', ' '));
        }
    }

    @Override
    public boolean writesPartOfBatch()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return server;
    }

    @Override
    public void close()
    {
        drop();
    }
}
