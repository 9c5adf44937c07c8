package io.sluice.codecs.rowbinary;

import java.nio.charset.StandardCharsets;
import java.util.List;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Rewrites RowBinary rows (as {@link ColumnEncoder}s write them) into one block of ClickHouse's Native format, the
 * columnar input format that names every column's type: the server then refuses a block whose types do not match the
 * table instead of reading the bytes as another type (see docs/schema-changes.md for what 18.16 and current releases
 * check), and fills the columns a block omits with their DEFAULT expressions.
 *
 * <p>Layout (ClickHouse's {@code NativeReader}/{@code NativeWriter}; over HTTP the format is read with protocol
 * revision 0, so there is no block info and no per-column serialization byte; verified byte for byte against 18.16's
 * {@code SELECT ... FORMAT Native}): LEB128 column count, LEB128 row count, then per column its name and its type
 * name (each a LEB128 length and UTF-8 bytes) and its data, all rows of one column together:
 * <ul>
 *   <li>fixed-width types (integers of 1 to 32 bytes, floats, Bool, Date, Date32, DateTime, DateTime64, UUID,
 *       Decimal, Enum, FixedString): the values as in RowBinary, one after another (ClickHouse documentation, "Native"
 *       format page, https://clickhouse.com/docs/interfaces/formats/Native: each column's values in the layout
 *       RowBinary gives one value; Int128/UInt128 16 and Int256/UInt256 32 bytes little endian);</li>
 *   <li>String: LEB128 length and bytes per value, as in RowBinary;</li>
 *   <li>Nullable(T): one byte per row (1 = NULL), then T's column with the type's default in the NULL rows;</li>
 *   <li>Array(T): the cumulative element counts as UInt64 per row, then T's column of all elements;</li>
 *   <li>Map(K, V): as Array(Tuple(K, V)): the cumulative counts, then the keys' column, then the values' column;</li>
 *   <li>Tuple(T...): each element's column in order;</li>
 *   <li>LowCardinality(T): a UInt64 key-serialization version 1 before the column's data (ahead of any other data of
 *       an enclosing Array or Tuple), then UInt64 flags (index width, HasAdditionalKeys = 1 &lt;&lt; 9,
 *       NeedUpdateDictionary = 1 &lt;&lt; 10), UInt64 key count, the keys as T's column (first the default, and for
 *       LowCardinality(Nullable(T)) a NULL placeholder before it), UInt64 row count and one index per row (UInt8,
 *       UInt16 or UInt32, by key count). Keys are not deduplicated: each row gets its own key, which the server
 *       accepts and merges into the part's dictionary (checked on 18.16). 18.16 does not convert a plain T column
 *       into a LowCardinality(T) one ("Bad cast from type DB::ColumnString to DB::ColumnLowCardinality"), so the
 *       dictionary form is written always.</li>
 * </ul>
 *
 * <p>One instance per column list and insert thread; its column buffers are reused from block to block, so a
 * steady stream of blocks allocates nothing once the buffers have grown to the largest block. Not thread-safe.
 * {@link #close()} frees the off-heap buffers.
 */
public final class NativeBlockWriter implements AutoCloseable
{
    private static final long LOW_CARDINALITY_KEYS_VERSION = 1;
    private static final long HAS_ADDITIONAL_KEYS = 1L << 9;
    private static final long NEED_UPDATE_DICTIONARY = 1L << 10;

    private final byte[][] names;
    private final byte[][] typeNames;
    private final Column[] columns;
    private int rowCount;

    /**
     * Creates a writer for rows of the given columns, in the order RowBinary rows hold them.
     *
     * @param names     the column names, verbatim (as the INSERT would name them).
     * @param typeTexts the column types as the server spells them (DESCRIBE TABLE's type column), one per name.
     * @throws IllegalArgumentException if the lists differ in size or a type is malformed or unsupported.
     */
    public NativeBlockWriter(final List<String> names, final List<String> typeTexts)
    {
        if (names.size() != typeTexts.size())
        {
            throw new IllegalArgumentException(names.size() + " column names but " + typeTexts.size() + " types");
        }
        this.names = new byte[names.size()][];
        this.typeNames = new byte[names.size()][];
        this.columns = new Column[names.size()];
        for (int i = 0; i < columns.length; i++)
        {
            this.names[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
            this.typeNames[i] = typeTexts.get(i).getBytes(StandardCharsets.UTF_8);
            this.columns[i] = column(ClickHouseType.parse(typeTexts.get(i)));
        }
        clear();
    }

    /**
     * Appends one Native block holding {@code rowCount} RowBinary rows.
     *
     * @param rows     the RowBinary rows (read, not consumed: positions are not moved).
     * @param from     absolute offset of the first row's first byte in {@code rows}.
     * @param to       absolute offset just after the last row.
     * @param rowCount the number of rows in {@code [from, to)}, {@code >= 1}.
     * @param out      where the block is appended, at its write position.
     * @throws IllegalArgumentException if the bytes are not exactly {@code rowCount} rows of these columns (the rows
     *                                  were not written by encoders of these types).
     */
    public void writeBlock(final Bytes<?> rows, final long from, final long to, final int rowCount, final Bytes<?> out)
    {
        if (rowCount < 1)
        {
            throw new IllegalArgumentException("a block needs at least one row: " + rowCount);
        }
        clear();
        long at = from;
        for (int r = 0; r < rowCount; r++)
        {
            at = appendRow(rows, at, to);
        }
        if (at != to)
        {
            throw new IllegalArgumentException((to - at) + " bytes left after " + rowCount + " rows");
        }
        endBlock(out);
    }

    /**
     * Forgets the rows appended since the last {@link #endBlock} (a block is begun implicitly by the first
     * {@link #appendRow}).
     */
    public void clear()
    {
        for (final Column c : columns)
        {
            c.clear();
        }
        rowCount = 0;
    }

    /**
     * Appends one RowBinary row to the block being gathered, for writers that take rows one at a time from
     * places that are not contiguous (rows of one batch grouped by the columns they omit).
     *
     * @param rows the RowBinary bytes (read, not consumed: positions are not moved).
     * @param at   absolute offset of the row's first byte.
     * @param end  absolute offset past which the row may not extend.
     * @return the offset just after the row.
     * @throws IllegalArgumentException if the bytes at {@code at} are not one row of these columns.
     */
    public long appendRow(final Bytes<?> rows, final long at, final long end)
    {
        final Column[] columns = this.columns;
        long i = at;
        for (int c = 0; c < columns.length; c++)
        {
            i = columns[c].transcode(rows, i, end);
            if (i < 0)
            {
                throw new IllegalArgumentException("row " + rowCount + " column " +
                    new String(names[c], StandardCharsets.UTF_8) + ": the RowBinary bytes end early or are not " +
                    new String(typeNames[c], StandardCharsets.UTF_8));
            }
        }
        rowCount++;
        return i;
    }

    /** @return the rows appended since the last {@link #endBlock} or {@link #clear}. */
    public int rowCount()
    {
        return rowCount;
    }

    /**
     * Writes the block of the rows appended since the last {@link #endBlock} or {@link #clear} (nothing when there
     * are none) and starts the next.
     *
     * @param out where the block is appended, at its write position.
     */
    public void endBlock(final Bytes<?> out)
    {
        final int n = rowCount;
        if (n > 0)
        {
            final Column[] columns = this.columns;
            RowBinary.writeVarUInt(out, columns.length);
            RowBinary.writeVarUInt(out, n);
            for (int c = 0; c < columns.length; c++)
            {
                writeText(out, names[c]);
                writeText(out, typeNames[c]);
                columns[c].writePrefix(out);
                columns[c].writeData(out, n);
            }
        }
        clear();
    }

    private static void writeText(final Bytes<?> out, final byte[] text)
    {
        RowBinary.writeVarUInt(out, text.length);
        out.write(text);
    }

    /** Frees the column buffers; the writer cannot be used afterwards. */
    @Override
    public void close()
    {
        for (final Column c : columns)
        {
            c.close();
        }
    }

    private static Column column(final ClickHouseType type)
    {
        switch (type.kind())
        {
            case INT8 :
            case UINT8 :
            case BOOL :
            case ENUM8 :
                return new Fixed(1);
            case INT16 :
            case UINT16 :
            case DATE :
            case ENUM16 :
                return new Fixed(2);
            case INT32 :
            case UINT32 :
            case FLOAT32 :
            case DATE32 :
            case DATETIME :
                return new Fixed(4);
            case INT64 :
            case UINT64 :
            case FLOAT64 :
            case DATETIME64 :
                return new Fixed(8);
            case UUID :
            case INT128 :
            case UINT128 :
                return new Fixed(16);
            case INT256 :
            case UINT256 :
                return new Fixed(32);
            case DECIMAL :
                return new Fixed(type.decimalBytes());
            case FIXED_STRING :
                return new Fixed(type.fixedLength());
            case STRING :
                return new Text();
            case NULLABLE :
                return new NullableColumn(column(type.nested(0)));
            case ARRAY :
                return new ArrayColumn(new Column[]{column(type.nested(0))});
            case MAP :
                return new ArrayColumn(new Column[]{column(type.nested(0)), column(type.nested(1))});
            case TUPLE :
            {
                final List<ClickHouseType> nested = type.nestedTypes();
                final Column[] elements = new Column[nested.size()];
                for (int i = 0; i < elements.length; i++)
                {
                    elements[i] = column(nested.get(i));
                }
                return new TupleColumn(elements);
            }
            case LOW_CARDINALITY :
            {
                final ClickHouseType inner = type.nested(0);
                final boolean nullable = inner.kind() == ClickHouseType.Kind.NULLABLE;
                final Column keys = column(nullable ? inner.nested(0) : inner);
                if (!(keys instanceof Fixed) && !(keys instanceof Text))
                {
                    throw new IllegalArgumentException("LowCardinality of " + inner + " is not supported");
                }
                return new LowCardinalityColumn(keys, nullable);
            }
            default :
                throw new IllegalArgumentException("type " + type + " has no Native writer");
        }
    }

    /** One column's data, gathered row by row from RowBinary and written out column-wise. */
    private abstract static class Column
    {
        /** Reads one RowBinary value at {@code at}; returns the offset after it, or -1 if it does not fit. */
        abstract long transcode(Bytes<?> in, long at, long end);

        /** Adds the type's default value (the filler under a NULL of a Nullable). */
        abstract void appendDefault();

        /** Writes what the column's serialization puts before all data (LowCardinality's key version). */
        void writePrefix(final Bytes<?> out)
        {
        }

        /** Writes the gathered data of {@code rows} values. */
        abstract void writeData(Bytes<?> out, long rows);

        abstract void clear();

        abstract void close();
    }

    private static Bytes<Void> stream()
    {
        return Bytes.allocateElasticDirect(256);
    }

    private static void append(final Bytes<Void> stream, final Bytes<?> in, final long at, final long length)
    {
        stream.write(in, at, length);
    }

    private static void appendStream(final Bytes<?> out, final Bytes<Void> stream)
    {
        out.write(stream, stream.readPosition(), stream.readRemaining());
    }

    /** Fixed-width values: integers, floats, dates, times, UUID, Decimal, Enum, FixedString. */
    private static final class Fixed extends Column
    {
        final int width;
        final Bytes<Void> data = stream();

        Fixed(final int width)
        {
            this.width = width;
        }

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            if (at + width > end)
            {
                return -1;
            }
            append(data, in, at, width);
            return at + width;
        }

        @Override
        void appendDefault()
        {
            RowBinary.writeZeros(data, width);
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            appendStream(out, data);
        }

        @Override
        void clear()
        {
            data.clear();
        }

        @Override
        void close()
        {
            data.releaseLast();
        }
    }

    /** String: LEB128 length and bytes, the same in both formats. */
    private static final class Text extends Column
    {
        final Bytes<Void> data = stream();

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            final long after = skipString(in, at, end);
            if (after >= 0)
            {
                append(data, in, at, after - at);
            }
            return after;
        }

        @Override
        void appendDefault()
        {
            data.writeByte((byte)0);
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            appendStream(out, data);
        }

        @Override
        void clear()
        {
            data.clear();
        }

        @Override
        void close()
        {
            data.releaseLast();
        }
    }

    /** The offset after a LEB128 count at {@code at}, with the count in {@code count[0]}; -1 if malformed. */
    private static long readCount(final Bytes<?> in, final long at, final long end, final long[] count)
    {
        long value = 0;
        int shift = 0;
        long i = at;
        while (i < end && shift < 64)
        {
            final int b = in.readUnsignedByte(i++);
            value |= (long)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                count[0] = value;
                return i;
            }
            shift += 7;
        }
        return -1;
    }

    private static long skipString(final Bytes<?> in, final long at, final long end)
    {
        long value = 0;
        int shift = 0;
        long i = at;
        while (i < end && shift < 64)
        {
            final int b = in.readUnsignedByte(i++);
            value |= (long)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return value >= 0 && value <= end - i ? i + value : -1;
            }
            shift += 7;
        }
        return -1;
    }

    /** Nullable(T): a null map, then T's column with defaults under the NULLs. */
    private static final class NullableColumn extends Column
    {
        final Column inner;
        final Bytes<Void> nullMap = stream();

        NullableColumn(final Column inner)
        {
            this.inner = inner;
        }

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            if (at >= end)
            {
                return -1;
            }
            final int flag = in.readUnsignedByte(at);
            if (flag == 1)
            {
                nullMap.writeByte((byte)1);
                inner.appendDefault();
                return at + 1;
            }
            if (flag != 0)
            {
                return -1;
            }
            nullMap.writeByte((byte)0);
            return inner.transcode(in, at + 1, end);
        }

        @Override
        void appendDefault()
        {
            // a Nullable's own default is NULL
            nullMap.writeByte((byte)1);
            inner.appendDefault();
        }

        @Override
        void writePrefix(final Bytes<?> out)
        {
            inner.writePrefix(out);
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            appendStream(out, nullMap);
            inner.writeData(out, rows);
        }

        @Override
        void clear()
        {
            nullMap.clear();
            inner.clear();
        }

        @Override
        void close()
        {
            nullMap.releaseLast();
            inner.close();
        }
    }

    /** Array(T) (one element column) and Map(K, V) (two: keys and values, as Array(Tuple(K, V))). */
    private static final class ArrayColumn extends Column
    {
        final Column[] elements;
        final Bytes<Void> offsets = stream();
        final long[] count = new long[1];
        long total;

        ArrayColumn(final Column[] elements)
        {
            this.elements = elements;
        }

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            long i = readCount(in, at, end, count);
            if (i < 0)
            {
                return -1;
            }
            final long n = count[0];
            for (long e = 0; e < n; e++)
            {
                for (final Column c : elements)
                {
                    i = c.transcode(in, i, end);
                    if (i < 0)
                    {
                        return -1;
                    }
                }
            }
            total += n;
            RowBinary.writeInt64(offsets, total);
            return i;
        }

        @Override
        void appendDefault()
        {
            RowBinary.writeInt64(offsets, total);
        }

        @Override
        void writePrefix(final Bytes<?> out)
        {
            for (final Column c : elements)
            {
                c.writePrefix(out);
            }
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            appendStream(out, offsets);
            for (final Column c : elements)
            {
                c.writeData(out, total);
            }
        }

        @Override
        void clear()
        {
            offsets.clear();
            total = 0;
            for (final Column c : elements)
            {
                c.clear();
            }
        }

        @Override
        void close()
        {
            offsets.releaseLast();
            for (final Column c : elements)
            {
                c.close();
            }
        }
    }

    /** Tuple(T...): the elements' columns in order. */
    private static final class TupleColumn extends Column
    {
        final Column[] elements;

        TupleColumn(final Column[] elements)
        {
            this.elements = elements;
        }

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            long i = at;
            for (final Column c : elements)
            {
                i = c.transcode(in, i, end);
                if (i < 0)
                {
                    return -1;
                }
            }
            return i;
        }

        @Override
        void appendDefault()
        {
            for (final Column c : elements)
            {
                c.appendDefault();
            }
        }

        @Override
        void writePrefix(final Bytes<?> out)
        {
            for (final Column c : elements)
            {
                c.writePrefix(out);
            }
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            for (final Column c : elements)
            {
                c.writeData(out, rows);
            }
        }

        @Override
        void clear()
        {
            for (final Column c : elements)
            {
                c.clear();
            }
        }

        @Override
        void close()
        {
            for (final Column c : elements)
            {
                c.close();
            }
        }
    }

    /** LowCardinality(T) and LowCardinality(Nullable(T)): a dictionary with one key per row, and the indexes. */
    private static final class LowCardinalityColumn extends Column
    {
        final Column keys;
        final boolean nullable;
        final int reserved;
        // the indexes as ints in the machine's order until the key count, and so the index width, is known
        final Bytes<Void> indexes = stream();
        long keyCount;
        long rowCount;

        LowCardinalityColumn(final Column keys, final boolean nullable)
        {
            this.keys = keys;
            this.nullable = nullable;
            this.reserved = nullable ? 2 : 1;
        }

        @Override
        long transcode(final Bytes<?> in, final long at, final long end)
        {
            long i = at;
            if (nullable)
            {
                if (i >= end)
                {
                    return -1;
                }
                final int flag = in.readUnsignedByte(i++);
                if (flag == 1)
                {
                    indexes.writeInt(0);
                    rowCount++;
                    return i;
                }
                if (flag != 0)
                {
                    return -1;
                }
            }
            i = keys.transcode(in, i, end);
            if (i < 0)
            {
                return -1;
            }
            indexes.writeInt((int)keyCount++);
            rowCount++;
            return i;
        }

        @Override
        void appendDefault()
        {
            // the default key: NULL for a nullable dictionary, else the type's default
            indexes.writeInt(nullable ? 0 : reserved - 1);
            rowCount++;
        }

        @Override
        void writePrefix(final Bytes<?> out)
        {
            RowBinary.writeInt64(out, LOW_CARDINALITY_KEYS_VERSION);
        }

        @Override
        void writeData(final Bytes<?> out, final long rows)
        {
            final long maxIndex = keyCount - 1;
            final int indexType = maxIndex <= 0xFF ? 0 : maxIndex <= 0xFFFF ? 1 : 2;
            RowBinary.writeInt64(out, indexType | HAS_ADDITIONAL_KEYS | NEED_UPDATE_DICTIONARY);
            RowBinary.writeInt64(out, keyCount);
            keys.writeData(out, keyCount);
            RowBinary.writeInt64(out, rowCount);
            final long start = indexes.readPosition();
            for (long r = 0; r < rowCount; r++)
            {
                final int index = indexes.readInt(start + r * 4);
                switch (indexType)
                {
                    case 0 :
                        out.writeByte((byte)index);
                        break;
                    case 1 :
                        RowBinary.writeInt16(out, index);
                        break;
                    default :
                        RowBinary.writeInt32(out, index);
                        break;
                }
            }
        }

        @Override
        void clear()
        {
            keys.clear();
            indexes.clear();
            rowCount = 0;
            // the reserved keys: a NULL placeholder (nullable dictionaries) and the default, both the type's default
            for (int k = 0; k < reserved; k++)
            {
                keys.appendDefault();
            }
            keyCount = reserved;
        }

        @Override
        void close()
        {
            keys.close();
            indexes.releaseLast();
        }
    }
}
