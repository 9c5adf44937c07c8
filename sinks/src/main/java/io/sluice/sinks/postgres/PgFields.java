package io.sluice.sinks.postgres;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopy;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgType;
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
    /** numeric's largest weight (base-10000 digits before the point, minus one): {@code NUMERIC_WEIGHT_MAX}. */
    private static final int NUMERIC_MAX_WEIGHT = 32_767;
    /** numeric's largest display scale: {@code NUMERIC_DSCALE_MAX}. */
    private static final int NUMERIC_MAX_DSCALE = 0x3FFF;
    private static final int NUMERIC_NEG = 0x4000;
    private static final BigInteger NBASE = BigInteger.valueOf(10_000);
    /** 10^0 .. 10^19; 10^19 only as an unsigned long. */
    private static final long[] POW10 = new long[20];

    static
    {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++)
        {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

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

    /**
     * Writes an unconstrained {@code numeric} of the value {@code unscaled × 10^-scale}, exactly, with the display
     * scale {@code max(scale, 0)}: 150 at scale 2 is {@code 1.50}, 15 at scale -2 is {@code 1500}. The same bytes as
     * the JSON path writes for the same value written with that many fraction digits. Allocates nothing.
     *
     * <p>The layout is that of PostgreSQL's {@code numeric_send} ({@code src/backend/utils/adt/numeric.c}; read back
     * by {@code numeric_recv}): int16 ndigits, int16 weight (the base-10000 exponent of the first digit), int16 sign
     * (0x0000 positive, 0x4000 negative), int16 dscale (decimal digits shown after the point), then ndigits int16
     * base-10000 digits, most significant first, without leading or trailing zero digits. Zero has no digits, weight
     * 0 and the positive sign.
     *
     * @param out      the batch buffer
     * @param unscaled the unscaled value (any long, {@link Long#MIN_VALUE} included)
     * @param scale    decimal digits after the point; negative multiplies by a power of ten
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUMERIC_FORMAT_OVERFLOW} when the value needs a
     *     display scale over 16383 or a weight over 32767 (numeric cannot hold it at all), nothing written
     */
    public static int writeNumeric(final Bytes<?> out, final long unscaled, final int scale)
    {
        return writeNumeric(out, unscaled, scale, PgType.NONE, 0);
    }

    /**
     * Writes a {@code numeric(precision, typeScale)} of the value {@code unscaled × 10^-scale}: rounded to
     * {@code typeScale} fraction digits, half away from zero (PostgreSQL's {@code apply_typmod} and
     * {@code round_var}), display scale {@code max(typeScale, 0)}, then refused when it has more than
     * {@code precision - typeScale} integer digits. The same bytes, and the same refusals, as the JSON path's encoder
     * of that column for the same value. Layout as {@link #writeNumeric(Bytes, long, int)}. Allocates nothing.
     *
     * @param out       the batch buffer
     * @param unscaled  the unscaled value
     * @param scale     its decimal digits after the point
     * @param precision the column's precision, 1..1000, or {@link PgType#NONE} for an unconstrained numeric (then
     *                  {@code typeScale} is ignored)
     * @param typeScale the column's scale, -1000..1000 (PostgreSQL 15 allows a negative scale)
     * @return {@link ConversionError#NONE}, or {@link PgCopyError#NUMERIC_OVERFLOW} (too many integer digits for
     *     the column, SQLSTATE 22003) or {@link PgCopyError#NUMERIC_FORMAT_OVERFLOW}, nothing written
     */
    public static int writeNumeric(final Bytes<?> out, final long unscaled, final int scale, final int precision,
        final int typeScale)
    {
        final boolean constrained = precision != PgType.NONE;
        final boolean negative = unscaled < 0;
        // the magnitude as an unsigned long: -Long.MIN_VALUE is 2^63 read unsigned
        long m = negative ? -unscaled : unscaled;
        // value = m × 10^e
        long e = -(long)scale;
        final long dscale = constrained ? Math.max(typeScale, 0) : Math.max(scale, 0);
        if (dscale > NUMERIC_MAX_DSCALE)
        {
            return PgCopyError.NUMERIC_FORMAT_OVERFLOW;
        }
        if (constrained && e < -typeScale)
        {
            final long drop = -typeScale - e;
            m = drop >= POW10.length ? 0 : roundOff(m, POW10[(int)drop]);
            e = -typeScale;
        }
        if (m == 0)
        {
            writeNumericHeader(out, 0, 0, false, (int)dscale);
            return ConversionError.NONE;
        }
        while (Long.remainderUnsigned(m, 10) == 0)
        {
            m = Long.divideUnsigned(m, 10);
            e++;
        }
        final long lead = e + decimalDigits(m) - 1;
        final int magnitude = magnitude(lead, constrained, precision, typeScale);
        if (magnitude != ConversionError.NONE)
        {
            return magnitude;
        }
        final long weight = Math.floorDiv(lead, 4);
        final long last = Math.floorDiv(e, 4);
        final int ndigits = (int)(weight - last + 1);
        PgCopy.writeInt32(out, 8 + 2 * ndigits);
        PgCopy.writeInt16(out, ndigits);
        PgCopy.writeInt16(out, (int)weight);
        PgCopy.writeInt16(out, negative ? NUMERIC_NEG : 0);
        PgCopy.writeInt16(out, (int)dscale);
        for (long g = weight; g >= last; g--)
        {
            // the base-10000 digit g holds the decimal exponents 4g .. 4g+3, i.e. m's digits from position 4g - e
            final long at = 4 * g - e;
            final int digit;
            if (at >= 0)
            {
                digit = at >= POW10.length
                    ? 0
                    : (int)Long.remainderUnsigned(Long.divideUnsigned(m, POW10[(int)at]),
                        10_000);
            }
            else
            {
                // only the last digit: m's lowest 4 + at decimal digits, shifted up by -at
                digit = (int)(Long.remainderUnsigned(m, POW10[(int)(4 + at)]) * POW10[(int)-at]);
            }
            PgCopy.writeInt16(out, digit);
        }
        return ConversionError.NONE;
    }

    /**
     * Writes an unconstrained {@code numeric} of the value exactly, with the display scale
     * {@code max(value.scale(), 0)}: as {@link #writeNumeric(Bytes, long, int)} with {@code value}'s unscaled value
     * and scale, for values whose unscaled value does not fit a long too. Allocates when it does not fit: not for the
     * hot path of such values.
     *
     * @param out   the batch buffer
     * @param value the value
     * @return as {@link #writeNumeric(Bytes, long, int)}
     */
    public static int writeNumeric(final Bytes<?> out, final BigDecimal value)
    {
        return writeNumeric(out, value, PgType.NONE, 0);
    }

    /**
     * Writes a {@code numeric(precision, typeScale)} of the value, as {@link #writeNumeric(Bytes, long, int, int, int)}
     * does (the same rounding, display scale and refusals), for values whose unscaled value does not fit a long too.
     * Allocates when it does not fit.
     *
     * @param out       the batch buffer
     * @param value     the value
     * @param precision the column's precision, or {@link PgType#NONE} for an unconstrained numeric
     * @param typeScale the column's scale
     * @return as {@link #writeNumeric(Bytes, long, int, int, int)}
     */
    public static int writeNumeric(final Bytes<?> out, final BigDecimal value, final int precision,
        final int typeScale)
    {
        final BigInteger unscaled = value.unscaledValue();
        if (unscaled.bitLength() < 64)
        {
            return writeNumeric(out, unscaled.longValue(), value.scale(), precision, typeScale);
        }
        final boolean constrained = precision != PgType.NONE;
        final long dscale = constrained ? Math.max(typeScale, 0) : Math.max(value.scale(), 0);
        if (dscale > NUMERIC_MAX_DSCALE)
        {
            return PgCopyError.NUMERIC_FORMAT_OVERFLOW;
        }
        BigDecimal v = value;
        if (constrained && v.scale() > typeScale)
        {
            // HALF_UP is half away from zero, PostgreSQL's rounding of numeric
            v = v.setScale(typeScale, RoundingMode.HALF_UP);
        }
        if (v.signum() == 0)
        {
            writeNumericHeader(out, 0, 0, false, (int)dscale);
            return ConversionError.NONE;
        }
        v = v.stripTrailingZeros();
        BigInteger m = v.unscaledValue().abs();
        long e = -(long)v.scale();
        final long lead = e + m.toString().length() - 1;
        final int magnitude = magnitude(lead, constrained, precision, typeScale);
        if (magnitude != ConversionError.NONE)
        {
            return magnitude;
        }
        final long weight = Math.floorDiv(lead, 4);
        final long last = Math.floorDiv(e, 4);
        m = m.multiply(BigInteger.TEN.pow((int)(e - 4 * last)));
        final int ndigits = (int)(weight - last + 1);
        final int[] digits = new int[ndigits];
        for (int i = ndigits - 1; i >= 0; i--)
        {
            final BigInteger[] qr = m.divideAndRemainder(NBASE);
            digits[i] = qr[1].intValue();
            m = qr[0];
        }
        PgCopy.writeInt32(out, 8 + 2 * ndigits);
        PgCopy.writeInt16(out, ndigits);
        PgCopy.writeInt16(out, (int)weight);
        PgCopy.writeInt16(out, v.signum() < 0 ? NUMERIC_NEG : 0);
        PgCopy.writeInt16(out, (int)dscale);
        for (final int d : digits)
        {
            PgCopy.writeInt16(out, d);
        }
        return ConversionError.NONE;
    }

    /**
     * @param lead the decimal exponent of the value's leading digit
     * @return NUMERIC_OVERFLOW when a numeric(p,s) column cannot hold that many integer digits, NUMERIC_FORMAT_OVERFLOW
     *     beyond numeric's largest weight, else NONE
     */
    private static int magnitude(final long lead, final boolean constrained, final int precision,
        final int typeScale)
    {
        if (constrained && lead + 1 > (long)precision - typeScale)
        {
            return PgCopyError.NUMERIC_OVERFLOW;
        }
        return Math.floorDiv(lead, 4) > NUMERIC_MAX_WEIGHT ? PgCopyError.NUMERIC_FORMAT_OVERFLOW : ConversionError.NONE;
    }

    /** A numeric without digits (zero): its length and the four int16 of the header. */
    private static void writeNumericHeader(final Bytes<?> out, final int ndigits, final int weight,
        final boolean negative, final int dscale)
    {
        PgCopy.writeInt32(out, 8 + 2 * ndigits);
        PgCopy.writeInt16(out, ndigits);
        PgCopy.writeInt16(out, weight);
        PgCopy.writeInt16(out, negative ? NUMERIC_NEG : 0);
        PgCopy.writeInt16(out, dscale);
    }

    /** {@code m / divisor} rounded half away from zero, all unsigned; {@code divisor} is a power of ten over 1. */
    private static long roundOff(final long m, final long divisor)
    {
        final long q = Long.divideUnsigned(m, divisor);
        final long r = Long.remainderUnsigned(m, divisor);
        return Long.compareUnsigned(r, divisor - r) >= 0 ? q + 1 : q;
    }

    /** The number of decimal digits of {@code m}, read unsigned, over 0. */
    private static int decimalDigits(final long m)
    {
        int n = 1;
        while (n < POW10.length && Long.compareUnsigned(m, POW10[n]) >= 0)
        {
            n++;
        }
        return n;
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
