package io.sluice.sinks.postgres;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.RowBinary;

/**
 * Writes the fields of one binary COPY tuple from Java values, for an embedded {@code RowEncoder<R>} of typed rows
 * into a PostgreSQL table: the twin, for PostgreSQL, of writing ClickHouse RowBinary by hand. A bound encoder's
 * {@code encode(row, out)} writes what {@link PgJsonRowEncoder} writes for a JSON record ("The bytes of a row"):
 * {@link #beginRow} with the number of columns of its {@code columns()}, then one field per column in that order,
 * each with the method of the column's type or {@link #writeNull}. The sink's writer adds the COPY header and trailer
 * and sends the rows with {@code COPY table (columns) FROM STDIN (FORMAT binary)}.
 *
 * <p>Layouts are those of the types' send functions, big-endian, as PostgreSQL's documentation ("COPY", "Binary
 * Format") refers to them: each field an int32 length (-1 for NULL) then the value. Every method writes at and
 * advances {@code out.writePosition()} and allocates nothing. The methods for values the server could refuse (text
 * with a NUL, a time out of PostgreSQL's range) check them first and return a code, so one bad row costs that row,
 * not the batch: {@link ConversionError#NONE} when written, else a negative code ({@link PgCopyError#describe}
 * words it) with nothing written. The caller then returns an error from {@code encode}, which fails, skips or
 * dead-letters that row under {@code on_error}. Stateless and thread-safe (the buffer is the caller's).
 *
 * <p>What is not checked: a {@code varchar(n)} or {@code char(n)} length, and the JSON syntax of {@link #writeJsonb}
 * and {@link #writeJson} text (the server refuses the whole COPY for those): give them values the column takes.
 */
public final class PgFields
{
    private PgFields()
    {
    }

    /**
     * Starts a row: its int16 field count.
     *
     * @param out    the batch buffer
     * @param fields the fields that follow: the size of the bound encoder's {@code columns()}, 1..1600
     * @throws IllegalArgumentException when out of range
     */
    public static void beginRow(final Bytes<?> out, final int fields)
    {
        PgCopy.beginTuple(out, fields);
    }

    /**
     * Writes SQL NULL (length -1).
     *
     * @param out the batch buffer
     */
    public static void writeNull(final Bytes<?> out)
    {
        PgCopy.writeNull(out);
    }

    /**
     * Writes a {@code boolean}.
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeBool(final Bytes<?> out, final boolean value)
    {
        PgCopy.writeInt32(out, 1);
        out.writeByte((byte)(value ? 1 : 0));
    }

    /**
     * Writes a {@code smallint}.
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeInt2(final Bytes<?> out, final short value)
    {
        PgCopy.writeInt32(out, 2);
        PgCopy.writeInt16(out, value);
    }

    /**
     * Writes an {@code integer}.
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeInt4(final Bytes<?> out, final int value)
    {
        PgCopy.writeInt32(out, 4);
        PgCopy.writeInt32(out, value);
    }

    /**
     * Writes a {@code bigint}.
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeInt8(final Bytes<?> out, final long value)
    {
        PgCopy.writeInt32(out, 8);
        PgCopy.writeInt64(out, value);
    }

    /**
     * Writes a {@code real} (IEEE 754 binary32; NaN and the infinities as the server stores them).
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeFloat4(final Bytes<?> out, final float value)
    {
        PgCopy.writeInt32(out, 4);
        PgCopy.writeInt32(out, Float.floatToIntBits(value));
    }

    /**
     * Writes a {@code double precision} (IEEE 754 binary64).
     *
     * @param out   the batch buffer
     * @param value the value
     */
    public static void writeFloat8(final Bytes<?> out, final double value)
    {
        PgCopy.writeInt32(out, 8);
        PgCopy.writeInt64(out, Double.doubleToLongBits(value));
    }

    /**
     * Writes a {@code uuid} from its two halves, as {@link java.util.UUID#getMostSignificantBits} and
     * {@code getLeastSignificantBits} give them.
     *
     * @param out  the batch buffer
     * @param high the most significant 64 bits
     * @param low  the least significant 64 bits
     */
    public static void writeUuid(final Bytes<?> out, final long high, final long low)
    {
        PgCopy.writeInt32(out, 16);
        PgCopy.writeInt64(out, high);
        PgCopy.writeInt64(out, low);
    }

    /**
     * Writes a {@code timestamptz} (or a {@code timestamp}, which then holds the UTC wall time of the instant, as
     * docs/postgres.md says for JSON values).
     *
     * @param out         the batch buffer
     * @param epochMicros microseconds since 1970-01-01 00:00:00 UTC
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#DATE_OUT_OF_RANGE} outside PostgreSQL's range
     *     (4714-11-24 BC to 294276 AD), nothing written
     */
    public static int writeTimestamp(final Bytes<?> out, final long epochMicros)
    {
        if (epochMicros < PgCopy.MIN_MICROS + PgCopy.EPOCH_MICROS
            || epochMicros - PgCopy.EPOCH_MICROS >= PgCopy.END_MICROS)
        {
            return PgCopyError.DATE_OUT_OF_RANGE;
        }
        PgCopy.writeInt32(out, 8);
        PgCopy.writeInt64(out, epochMicros - PgCopy.EPOCH_MICROS);
        return ConversionError.NONE;
    }

