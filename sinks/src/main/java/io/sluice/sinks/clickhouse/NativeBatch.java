package io.sluice.sinks.clickhouse;

import java.util.ArrayList;
import java.util.List;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.rowbinary.NativeBlockWriter;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.OmissionMask;

/**
 * Rewrites a sealed batch's rows as ClickHouse Native blocks typed with the binding the rows were encoded for, the
 * body of one {@code INSERT INTO db.t FORMAT Native}: the server then checks every column's type against the table
 * (and refuses the insert if the table changed) instead of reading the bytes as another type, and evaluates the
 * DEFAULT of every column a block omits. Rows that omit no column form one block; rows with an omission mask
 * ({@link Binding}) are grouped by mask, one block per distinct mask without the omitted columns, in the order the
 * masks first appear (the order of rows within a table is not a contract). The server squashes the blocks of one
 * insert into one part.
 *
 * <p>One instance per insert worker: it keeps a {@link NativeBlockWriter} per (binding, mask) it has seen, up to
 * {@value #WRITERS} (the least recently used is closed beyond that), and its output buffer, so a steady stream of
 * batches allocates nothing. Not thread-safe. {@link #close()} frees the off-heap buffers.
 */
public final class NativeBatch implements AutoCloseable
{
    /** Writers kept, one per (binding, omission mask). */
    static final int WRITERS = 16;

    /** One writer of a binding's rows with a given mask. */
    private static final class Entry
    {
        Binding binding;
        long mask;
        NativeBlockWriter writer;
        long lastUse;
        long batchStamp;
    }

    private final Entry[] entries = new Entry[WRITERS];
    private final Entry[] used = new Entry[WRITERS];
    private final Bytes<Void> body = Bytes.allocateElasticDirect(1 << 16);
    private long clock;
    private long stamp;
    private int distinct;

    /**
     * Writes the batch's rows as Native blocks into this instance's body buffer (cleared first).
     *
     * @param batch a sealed batch with at least one row, whose binding knows its column types
     * @return the body, from its read position to its write position; valid until the next call
     * @throws IllegalArgumentException if the rows are not rows of the batch's binding (a bug: an encoder wrote
     *                                  bytes its declared types do not describe)
     * @throws IllegalStateException    if the binding does not know its columns' types
     */
    public Bytes<Void> write(final BatchBuffer batch)
    {
        return write(batch, null, batch.rowCount());
    }

    /**
     * Writes some of the batch's rows as Native blocks into this instance's body buffer (cleared first): the part of a
     * refused batch an insert worker tries on its own ({@link BatchBuffer#rowStart}, {@link BatchBuffer#rowEnd}).
     *
     * @param batch    a sealed batch whose binding knows its column types
     * @param selected the indexes of the rows to write, increasing; null for every row of the batch
     * @param count    how many of {@code selected} to write ({@code >= 1}); with null, the batch's row count
     * @return the body, from its read position to its write position; valid until the next call
     * @throws IllegalArgumentException if a row is not a row of the batch's binding (a bug)
     * @throws IllegalStateException    if the binding does not know its columns' types
     */
    public Bytes<Void> write(final BatchBuffer batch, final int[] selected, final int count)
    {
        final Binding binding = batch.binding();
        if (binding.types().size() != binding.columns().size())
        {
            throw new IllegalStateException("destination " + batch.destination() + " was bound without its columns' "
                + "types: a Native insert needs them");
        }
        body.clear();
        try
        {
            return selected == null ? writeBlocks(batch, binding) : writeRows(batch, binding, selected, count);
        }
        catch (final RuntimeException e)
        {
            // the rows appended so far belong to no block: forget them, the next batch starts clean
            for (int i = 0; i < distinct; i++)
            {
                used[i].writer.clear();
                used[i].batchStamp = 0;
                used[i] = null;
            }
            distinct = 0;
            body.clear();
            throw e;
        }
    }

    private Bytes<Void> writeBlocks(final BatchBuffer batch, final Binding binding)
    {
        final long s = ++stamp;
        distinct = 0;
        final Bytes<Void> rows = batch.rows();
        final long end = rows.writePosition();
        final boolean masked = binding.rowsCarryMask();
        final int count = batch.rowCount();
        long at = rows.readPosition();
        for (int r = 0; r < count; r++)
        {
            long mask = 0;
            if (masked)
            {
                if (at + 8 > end)
                {
                    throw new IllegalArgumentException("row " + r + " of " + count + " ends before its omission mask");
                }
                mask = OmissionMask.read(rows, at);
                at += 8;
            }
            final Entry e = entry(binding, mask);
            if (e.batchStamp != s)
            {
                e.batchStamp = s;
                used[distinct++] = e;
            }
            at = e.writer.appendRow(rows, at, end);
        }
        if (at != end)
        {
            throw new IllegalArgumentException((end - at) + " bytes left after the " + count + " rows of the batch");
        }
        endUsedBlocks();
        return body;
    }

