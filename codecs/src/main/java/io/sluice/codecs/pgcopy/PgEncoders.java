package io.sluice.codecs.pgcopy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.codecs.rowbinary.SharedParsers;

/**
 * The encoder variants, one final class per PostgreSQL type family, and the factory. The binary layouts are those
 * of PostgreSQL 15's send/receive functions ({@code boolsend}, {@code int2send} ... {@code numeric_send},
 * {@code uuid_send}, {@code date_send}, {@code timestamp_send}, {@code jsonb_send}, {@code array_send}), which the
 * COPY documentation refers to ("Binary Format": "the binary format of the data type"). Package-private: the API is
 * {@link PgColumnEncoder}.
 */
final class PgEncoders
{
    /** Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
    static final long PG_EPOCH_DAYS = PgCopy.EPOCH_DAYS;
    /** Microseconds from 1970-01-01 00:00:00 UTC to 2000-01-01 00:00:00 UTC. */
    static final long PG_EPOCH_MICROS = PgCopy.EPOCH_MICROS;
    /** The first valid date, in days since 2000-01-01. */
    static final long MIN_PG_DAYS = PgCopy.MIN_DAYS;
    /** The last valid date, in days since 2000-01-01. */
    static final long MAX_PG_DAYS = PgCopy.MAX_DAYS;
    /** The first valid timestamp, in microseconds since 2000-01-01. */
    static final long MIN_PG_MICROS = PgCopy.MIN_MICROS;
    /** The first timestamp after the range, in microseconds since 2000. */
    static final long END_PG_MICROS = PgCopy.END_MICROS;
    /** 0001-01-01 in days since 1970: PostgreSQL's text input has no year 0000 (1 BC), nor do these encoders. */
    static final long YEAR_ONE_DAYS = SharedParsers.daysFromCivil(1, 1, 1);

    private static final int[] POW10 = {1, 10, 100, 1000};

    private PgEncoders()
    {
    }

    static PgColumnEncoder build(final PgType type, final boolean nullable)
    {
        if (type.isArray())
        {
            return new ArrayEncoder(type, nullable, scalar(type.element(), true));
        }
        return scalar(type, nullable);
    }

    private static PgColumnEncoder scalar(final PgType type, final boolean nullable)
    {
        switch (type.kind())
        {
            case BOOL :
                return new BoolEncoder(type, nullable);
            case INT2 :
                return new IntEncoder(type, nullable, 2, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT4 :
                return new IntEncoder(type, nullable, 4, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case INT8 :
                return new IntEncoder(type, nullable, 8, Long.MIN_VALUE, Long.MAX_VALUE);
            case FLOAT4 :
                return new FloatEncoder(type, nullable, false);
            case FLOAT8 :
                return new FloatEncoder(type, nullable, true);
            case NUMERIC :
                return new NumericEncoder(type, nullable);
            case TEXT :
            case VARCHAR :
            case BPCHAR :
                return new TextEncoder(type, nullable);
            case ENUM :
                return new EnumEncoder(type, nullable);
            case JSON :
                return new JsonEncoder(type, nullable, false);
            case JSONB :
                return new JsonEncoder(type, nullable, true);
            case UUID :
                return new UuidEncoder(type, nullable);
            case DATE :
                return new DateEncoder(type, nullable);
            case TIMESTAMP :
            case TIMESTAMPTZ :
                return new TimestampEncoder(type, nullable);
            default :
                throw new IllegalArgumentException("unsupported PostgreSQL type " + type);
        }
    }

    /** boolean: true/false, the numbers 0/1 and the strings "true", "false", "0", "1" (any case), as for Bool. */
    static final class BoolEncoder extends PgColumnEncoder
    {
        BoolEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                out.writeByte((byte)(kind == JsonKind.TRUE ? 1 : 0));
                return ConversionError.NONE;
            }
            if (kind != JsonKind.NUMBER && kind != JsonKind.STRING)
            {
                return ConversionError.WRONG_KIND;
            }
            final EncodeScratch s = scratch.parse;
            final int code = s.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final DirectBuffer b = s.textBuffer();
            final int offset = s.textOffset();
            final int length = s.textLength();
            final boolean string = kind == JsonKind.STRING;
            if (SharedParsers.equalsIgnoreCase(b, offset, length, "1") ||
                (string && SharedParsers.equalsIgnoreCase(b, offset, length, "true")))
            {
                out.writeByte((byte)1);
                return ConversionError.NONE;
            }
            if (SharedParsers.equalsIgnoreCase(b, offset, length, "0") ||
                (string && SharedParsers.equalsIgnoreCase(b, offset, length, "false")))
            {
                out.writeByte((byte)0);
                return ConversionError.NONE;
            }
            return ConversionError.BAD_BOOL;
        }
    }

