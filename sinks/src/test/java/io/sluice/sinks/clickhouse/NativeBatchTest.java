package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.rowbinary.NativeBlockWriter;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Binding;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.batch.OmissionMask;

/**
 * A sealed batch as the body of one Native insert: one block per omission mask, each without the columns its mask
 * leaves to the server, in the order the masks first appear, typed with the batch's binding; rows without masks are
 * one block; the writers are kept per (binding, mask), so later batches build none.
 */
class NativeBatchTest
{
    /** Columns id UInt8, h UInt64 (omittable: a server DEFAULT), s String; rows are written by the test. */
    private static final class Encoder implements RowEncoder.Bound<Object>
    {
        private final int[] omittable;

        Encoder(final int... omittable)
        {
            this.omittable = omittable;
        }

        @Override
        public List<String> columns()
        {
            return List.of("id", "h", "s");
        }

        @Override
        public String encode(final Object row, final Bytes<?> out)
        {
            return null;
        }

        @Override
        public int[] omittableColumns()
        {
            return omittable.clone();
        }
    }

    private static final TableSchema SCHEMA = new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", ""),
        new ColumnSpec("h", "UInt64", "DEFAULT", "cityHash64(id)"), new ColumnSpec("s", "String", "", "")), "MergeTree",
        "1:2");

    private final BatchPool pool = new BatchPool(4, 1024, 16);
    private final NativeBatch nativeBatch = new NativeBatch();

    @AfterEach
    void close()
    {
        nativeBatch.close();
        pool.close();
    }

    private BatchBuffer batch(final Binding binding)
    {
        final Destination d = new Destination(0, 0, "b", "db", "t", "`db`.`t`", "sink", null, 0, binding);
        final BatchBuffer b = pool.tryAcquire();
        b.open(d, 0, 0);
        return b;
    }

    /** Appends a row: its mask (when the binding has omittable columns), id, h unless omitted, s. */
    private static void row(final BatchBuffer b, final boolean masked, final int id, final Long h, final String s)
    {
        final Bytes<Void> rows = b.rows();
        if (masked)
        {
            final long at = rows.writePosition();
            RowBinary.writeInt64(rows, 0);
            OmissionMask.write(rows, at, h == null ? 1 : 0);
        }
        RowBinary.writeInt8(rows, id);
        if (h != null)
        {
            RowBinary.writeInt64(rows, h);
        }
        str(rows, s);
        b.addRow(0, 0, id, 0);
    }

    private static void str(final Bytes<?> out, final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        RowBinary.writeVarUInt(out, b.length);
        out.write(b);
    }

    private static byte[] bytes(final Bytes<?> b)
    {
        final byte[] out = new byte[(int)b.readRemaining()];
        b.read(out);
        return out;
    }

    /** The block a NativeBlockWriter makes of the given RowBinary rows (no masks). */
    private static byte[] block(final List<String> names, final List<String> types, final Object... rows)
    {
        final Bytes<Void> in = Bytes.allocateElasticDirect(256);
        final Bytes<Void> out = Bytes.allocateElasticDirect(256);
        try (NativeBlockWriter w = new NativeBlockWriter(names, types))
        {
            for (int i = 0; i < rows.length; i += 3)
            {
                RowBinary.writeInt8(in, (Integer)rows[i]);
                if (rows[i + 1] != null)
                {
                    RowBinary.writeInt64(in, (Long)rows[i + 1]);
                }
                str(in, (String)rows[i + 2]);
            }
            w.writeBlock(in, in.readPosition(), in.writePosition(), rows.length / 3, out);
            return bytes(out);
        }
        finally
        {
            in.releaseLast();
            out.releaseLast();
        }
    }

    private static byte[] concat(final byte[] a, final byte[] b)
    {
        final byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void shouldWriteOneBlockPerMaskWithoutTheOmittedColumnsInTheOrderTheMasksFirstAppear()
    {
        final Binding binding = new Binding(new Encoder(1), SCHEMA, List.of("`id`", "`h`", "`s`"), 1);
        assertTrue(binding.rowsCarryMask());
        assertEquals(List.of("UInt8", "UInt64", "String"), binding.types());
        final BatchBuffer b = batch(binding);
        row(b, true, 1, null, "a");
        row(b, true, 2, 7L, "b");
        row(b, true, 3, null, "c");
        row(b, true, 4, 9L, "d");
        final byte[] expected = concat(
            block(List.of("id", "s"), List.of("UInt8", "String"), 1, null, "a", 3, null, "c"),
            block(List.of("id", "h", "s"), List.of("UInt8", "UInt64", "String"), 2, 7L, "b", 4, 9L, "d"));
        assertArrayEquals(expected, bytes(nativeBatch.write(b)), "block (id, s) of rows 1, 3, then (id, h, s) of 2, 4");
        assertEquals(2, nativeBatch.writersKept());

        // a second batch of the same binding reuses both writers
        final BatchBuffer again = batch(binding);
        row(again, true, 5, 1L, "e");
        assertArrayEquals(block(List.of("id", "h", "s"), List.of("UInt8", "UInt64", "String"), 5, 1L, "e"),
            bytes(nativeBatch.write(again)));
        assertEquals(2, nativeBatch.writersKept());
    }

    @Test
    void shouldWriteRowsWithoutMasksAsOneBlockTypedWithTheBindingTheBatchWasOpenedWith()
    {
        final Binding old = new Binding(new Encoder(), SCHEMA, List.of("`id`", "`h`", "`s`"), 1);
        assertFalse(old.rowsCarryMask());
        final BatchBuffer b = batch(old);
        // the table changes after the batch was opened: the batch keeps its binding, and its types
        final TableSchema retyped = new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", ""),
            new ColumnSpec("h", "Int32", "", ""), new ColumnSpec("s", "String", "", "")), "MergeTree", "3:4");
        b.destination().rebind(new Binding(new Encoder(), retyped, List.of("`id`", "`h`", "`s`"), 2));
        row(b, false, 1, 2L, "x");
        assertArrayEquals(block(List.of("id", "h", "s"), List.of("UInt8", "UInt64", "String"), 1, 2L, "x"),
            bytes(nativeBatch.write(b)), "typed UInt64 as encoded: the server refuses it for an Int32 column");
        assertEquals(2, b.destination().binding().generation());
    }

    @Test
    void shouldRefuseRowsThatAreNotRowsOfTheBinding()
    {
        final Binding binding = new Binding(new Encoder(1), SCHEMA, List.of("`id`", "`h`", "`s`"), 1);
        final BatchBuffer b = batch(binding);
        row(b, true, 1, null, "a");
        b.rows().writeByte((byte)1); // a stray byte after the last row
        assertTrue(assertThrows(IllegalArgumentException.class, () -> nativeBatch.write(b)).getMessage()
            .contains("bytes left after the 1 rows"));
        final BatchBuffer masks = batch(binding);
        final long at = masks.rows().writePosition();
        RowBinary.writeInt64(masks.rows(), 0);
        OmissionMask.write(masks.rows(), at, 0b10);
        masks.addRow(0, 0, 0, 0);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> nativeBatch.write(masks)).getMessage()
            .contains("beyond the 1 omittable"));
    }

    @Test
    void shouldRefuseABindingThatWritesAColumnTheTableDoesNotHave()
    {
        final TableSchema dropped = new TableSchema("db", "t", List.of(new ColumnSpec("id", "UInt8", "", ""),
            new ColumnSpec("s", "String", "", "")), "MergeTree", "5:6");
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> new Binding(new Encoder(), dropped, List.of("`id`", "`h`", "`s`"), 1)).getMessage()
            .contains("column h which table db.t does not have"));
    }

    /** The insert worker's rewrite of a steady stream of batches allocates nothing once its writers exist. */
    @Test
    void shouldAllocateNothingPerBatchOnceItsWritersExist()
    {
        final Binding binding = new Binding(new Encoder(1), SCHEMA, List.of("`id`", "`h`", "`s`"), 1);
        final BatchBuffer b = batch(binding);
        for (int r = 0; r < 256; r++)
        {
            row(b, true, r & 0x7f, (r & 1) == 0 ? null : (long)r, "row");
        }
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory
            .getThreadMXBean();
        long total = 0;
        for (int i = 0; i < 2_000; i++)
        {
            total += nativeBatch.write(b).readRemaining();
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 2_000; i++)
        {
            total += nativeBatch.write(b).readRemaining();
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(total > 0);
        assertTrue(allocated < 2_000, allocated + " bytes allocated for 2,000 batches of 256 rows in two blocks");
    }
}