    private Bytes<Void> writeRows(final BatchBuffer batch, final Binding binding, final int[] selected,
        final int count)
    {
        final long s = ++stamp;
        distinct = 0;
        final Bytes<Void> rows = batch.rows();
        final boolean masked = binding.rowsCarryMask();
        for (int k = 0; k < count; k++)
        {
            final int r = selected[k];
            long at = batch.rowStart(r);
            final long end = batch.rowEnd(r);
            long mask = 0;
            if (masked)
            {
                if (at + 8 > end)
                {
                    throw new IllegalArgumentException("row " + r + " of the batch ends before its omission mask");
                }
                mask = OmissionMask.read(rows, at);
                at += 8;
            }
            final Entry e = entry(binding, mask);
            if (e.batchStamp != s)
            {
                e.batchStamp = s;
                used[distinct++] = e;
            }
            if (e.writer.appendRow(rows, at, end) != end)
            {
                throw new IllegalArgumentException("row " + r + " of the batch is not one row of its columns");
            }
        }
        endUsedBlocks();
        return body;
    }

    /** Writes the block of every writer that holds rows of the current batch, in the order they were first used. */
    private void endUsedBlocks()
    {
        for (int i = 0; i < distinct; i++)
        {
            used[i].writer.endBlock(body);
            used[i].batchStamp = 0;
            used[i] = null;
        }
        distinct = 0;
    }

    /** @return how many block writers are kept (one per binding and omission mask seen lately); for tests */
    int writersKept()
    {
        int n = 0;
        for (final Entry e : entries)
        {
            n += e == null ? 0 : 1;
        }
        return n;
    }

    private Entry entry(final Binding binding, final long mask)
    {
        final Entry[] es = entries;
        Entry free = null;
        Entry oldest = null;
        for (final Entry e : es)
        {
            if (e == null)
            {
                continue;
            }
            if (e.binding == binding && e.mask == mask)
            {
                e.lastUse = ++clock;
                return e;
            }
            if (e.batchStamp != stamp && (oldest == null || e.lastUse < oldest.lastUse))
            {
                oldest = e;
            }
        }
        int freeAt = -1;
        for (int i = 0; i < es.length; i++)
        {
            if (es[i] == null)
            {
                free = new Entry();
                freeAt = i;
                break;
            }
        }
        if (free == null && oldest == null)
        {
            // every writer holds rows of this batch: write their blocks now (later rows of the same masks start
            // blocks of their own), then reuse the least recently used
            endUsedBlocks();
            return entry(binding, mask);
        }
        // made before an entry is taken: a mask that names no columns of the binding leaves the entries as they were
        final NativeBlockWriter writer = writer(binding, mask);
        if (free == null)
        {
            oldest.writer.close();
            free = oldest;
        }
        else
        {
            es[freeAt] = free;
        }
        free.binding = binding;
        free.mask = mask;
        free.writer = writer;
        free.lastUse = ++clock;
        free.batchStamp = 0;
        return free;
    }

    /** A writer of the binding's columns less those the mask omits (allocates: once per binding and mask). */
    private static NativeBlockWriter writer(final Binding binding, final long mask)
    {
        final int[] omittable = binding.omittableColumns();
        final boolean[] omitted = new boolean[binding.columns().size()];
        for (int bit = 0; bit < omittable.length; bit++)
        {
            if ((mask & (1L << bit)) != 0)
            {
                omitted[omittable[bit]] = true;
            }
        }
        if (omittable.length < 64 && (mask >>> omittable.length) != 0)
        {
            throw new IllegalArgumentException("omission mask " + Long.toHexString(mask) + " names columns beyond the "
                + omittable.length + " omittable ones");
        }
        final List<String> names = new ArrayList<>();
        final List<String> types = new ArrayList<>();
        for (int c = 0; c < omitted.length; c++)
        {
            if (!omitted[c])
            {
                names.add(binding.columns().get(c));
                types.add(binding.types().get(c));
            }
        }
        return new NativeBlockWriter(names, types);
    }

    /** Frees the writers' buffers and the body. */
    @Override
    public void close()
    {
        for (int i = 0; i < entries.length; i++)
        {
            if (entries[i] != null)
            {
                entries[i].writer.close();
                entries[i] = null;
            }
        }
        body.releaseLast();
    }
}