    /** smallint, integer, bigint: exactly integral numbers and numeric strings, range-checked; true/false as 1/0. */
    static final class IntEncoder extends PgColumnEncoder
    {
        private final int bytes;
        private final long min;
        private final long max;

        IntEncoder(final PgType type, final boolean nullable, final int bytes, final long min, final long max)
        {
            super(type, nullable);
            this.bytes = bytes;
            this.min = min;
            this.max = max;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final int kind = value.kind();
            long v;
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                v = kind == JsonKind.TRUE ? 1 : 0;
            }
            else
            {
                final EncodeScratch s = scratch.parse;
                int code = s.numberText(value);
                if (code == ConversionError.NONE)
                {
                    code = SharedParsers.parseSigned(s.textBuffer(), s.textOffset(), s.textLength(), min, max, s);
                }
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                v = s.resultLow();
            }
            switch (bytes)
            {
                case 2 :
                    PgCopy.writeInt16(out, (int)v);
                    break;
                case 4 :
                    PgCopy.writeInt32(out, (int)v);
                    break;
                default :
                    PgCopy.writeInt64(out, v);
                    break;
            }
            return ConversionError.NONE;
        }
    }

    /**
     * real, double precision: correctly rounded from the text; strings may be nan, inf, +inf, -inf. A value beyond
     * the type's range, or one that is not zero but rounds to zero (1e-50 into real), is out of range, as
     * PostgreSQL's input refuses it.
     */
    static final class FloatEncoder extends PgColumnEncoder
    {
        private final boolean doublePrecision;

        FloatEncoder(final PgType type, final boolean nullable, final boolean doublePrecision)
        {
            super(type, nullable);
            this.doublePrecision = doublePrecision;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                final double v = kind == JsonKind.TRUE ? 1.0 : 0.0;
                if (doublePrecision)
                {
                    PgCopy.writeInt64(out, Double.doubleToRawLongBits(v));
                }
                else
                {
                    PgCopy.writeInt32(out, Float.floatToRawIntBits((float)v));
                }
                return ConversionError.NONE;
            }
            final EncodeScratch s = scratch.parse;
            int code = s.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final boolean special = kind == JsonKind.STRING;
            if (doublePrecision)
            {
                code = SharedParsers.parseDouble(s.textBuffer(), s.textOffset(), s.textLength(), special, s);
                if (code == ConversionError.NONE)
                {
                    if ((s.resultLow() & Long.MAX_VALUE) == 0 && nonZeroMantissa(s))
                    {
                        return ConversionError.OUT_OF_RANGE;
                    }
                    PgCopy.writeInt64(out, s.resultLow());
                }
            }
            else
            {
                code = SharedParsers.parseFloat(s.textBuffer(), s.textOffset(), s.textLength(), special, s);
                if (code == ConversionError.NONE)
                {
                    if (((int)s.resultLow() & Integer.MAX_VALUE) == 0 && nonZeroMantissa(s))
                    {
                        return ConversionError.OUT_OF_RANGE;
                    }
                    PgCopy.writeInt32(out, (int)s.resultLow());
                }
            }
            return code;
        }

        /**
         * Whether the number's text has a non-zero digit before its exponent: such a value that rounds to zero has
         * underflowed, which PostgreSQL's {@code float4in}/{@code float8in} refuse as out of range (a subnormal
         * result is kept) instead of storing 0.
         */
        private static boolean nonZeroMantissa(final EncodeScratch s)
        {
            final DirectBuffer b = s.textBuffer();
            final int end = s.textOffset() + s.textLength();
            for (int i = s.textOffset(); i < end; i++)
            {
                final byte c = b.getByte(i);
                if (c == 'e' || c == 'E')
                {
                    return false;
                }
                if (c >= '1' && c <= '9')
                {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * numeric and numeric(p, s) in PostgreSQL's binary form ({@code numeric_send}): int16 ndigits, int16 weight (of
     * the first base-10000 digit), int16 sign (0x0000 positive, 0x4000 negative), int16 dscale (decimal digits after
     * the point), then ndigits int16 base-10000 digits, without leading or trailing zero digits. Exact from the
     * decimal text: with a scale, rounded half away from zero to s fraction digits (as PostgreSQL's
     * {@code apply_typmod}/{@code round_var}), then more than p - s integer digits is
     * {@link PgCopyError#NUMERIC_OVERFLOW}; unconstrained, the value as written, dscale = its fraction digits.
     */
    static final class NumericEncoder extends PgColumnEncoder
    {
        private static final int MAX_WEIGHT = 32_767;
        private static final int MAX_DSCALE = 0x3FFF;

        private final boolean constrained;
        private final int precision;
        private final int scale;

        NumericEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
            this.constrained = type.precision() != PgType.NONE;
            this.precision = type.precision();
            this.scale = type.scale();
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final EncodeScratch s = scratch.parse;
            int code = s.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final DirectBuffer b = s.textBuffer();
            code = SharedParsers.split(b, s.textOffset(), s.textLength(), s);
            if (code != ConversionError.NONE)
            {
                return ConversionError.BAD_DECIMAL;
            }
            final int intDigits = s.intEnd() - s.intStart();
            final int n = intDigits + (s.fracEnd() - s.fracStart());
            final byte[] dec = scratch.digits;
            if (n + 1 > dec.length)
            {
                return ConversionError.TOO_LONG;
            }
            // digit k (0-based over integer then fraction digits) has the decimal exponent point - 1 - k
            final long point = intDigits + s.exponent();
            int keep = n;
            boolean roundUp = false;
            if (constrained)
            {
                final long cut = point + scale;
                if (cut < n)
                {
                    keep = (int)Math.max(cut, 0);
                    roundUp = cut >= 0 && digit(b, s, intDigits, (int)cut) >= 5;
                }
            }
            // dec[i] has the exponent point - i; dec[0] takes a carry out of the rounding
            dec[0] = 0;
            for (int k = 0; k < keep; k++)
            {
                dec[k + 1] = (byte)digit(b, s, intDigits, k);
            }
            if (roundUp)
            {
                int i = keep;
                while (++dec[i] == 10)
                {
                    dec[i--] = 0;
                }
            }
            final long dscale = constrained ? Math.max(scale, 0) : Math.max(0, n - point);
            if (dscale > MAX_DSCALE)
            {
                return PgCopyError.NUMERIC_FORMAT_OVERFLOW;
            }
            int first = -1;
            int last = -1;
            for (int i = 0; i <= keep; i++)
            {
                if (dec[i] != 0)
                {
                    if (first < 0)
                    {
                        first = i;
                    }
                    last = i;
                }
            }
            if (first < 0)
            {
                // zero: no digits, weight 0, positive (PostgreSQL has no negative zero)
                PgCopy.writeInt16(out, 0);
                PgCopy.writeInt16(out, 0);
                PgCopy.writeInt16(out, 0);
                PgCopy.writeInt16(out, (int)dscale);
                return ConversionError.NONE;
            }
            final long leading = point - first;
            if (constrained && leading + 1 > (long)precision - scale)
            {
                return PgCopyError.NUMERIC_OVERFLOW;
            }
            final long weight = Math.floorDiv(leading, 4);
            if (weight > MAX_WEIGHT)
            {
                return PgCopyError.NUMERIC_FORMAT_OVERFLOW;
            }
            final long lastGroup = Math.floorDiv(point - last, 4);
            PgCopy.writeInt16(out, (int)(weight - lastGroup + 1));
            PgCopy.writeInt16(out, (int)weight);
            PgCopy.writeInt16(out, s.negative() ? 0x4000 : 0);
            PgCopy.writeInt16(out, (int)dscale);
            long group = weight;
            int acc = 0;
            for (int i = first; i <= last; i++)
            {
                final long e = point - i;
                final long g = Math.floorDiv(e, 4);
                while (g < group)
                {
                    PgCopy.writeInt16(out, acc);
                    acc = 0;
                    group--;
                }
                acc += dec[i] * POW10[(int)(e - 4 * g)];
            }
            PgCopy.writeInt16(out, acc);
            return ConversionError.NONE;
        }

        private static int digit(final DirectBuffer b, final EncodeScratch s, final int intDigits, final int k)
        {
            return k < intDigits
                ? b.getByte(s.intStart() + k) - '0'
                : b.getByte(s.fracStart() + k - intDigits) - '0';
        }
    }

    /**
     * Bytes to write of a text of at most {@code max} characters: all of it, or without an excess that is all
     * spaces (PostgreSQL's varchar and bpchar input truncate such an excess, SQL's rule); otherwise
     * {@link PgCopyError#TOO_MANY_CHARACTERS}.
     */
    static int fitCharacters(final DirectBuffer b, final int offset, final int length, final int max)
    {
        final int end = offset + length;
        int i = offset;
        int chars = 0;
        while (i < end && chars < max)
        {
            final int lead = b.getByte(i) & 0xFF;
            i += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
            chars++;
        }
        for (int j = i; j < end; j++)
        {
            if (b.getByte(j) != ' ')
            {
                return PgCopyError.TOO_MANY_CHARACTERS;
            }
        }
        return i - offset;
    }

    static boolean hasNul(final DirectBuffer b, final int offset, final int length)
    {
        for (int i = offset; i < offset + length; i++)
        {
            if (b.getByte(i) == 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * text, varchar(n), char(n): a JSON string's unescaped text, any other value's JSON text as written (as a
     * ClickHouse String column takes it); NUL refused; at most n characters. char(n) is sent unpadded: the server's
     * bpchar input pads it to n.
     */
    static final class TextEncoder extends PgColumnEncoder
    {
        private final int maxChars;

        TextEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
            this.maxChars = type.length();
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            DirectBuffer b = value.buffer();
            int offset = value.offset();
            int length = value.length();
            if (value.kind() == JsonKind.STRING)
            {
                final EncodeScratch s = scratch.parse;
                final int code = s.text(value);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                b = s.textBuffer();
                offset = s.textOffset();
                length = s.textLength();
                // a NUL byte can only come from the escape backslash-u0000: raw control characters are not valid JSON
                if (value.escaped() && hasNul(b, offset, length))
                {
                    return PgCopyError.NUL_CHARACTER;
                }
            }
            if (maxChars != PgType.NONE && length > maxChars)
            {
                length = fitCharacters(b, offset, length, maxChars);
                if (length < 0)
                {
                    return length;
                }
            }
            RowBinary.writeBytes(out, b, offset, length);
            return ConversionError.NONE;
        }
    }

    /** An enum: a JSON string that is exactly one of its labels, sent as the label text. */
    static final class EnumEncoder extends PgColumnEncoder
    {
        private final byte[][] labels;

        EnumEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
            final List<String> names = type.enumLabels();
            labels = new byte[names.size()][];
            for (int i = 0; i < labels.length; i++)
            {
                labels[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
            }
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            if (value.kind() != JsonKind.STRING)
            {
                return ConversionError.WRONG_KIND;
            }
            final EncodeScratch s = scratch.parse;
            final int code = s.text(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final DirectBuffer b = s.textBuffer();
            for (final byte[] label : labels)
            {
                if (label.length == s.textLength() && same(b, s.textOffset(), label))
                {
                    RowBinary.writeBytes(out, b, s.textOffset(), s.textLength());
                    return ConversionError.NONE;
                }
            }
            return hasNul(b, s.textOffset(), s.textLength())
                ? PgCopyError.NUL_CHARACTER
                : PgCopyError.NOT_AN_ENUM_LABEL;
        }

        private static boolean same(final DirectBuffer b, final int offset, final byte[] expected)
        {
            for (int i = 0; i < expected.length; i++)
            {
                if (b.getByte(offset + i) != expected[i])
                {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * json and jsonb: the value's original JSON text, byte for byte (a string with its quotes), never re-serialised;
     * jsonb prefixes the version byte 1 ({@code jsonb_send}) and refuses what {@code jsonb_in} refuses: a
     * {@code &#92;u0000} escape ({@link PgCopyError#NUL_CHARACTER}) and an unpaired surrogate escape
     * ({@link PgCopyError#UNPAIRED_SURROGATE}). json keeps both, as the server does.
     */
    static final class JsonEncoder extends PgColumnEncoder
    {
        private final boolean binary;

        JsonEncoder(final PgType type, final boolean nullable, final boolean binary)
        {
            super(type, nullable);
            this.binary = binary;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final boolean string = value.kind() == JsonKind.STRING;
            if (binary)
            {
                if (string ? value.escaped() : value.kind() >= JsonKind.OBJECT)
                {
                    final int code = checkEscapes(value.buffer(), value.offset(), value.length());
                    if (code != ConversionError.NONE)
                    {
                        return code;
                    }
                }
                out.writeByte((byte)1);
            }
            if (string)
            {
                out.writeByte((byte)'"');
            }
            RowBinary.writeBytes(out, value.buffer(), value.offset(), value.length());
            if (string)
            {
                out.writeByte((byte)'"');
            }
            return ConversionError.NONE;
        }

        /** Finds {@code &#92;u0000} and unpaired surrogate escapes in valid JSON text (backslashes occur in strings). */
        static int checkEscapes(final DirectBuffer b, final int offset, final int length)
        {
            final int end = offset + length;
            boolean pendingHigh = false;
            for (int i = offset; i < end; i++)
            {
                if (b.getByte(i) != '\\')
                {
                    if (pendingHigh)
                    {
                        return PgCopyError.UNPAIRED_SURROGATE;
                    }
                    continue;
                }
                if (i + 5 < end && b.getByte(i + 1) == 'u')
                {
                    final int cp = hex4(b, i + 2);
                    i += 5;
                    if (cp == 0)
                    {
                        return PgCopyError.NUL_CHARACTER;
                    }
                    if (cp >= 0xD800 && cp <= 0xDBFF)
                    {
                        if (pendingHigh)
                        {
                            return PgCopyError.UNPAIRED_SURROGATE;
                        }
                        pendingHigh = true;
                        continue;
                    }
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                    {
                        if (!pendingHigh)
                        {
                            return PgCopyError.UNPAIRED_SURROGATE;
                        }
                        pendingHigh = false;
                        continue;
                    }
                }
                else
                {
                    i++;
                }
                if (pendingHigh)
                {
                    return PgCopyError.UNPAIRED_SURROGATE;
                }
            }
            return pendingHigh ? PgCopyError.UNPAIRED_SURROGATE : ConversionError.NONE;
        }

        private static int hex4(final DirectBuffer b, final int at)
        {
            int v = 0;
            for (int i = at; i < at + 4; i++)
            {
                final int c = b.getByte(i);
                final int lower = c | 0x20;
                v = (v << 4) | (c >= '0' && c <= '9' ? c - '0' : lower - 'a' + 10);
            }
            return v;
        }
    }

    /** uuid: the canonical 8-4-4-4-12 hex text (either case) as 16 bytes; any other form is BAD_UUID. */
    static final class UuidEncoder extends PgColumnEncoder
    {
        UuidEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            if (value.kind() != JsonKind.STRING)
            {
                return ConversionError.WRONG_KIND;
            }
            final EncodeScratch s = scratch.parse;
            int code = s.text(value);
            if (code == ConversionError.NONE)
            {
                code = SharedParsers.parseUuid(s.textBuffer(), s.textOffset(), s.textLength(), s);
            }
            if (code != ConversionError.NONE)
            {
                return code;
            }
            PgCopy.writeInt64(out, s.resultHigh());
            PgCopy.writeInt64(out, s.resultLow());
            return ConversionError.NONE;
        }
    }

    /**
     * date: int32 days since 2000-01-01 from {@code "YYYY-MM-DD"} (exactly; years 0001..9999) or a JSON number of
     * days since 1970-01-01 (as ClickHouse's Date takes it), within PostgreSQL's range 4714-11-24 BC..5874897-12-31.
     */
    static final class DateEncoder extends PgColumnEncoder
    {
        DateEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final EncodeScratch s = scratch.parse;
            final long days;
            if (value.kind() == JsonKind.STRING)
            {
                final int code = s.text(value);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                days = s.textLength() == 10
                    ? SharedParsers.parseDate(s.textBuffer(), s.textOffset(), s.textLength())
                    : Long.MIN_VALUE;
                if (days == Long.MIN_VALUE)
                {
                    return ConversionError.BAD_DATE;
                }
                if (days < YEAR_ONE_DAYS)
                {
                    return PgCopyError.DATE_OUT_OF_RANGE;
                }
            }
            else if (value.kind() == JsonKind.NUMBER)
            {
                final int code = SharedParsers.parseSigned(value.buffer(), value.offset(), value.length(),
                    MIN_PG_DAYS + PG_EPOCH_DAYS, MAX_PG_DAYS + PG_EPOCH_DAYS, s);
                if (code != ConversionError.NONE)
                {
                    return code == ConversionError.OUT_OF_RANGE ? PgCopyError.DATE_OUT_OF_RANGE : code;
                }
                days = s.resultLow();
            }
            else
            {
                return ConversionError.WRONG_KIND;
            }
            PgCopy.writeInt32(out, (int)(days - PG_EPOCH_DAYS));
            return ConversionError.NONE;
        }
    }

    /**
     * timestamp and timestamptz: int64 microseconds since 2000-01-01 00:00:00 UTC. An ISO-8601 string with a zone
     * is that instant, without a zone it is UTC; a JSON number or numeric string is epoch seconds, a fraction kept
     * to the microsecond. Digits finer than a microsecond are truncated (toward zero), as for ClickHouse's
     * DateTime64(6). A timestamp column takes the UTC wall time of the instant. Years 0001..9999 as text; numbers
     * within PostgreSQL's range (4714-11-24 BC to 294276 AD).
     */
    static final class TimestampEncoder extends PgColumnEncoder
    {
        TimestampEncoder(final PgType type, final boolean nullable)
        {
            super(type, nullable);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            final int kind = value.kind();
            if (kind != JsonKind.STRING && kind != JsonKind.NUMBER)
            {
                return ConversionError.WRONG_KIND;
            }
            final EncodeScratch s = scratch.parse;
            int code = s.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final DirectBuffer b = s.textBuffer();
            final int offset = s.textOffset();
            final int length = s.textLength();
            final long unixMicros;
            if (kind == JsonKind.STRING && length >= 10 && b.getByte(offset + 4) == '-')
            {
                if (SharedParsers.parseDateTimeUtc(b, offset, length, s) != ConversionError.NONE)
                {
                    return ConversionError.BAD_DATETIME;
                }
                final long seconds = s.resultHigh();
                if (SharedParsers.parseDate(b, offset, length) < YEAR_ONE_DAYS)
                {
                    return PgCopyError.DATE_OUT_OF_RANGE;
                }
                unixMicros = seconds * 1_000_000 + s.resultLow() / 1_000;
            }
            else
            {
                code = SharedParsers.parseDecimal(b, offset, length, 38, 6, s);
                if (code != ConversionError.NONE)
                {
                    return code == ConversionError.NOT_A_NUMBER && kind == JsonKind.STRING
                        ? ConversionError.BAD_DATETIME
                        : code;
                }
                if (s.resultHigh() != (s.resultLow() >> 63))
                {
                    return PgCopyError.DATE_OUT_OF_RANGE;
                }
                unixMicros = s.resultLow();
            }
            if (unixMicros < MIN_PG_MICROS + PG_EPOCH_MICROS)
            {
                return PgCopyError.DATE_OUT_OF_RANGE;
            }
            final long micros = unixMicros - PG_EPOCH_MICROS;
            if (micros >= END_PG_MICROS)
            {
                return PgCopyError.DATE_OUT_OF_RANGE;
            }
            PgCopy.writeInt64(out, micros);
            return ConversionError.NONE;
        }
    }

    /**
     * A one-dimensional array ({@code array_send}): int32 ndim (1, or 0 for an empty array), int32 has-null flag,
     * int32 element type OID, then for the dimension int32 size and int32 lower bound 1, then each element as a
     * field (int32 length, -1 for a JSON null, then its bytes). From a JSON array only; each element follows the
     * element type's rule.
     */
    static final class ArrayEncoder extends PgColumnEncoder
    {
        private final PgColumnEncoder element;
        private final int elementOid;

        ArrayEncoder(final PgType type, final boolean nullable, final PgColumnEncoder element)
        {
            super(type, nullable);
            this.element = element;
            this.elementOid = type.elementOid();
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final PgScratch scratch)
        {
            if (value.kind() != JsonKind.ARRAY)
            {
                return ConversionError.WRONG_KIND;
            }
            final JsonValueView item = scratch.element;
            scratch.cursor.wrap(value);
            int n = 0;
            while (scratch.cursor.next(item))
            {
                n++;
            }
            if (scratch.cursor.errorCode() != JsonError.NONE)
            {
                return ConversionError.BAD_JSON;
            }
            PgCopy.writeInt32(out, n == 0 ? 0 : 1);
            final long flags = out.writePosition();
            PgCopy.writeInt32(out, 0);
            PgCopy.writeInt32(out, elementOid);
            if (n == 0)
            {
                return ConversionError.NONE;
            }
            PgCopy.writeInt32(out, n);
            PgCopy.writeInt32(out, 1);
            boolean nulls = false;
            scratch.cursor.wrap(value);
            while (scratch.cursor.next(item))
            {
                if (item.kind() == JsonKind.NULL)
                {
                    PgCopy.writeNull(out);
                    nulls = true;
                    continue;
                }
                final int code = element.encodeField(item, out, scratch);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
            }
            if (nulls)
            {
                PgCopy.putInt32(out, flags, 1);
            }
            return ConversionError.NONE;
        }
    }
}