    /**
     * Writes a {@code date}.
     *
     * @param out       the batch buffer
     * @param epochDays days since 1970-01-01 ({@link java.time.LocalDate#toEpochDay})
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#DATE_OUT_OF_RANGE} outside 4714-11-24 BC ..
     *     5874897-12-31, nothing written
     */
    public static int writeDate(final Bytes<?> out, final long epochDays)
    {
        final long days = epochDays - PgCopy.EPOCH_DAYS;
        if (days < PgCopy.MIN_DAYS || days > PgCopy.MAX_DAYS)
        {
            return PgCopyError.DATE_OUT_OF_RANGE;
        }
        PgCopy.writeInt32(out, 4);
        PgCopy.writeInt32(out, (int)days);
        return ConversionError.NONE;
    }

    /**
     * Writes {@code text}, {@code varchar}, {@code char} or an enum's label, as UTF-8.
     *
     * @param out  the batch buffer
     * @param text the characters (a {@code String}, a reused {@code StringBuilder}, ...)
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUL_CHARACTER} (PostgreSQL's text types cannot
     *     hold U+0000) or {@link PgCopyError#UNPAIRED_SURROGATE}, nothing written
     */
    public static int writeText(final Bytes<?> out, final CharSequence text)
    {
        return utf8(out, text);
    }

    /**
     * Writes {@code text}, {@code varchar}, {@code char} or an enum's label from bytes that are UTF-8 already (such as
     * a string the record's JSON scanner unescaped into a buffer), copied as they are.
     *
     * @param out    the batch buffer
     * @param utf8   the bytes, valid UTF-8 (not checked again)
     * @param offset the index of the first byte
     * @param length how many bytes
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUL_CHARACTER} when a byte is 0, nothing written
     */
    public static int writeUtf8(final Bytes<?> out, final DirectBuffer utf8, final int offset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (utf8.getByte(offset + i) == 0)
            {
                return PgCopyError.NUL_CHARACTER;
            }
        }
        PgCopy.writeInt32(out, length);
        RowBinary.writeBytes(out, utf8, offset, length);
        return ConversionError.NONE;
    }

    /**
     * Writes {@code json}: the text as it is (the server checks its syntax and keeps it unparsed).
     *
     * @param out  the batch buffer
     * @param json valid JSON text
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUL_CHARACTER} or
     *     {@link PgCopyError#UNPAIRED_SURROGATE}, nothing written
     */
    public static int writeJson(final Bytes<?> out, final CharSequence json)
    {
        return utf8(out, json);
    }

    /**
     * Writes {@code jsonb}: the version byte 1, then the text ({@code jsonb_recv}).
     *
     * @param out  the batch buffer
     * @param json valid JSON text without a {@code &#92;u0000} escape (which jsonb refuses)
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUL_CHARACTER} or
     *     {@link PgCopyError#UNPAIRED_SURROGATE}, nothing written
     */
    public static int writeJsonb(final Bytes<?> out, final CharSequence json)
    {
        final long at = out.writePosition();
        PgCopy.writeInt32(out, 0);
        out.writeByte((byte)1);
        return finish(out, at, characters(out, json));
    }

    private static int utf8(final Bytes<?> out, final CharSequence text)
    {
        final long at = out.writePosition();
        PgCopy.writeInt32(out, 0);
        return finish(out, at, characters(out, text));
    }

    /** Sets the field's length, or rewinds to its start on a failure. */
    private static int finish(final Bytes<?> out, final long at, final int code)
    {
        if (code != ConversionError.NONE)
        {
            out.writePosition(at);
            return code;
        }
        PgCopy.putInt32(out, at, (int)(out.writePosition() - at - 4));
        return ConversionError.NONE;
    }

    /** Writes the characters as UTF-8; a surrogate pair as one 4-byte character. */
    private static int characters(final Bytes<?> out, final CharSequence s)
    {
        final int n = s.length();
        for (int i = 0; i < n; i++)
        {
            final char c = s.charAt(i);
            if (c < 0x80)
            {
                if (c == 0)
                {
                    return PgCopyError.NUL_CHARACTER;
                }
                out.writeByte((byte)c);
            }
            else if (c < 0x800)
            {
                out.writeByte((byte)(0xC0 | c >> 6));
                out.writeByte((byte)(0x80 | c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, s.charAt(++i));
                out.writeByte((byte)(0xF0 | cp >> 18));
                out.writeByte((byte)(0x80 | cp >> 12 & 0x3F));
                out.writeByte((byte)(0x80 | cp >> 6 & 0x3F));
                out.writeByte((byte)(0x80 | cp & 0x3F));
            }
            else if (Character.isSurrogate(c))
            {
                return PgCopyError.UNPAIRED_SURROGATE;
            }
            else
            {
                out.writeByte((byte)(0xE0 | c >> 12));
                out.writeByte((byte)(0x80 | c >> 6 & 0x3F));
                out.writeByte((byte)(0x80 | c & 0x3F));
            }
        }
        return ConversionError.NONE;
    }
}
