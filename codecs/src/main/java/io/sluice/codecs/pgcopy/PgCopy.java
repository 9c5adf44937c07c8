package io.sluice.codecs.pgcopy;

import java.nio.ByteOrder;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The framing of PostgreSQL's binary COPY stream, as the PostgreSQL documentation describes it (chapter "COPY",
 * section "Binary Format", PostgreSQL 15): every integer is in network byte order (big-endian).
 *
 * <ul>
 *   <li>Header: the 11-byte signature {@code PGCOPY\n\377\r\n\0} ({@code 50 47 43 4f 50 59 0a ff 0d 0a 00}), an
 *       int32 flags field (0: no OIDs; bits 0-15 critical, 16-31 reserved) and an int32 header-extension length
 *       (0 here, no extension): 19 bytes in all, {@link #HEADER_BYTES}.</li>
 *   <li>Each tuple: an int16 count of fields, then per field an int32 length in bytes of its value (-1 for NULL,
 *       then no bytes) and the value in the binary format of the column's type (its {@code typsend}/{@code
 *       typreceive} functions).</li>
 *   <li>Trailer: the int16 -1 ({@code ff ff}).</li>
 * </ul>
 *
 * <p>One COPY statement carries one header, any number of tuples and one trailer. The writes go to a chronicle
 * {@link Bytes} at and advancing its {@code writePosition}; nothing is allocated. Stateless and thread-safe (the
 * buffer is the caller's, one per thread).
 */
public final class PgCopy
{
    /** Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch: a {@code date} is int32 days since 2000-01-01. */
    public static final long EPOCH_DAYS = 10_957;
    /**
     * Microseconds from 1970-01-01 00:00:00 UTC to 2000-01-01 00:00:00 UTC: a {@code timestamp} or {@code timestamptz}
     * is int64 microseconds since 2000-01-01.
     */
    public static final long EPOCH_MICROS = EPOCH_DAYS * 86_400_000_000L;
    /** The first valid timestamp, 4714-11-24 00:00:00 BC, in microseconds since 2000-01-01 (MIN_TIMESTAMP). */
    public static final long MIN_MICROS = -211_813_488_000_000_000L;
    /** The first timestamp after the range, 294277-01-01 00:00:00, in microseconds since 2000 (END_TIMESTAMP). */
    public static final long END_MICROS = 9_223_371_331_200_000_000L;
    /** The first valid date, 4714-11-24 BC (Julian day 0), in days since 2000-01-01. */
    public static final long MIN_DAYS = -2_451_545;
    /** The last valid date, 5874897-12-31, in days since 2000-01-01. */
    public static final long MAX_DAYS = 2_145_031_948;

    /** Bytes of the header: 11 of signature, 4 of flags, 4 of extension length. */
    public static final int HEADER_BYTES = 19;

    private static final boolean NATIVE_BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte)0xff, '\r', '\n', 0};

    private PgCopy()
    {
    }

    /**
     * Writes the header: signature, flags 0, header extension length 0.
     *
     * @param out the buffer.
     */
    public static void writeHeader(final Bytes<?> out)
    {
        out.write(SIGNATURE);
        writeInt32(out, 0);
        writeInt32(out, 0);
    }

    /**
     * Starts a tuple: its int16 field count. The caller then writes exactly {@code fields} fields, each with
     * {@link PgColumnEncoder#encode} or {@link #writeNull}.
     *
     * @param out    the buffer.
     * @param fields the number of fields (columns of the COPY column list), 1..1600 (a table has at most 1600
     *               columns, MaxHeapAttributeNumber).
     * @throws IllegalArgumentException if out of range.
     */
    public static void beginTuple(final Bytes<?> out, final int fields)
    {
        if (fields < 1 || fields > 1600)
        {
            throw new IllegalArgumentException("a tuple has 1..1600 fields: " + fields);
        }
        writeInt16(out, fields);
    }

    /**
     * Writes a NULL field: the length -1 and no bytes.
     *
     * @param out the buffer.
     */
    public static void writeNull(final Bytes<?> out)
    {
        writeInt32(out, -1);
    }

    /**
     * Writes the trailer, the int16 -1 that ends the stream.
     *
     * @param out the buffer.
     */
    public static void writeTrailer(final Bytes<?> out)
    {
        writeInt16(out, -1);
    }

    /**
     * Writes a big-endian int16.
     *
     * @param out   the buffer.
     * @param value the low 16 bits are written.
     */
    public static void writeInt16(final Bytes<?> out, final int value)
    {
        final short v = (short)value;
        out.writeShort(NATIVE_BIG_ENDIAN ? v : Short.reverseBytes(v));
    }

    /**
     * Writes a big-endian int32.
     *
     * @param out   the buffer.
     * @param value the value.
     */
    public static void writeInt32(final Bytes<?> out, final int value)
    {
        out.writeInt(NATIVE_BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }

    /**
     * Writes a big-endian int64.
     *
     * @param out   the buffer.
     * @param value the value.
     */
    public static void writeInt64(final Bytes<?> out, final long value)
    {
        out.writeLong(NATIVE_BIG_ENDIAN ? value : Long.reverseBytes(value));
    }

    /**
     * Overwrites a big-endian int32 at an absolute position (a field's length once its value is written).
     *
     * @param out      the buffer.
     * @param position the index of the first byte.
     * @param value    the value.
     */
    public static void putInt32(final Bytes<?> out, final long position, final int value)
    {
        out.writeInt(position, NATIVE_BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }
}
