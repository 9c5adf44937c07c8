package io.sluice.codecs.rowbinary;

import java.nio.ByteOrder;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Static writers of ClickHouse RowBinary primitives into chronicle-bytes buffers, at and advancing
 * {@code writePosition}.
 *
 * <p>Source of the layout: ClickHouse documentation, "RowBinary" format page (section "Data types wire format",
 * https://clickhouse.com/docs/interfaces/formats/RowBinary) and the data type pages: integers (Int8 to Int256, UInt8
 * to UInt256: 1, 2, 4, 8, 16 or 32 bytes) and floats are fixed-width little endian (signed ones two's complement);
 * Bool is one byte 0/1; String is an unsigned LEB128 length then the bytes; FixedString(N) is exactly N bytes; Date
 * is UInt16 days, Date32 Int32 days, DateTime UInt32 seconds, DateTime64(P) Int64 ticks; UUID is two little-endian
 * UInt64 halves, the high 64 bits (first 16 hex digits) first; Decimal is the scaled integer in 4, 8 or 16 bytes;
 * Enum8 and Enum16 are Int8 and Int16; Nullable(T) is a byte 1 (NULL, nothing follows) or 0 then T; Array(T) and
 * Map(K, V) are a LEB128 count then the elements (key, value, key, value for Map); Tuple is its elements in order;
 * LowCardinality(T) is written as T.
 *
 * <p>All methods are static, allocation-free and thread-safe (the buffer is not: one writer per buffer). A full,
 * non-elastic buffer throws chronicle's {@code BufferOverflowException}.
 */
public final class RowBinary
{
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private RowBinary()
    {
    }

    /**
     * Writes an unsigned LEB128 variable-length integer (7 bits per byte, low group first, high bit set on every
     * byte but the last), as used for String, Array and Map lengths.
     *
     * @param out   the buffer.
     * @param value the value, treated as unsigned 64-bit.
     */
    public static void writeVarUInt(final Bytes<?> out, final long value)
    {
        long v = value;
        while ((v & ~0x7FL) != 0)
        {
            out.writeByte((byte)((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.writeByte((byte)v);
    }

    /**
     * Writes a String: LEB128 length then the bytes, copied from an Agrona buffer (on or off heap) without an
     * intermediate array.
     *
     * @param out    the buffer.
     * @param src    the bytes to write (expected UTF-8, but any bytes are written as they are).
     * @param offset index of the first byte in {@code src}.
     * @param length number of bytes.
     */
    public static void writeString(final Bytes<?> out, final DirectBuffer src, final int offset, final int length)
    {
        writeVarUInt(out, length);
        writeBytes(out, src, offset, length);
    }

    /**
     * Copies raw bytes (no length prefix), e.g. the content of a FixedString.
     *
     * @param out    the buffer.
     * @param src    the bytes.
     * @param offset index of the first byte in {@code src}.
     * @param length number of bytes.
     */
    public static void writeBytes(final Bytes<?> out, final DirectBuffer src, final int offset, final int length)
    {
        if (length == 0)
        {
            return;
        }
        final byte[] array = src.byteArray();
        if (array != null)
        {
            out.write(array, (int)(src.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET) + offset, length);
        }
        else
        {
            out.unsafeWrite(src.addressOffset() + offset, length);
        }
    }

    /**
     * Writes {@code count} zero bytes.
     *
     * @param out   the buffer.
     * @param count number of bytes.
     */
    public static void writeZeros(final Bytes<?> out, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            out.writeByte((byte)0);
        }
    }

    /**
     * Writes one byte: Int8, UInt8, Bool, Enum8 and the Nullable marker.
     *
     * @param out   the buffer.
     * @param value the low 8 bits are written.
     */
    public static void writeInt8(final Bytes<?> out, final int value)
    {
        out.writeByte((byte)value);
    }

    /**
     * Writes two bytes little endian: Int16, UInt16, Date, Enum16.
     *
     * @param out   the buffer.
     * @param value the low 16 bits are written.
     */
    public static void writeInt16(final Bytes<?> out, final int value)
    {
        final short v = (short)value;
        out.writeShort(NATIVE_LITTLE_ENDIAN ? v : Short.reverseBytes(v));
    }

    /**
     * Writes four bytes little endian: Int32, UInt32, Date32, DateTime, Decimal32.
     *
     * @param out   the buffer.
     * @param value the value (UInt32 values above 2^31 arrive as negative ints).
     */
    public static void writeInt32(final Bytes<?> out, final int value)
    {
        out.writeInt(NATIVE_LITTLE_ENDIAN ? value : Integer.reverseBytes(value));
    }

    /**
     * Writes eight bytes little endian: Int64, UInt64, DateTime64, Decimal64.
     *
     * @param out   the buffer.
     * @param value the value (UInt64 values above 2^63 arrive as negative longs).
     */
    public static void writeInt64(final Bytes<?> out, final long value)
    {
        out.writeLong(NATIVE_LITTLE_ENDIAN ? value : Long.reverseBytes(value));
    }

    /**
     * Writes a 128-bit integer little endian (low half first): Int128, UInt128, Decimal128. Two's complement for
     * the signed types (ClickHouse documentation, "RowBinary" format page, "(U)Int8, ..., (U)Int128, (U)Int256":
     * every integer little endian in its width, signed ones in two's complement).
     *
     * @param out  the buffer.
     * @param high the high 64 bits (bits 64-127).
     * @param low  the low 64 bits (bits 0-63).
     */
    public static void writeInt128(final Bytes<?> out, final long high, final long low)
    {
        writeInt64(out, low);
        writeInt64(out, high);
    }

    /**
     * Writes a 256-bit integer little endian, 32 bytes, the lowest 64 bits first: Int256 (two's complement) and
     * UInt256 (ClickHouse documentation, "RowBinary" format page, "(U)Int8, ..., (U)Int128, (U)Int256").
     *
     * @param out   the buffer.
     * @param word3 bits 192-255 (the sign bit of Int256 is its top bit).
     * @param word2 bits 128-191.
     * @param word1 bits 64-127.
     * @param word0 bits 0-63.
     */
    public static void writeInt256(final Bytes<?> out, final long word3, final long word2, final long word1,
        final long word0)
    {
        writeInt64(out, word0);
        writeInt64(out, word1);
        writeInt64(out, word2);
        writeInt64(out, word3);
    }

    /**
     * Writes a Float32, IEEE 754 little endian.
     *
     * @param out   the buffer.
     * @param value the value.
     */
    public static void writeFloat32(final Bytes<?> out, final float value)
    {
        writeInt32(out, Float.floatToRawIntBits(value));
    }

    /**
     * Writes a Float64, IEEE 754 little endian.
     *
     * @param out   the buffer.
     * @param value the value.
     */
    public static void writeFloat64(final Bytes<?> out, final double value)
    {
        writeInt64(out, Double.doubleToRawLongBits(value));
    }

    /**
     * Writes a UUID: the high 64 bits little endian, then the low 64 bits little endian.
     *
     * @param out  the buffer.
     * @param high the first 16 hex digits of the canonical text as a 64-bit number.
     * @param low  the last 16 hex digits.
     */
    public static void writeUuid(final Bytes<?> out, final long high, final long low)
    {
        writeInt64(out, high);
        writeInt64(out, low);
    }
}
