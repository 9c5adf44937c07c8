package io.sluice.codecs.rowbinary;

import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.List;

import org.agrona.DirectBuffer;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;

/**
 * The encoder variants, one final class per ClickHouse type family, and the factory that compiles a type tree into
 * them. Package-private: the API is {@link ColumnEncoder}.
 */
final class Encoders
{
    private Encoders()
    {
    }

    static ColumnEncoder build(final ClickHouseType type, final ClickHouseType reported, final EncoderOptions options,
        final int level)
    {
        switch (type.kind())
        {
            case INT8 :
                return new SignedInt(reported, options, 1, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case INT16 :
                return new SignedInt(reported, options, 2, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT32 :
                return new SignedInt(reported, options, 4, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case INT64 :
                return new SignedInt(reported, options, 8, Long.MIN_VALUE, Long.MAX_VALUE);
            case UINT8 :
                return new UnsignedInt(reported, options, 1, 0xFFL);
            case UINT16 :
                return new UnsignedInt(reported, options, 2, 0xFFFFL);
            case UINT32 :
                return new UnsignedInt(reported, options, 4, 0xFFFF_FFFFL);
            case UINT64 :
                return new UnsignedInt(reported, options, 8, -1L);
            case INT128 :
                return new WideInt(reported, options, 2, true);
            case UINT128 :
                return new WideInt(reported, options, 2, false);
            case INT256 :
                return new WideInt(reported, options, 4, true);
            case UINT256 :
                return new WideInt(reported, options, 4, false);
            case FLOAT32 :
                return new FloatEncoder(reported, options, false);
            case FLOAT64 :
                return new FloatEncoder(reported, options, true);
            case BOOL :
                return new BoolEncoder(reported, options);
            case STRING :
                return new StringEncoder(reported, options);
            case FIXED_STRING :
                return new FixedStringEncoder(reported, options, type.fixedLength());
            case DATE :
                return new DateEncoder(reported, options, false);
            case DATE32 :
                return new DateEncoder(reported, options, true);
            case DATETIME :
            case DATETIME64 :
                return new DateTimeEncoder(reported, options, type);
            case UUID :
                return new UuidEncoder(reported, options);
            case DECIMAL :
                return new DecimalEncoder(reported, options, type.precision(), type.scale(), type.decimalBytes());
            case ENUM8 :
            case ENUM16 :
                return new EnumEncoder(reported, options, type);
            case NULLABLE :
                return new NullableEncoder(reported, build(type.nested(0), type.nested(0), options, level));
            case LOW_CARDINALITY :
                // RowBinary writes LowCardinality(T) exactly as T
                return build(type.nested(0), reported, options, level);
            case ARRAY :
                return new ArrayEncoder(reported, build(type.nested(0), type.nested(0), options, level + 1), level);
            case MAP :
                return new MapEncoder(reported, build(type.nested(0), type.nested(0), options, level + 1),
                    build(type.nested(1), type.nested(1), options, level + 1), level);
            case TUPLE :
            {
                final List<ClickHouseType> nested = type.nestedTypes();
                final ColumnEncoder[] elements = new ColumnEncoder[nested.size()];
                for (int i = 0; i < elements.length; i++)
                {
                    elements[i] = build(nested.get(i), nested.get(i), options, level + 1);
                }
                return new TupleEncoder(reported, options, elements, type.elementNames(), level);
            }
            default :
                throw new IllegalArgumentException("unsupported ClickHouse type " + type);
        }
    }

    /** Encoders of non-Nullable scalar types and Tuples: null and missing handling per {@link EncoderOptions}. */
    abstract static class ValueEncoder extends ColumnEncoder
    {
        private final boolean nullAsDefault;
        private final boolean missingAsDefault;

        ValueEncoder(final ClickHouseType type, final EncoderOptions options)
        {
            super(type);
            this.nullAsDefault = options.nullAsDefault();
            this.missingAsDefault = options.missingAsDefault();
        }

        @Override
        public final int encode(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.NULL)
            {
                if (!nullAsDefault)
                {
                    return ConversionError.NULL_NOT_ALLOWED;
                }
                encodeDefault(out);
                return ConversionError.NONE;
            }
            if (kind == JsonKind.MISSING)
            {
                if (!missingAsDefault)
                {
                    return ConversionError.MISSING_NOT_ALLOWED;
                }
                encodeDefault(out);
                return ConversionError.NONE;
            }
            return encodeValue(value, out, scratch);
        }

        /** Encodes a value that is neither null nor missing. */
        abstract int encodeValue(JsonValueView value, Bytes<?> out, EncodeScratch scratch);
    }

    static void writeFixed(final Bytes<?> out, final int bytes, final long value)
    {
        switch (bytes)
        {
            case 1 :
                RowBinary.writeInt8(out, (int)value);
                break;
            case 2 :
                RowBinary.writeInt16(out, (int)value);
                break;
            case 4 :
                RowBinary.writeInt32(out, (int)value);
                break;
            default :
                RowBinary.writeInt64(out, value);
                break;
        }
    }

    /** Int8, Int16, Int32, Int64. */
    static final class SignedInt extends ValueEncoder
    {
        private final int bytes;
        private final long min;
        private final long max;

        SignedInt(final ClickHouseType type, final EncoderOptions options, final int bytes, final long min,
            final long max)
        {
            super(type, options);
            this.bytes = bytes;
            this.min = min;
            this.max = max;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                // JSON booleans as 1/0: ClickHouse's input_format_json_read_bools_as_numbers, on by default since 22.4
                writeFixed(out, bytes, kind == JsonKind.TRUE ? 1 : 0);
                return ConversionError.NONE;
            }
            int code = scratch.numberText(value);
            if (code == ConversionError.NONE)
            {
                code = Numbers.parseSigned(scratch.textBuffer, scratch.textOffset, scratch.textLength, min, max,
                    scratch);
            }
            if (code == ConversionError.NONE)
            {
                writeFixed(out, bytes, scratch.resultLow);
            }
            return code;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, bytes, 0);
        }
    }

    /** UInt8, UInt16, UInt32, UInt64. */
    static final class UnsignedInt extends ValueEncoder
    {
        private final int bytes;
        private final long max;

        UnsignedInt(final ClickHouseType type, final EncoderOptions options, final int bytes, final long max)
        {
            super(type, options);
            this.bytes = bytes;
            this.max = max;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                // JSON booleans as 1/0: ClickHouse's input_format_json_read_bools_as_numbers, on by default since 22.4
                writeFixed(out, bytes, kind == JsonKind.TRUE ? 1 : 0);
                return ConversionError.NONE;
            }
            int code = scratch.numberText(value);
            if (code == ConversionError.NONE)
            {
                code = Numbers.parseUnsigned(scratch.textBuffer, scratch.textOffset, scratch.textLength, max, scratch);
            }
            if (code == ConversionError.NONE)
            {
                writeFixed(out, bytes, scratch.resultLow);
            }
            return code;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, bytes, 0);
        }
    }

    /**
     * Int128, UInt128, Int256 and UInt256 from JSON numbers and numeric strings, by the rules of the narrower integers
     * ({@link Numbers#parseWide}: JSON number grammar, integral forms such as {@code 5.0} and {@code 1e3}, a fraction
     * is {@link ConversionError#NOT_AN_INTEGER}, outside the range {@link ConversionError#OUT_OF_RANGE}), and
     * {@code true}/{@code false} as 1/0. Written as 16 or 32 bytes little endian, two's complement for the signed
     * types (ClickHouse documentation, "RowBinary" format page, https://clickhouse.com/docs/interfaces/formats/RowBinary,
     * "(U)Int128, (U)Int256"; the Native format holds the same bytes per value, one value after another). Nothing is
     * allocated: the digits are accumulated in longs.
     */
    static final class WideInt extends ValueEncoder
    {
        private final int words;
        private final boolean signed;

        WideInt(final ClickHouseType type, final EncoderOptions options, final int words, final boolean signed)
        {
            super(type, options);
            this.words = words;
            this.signed = signed;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                // JSON booleans as 1/0: ClickHouse's input_format_json_read_bools_as_numbers, on by default since 22.4
                write(out, kind == JsonKind.TRUE ? 1 : 0, 0, 0, 0);
                return ConversionError.NONE;
            }
            int code = scratch.numberText(value);
            if (code == ConversionError.NONE)
            {
                code = Numbers.parseWide(scratch.textBuffer, scratch.textOffset, scratch.textLength, words, signed,
                    scratch);
            }
            if (code == ConversionError.NONE)
            {
                write(out, scratch.resultLow, scratch.resultHigh, scratch.resultWord2, scratch.resultWord3);
            }
            return code;
        }

        private void write(final Bytes<?> out, final long word0, final long word1, final long word2,
            final long word3)
        {
            if (words == 2)
            {
                RowBinary.writeInt128(out, word1, word0);
            }
            else
            {
                RowBinary.writeInt256(out, word3, word2, word1, word0);
            }
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeZeros(out, words * 8);
        }
    }

    /**
     * Float32 and Float64 from JSON numbers or numeric strings (strings may also be nan, inf, +inf, -inf), and
     * {@code true}/{@code false} as 1/0 (ClickHouse's {@code input_format_json_read_bools_as_numbers}, on by
     * default since 22.4).
     */
    static final class FloatEncoder extends ValueEncoder
    {
        private final boolean doublePrecision;

        FloatEncoder(final ClickHouseType type, final EncoderOptions options, final boolean doublePrecision)
        {
            super(type, options);
            this.doublePrecision = doublePrecision;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.TRUE || kind == JsonKind.FALSE)
            {
                final double v = kind == JsonKind.TRUE ? 1.0 : 0.0;
                if (doublePrecision)
                {
                    RowBinary.writeInt64(out, Double.doubleToRawLongBits(v));
                }
                else
                {
                    RowBinary.writeInt32(out, Float.floatToRawIntBits((float)v));
                }
                return ConversionError.NONE;
            }
            int code = scratch.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final boolean allowSpecial = kind == JsonKind.STRING;
            if (doublePrecision)
            {
                code = Numbers.parseDouble(scratch.textBuffer, scratch.textOffset, scratch.textLength, allowSpecial,
                    scratch);
                if (code == ConversionError.NONE)
                {
                    RowBinary.writeInt64(out, scratch.resultLow);
                }
            }
            else
            {
                code = Numbers.parseFloat(scratch.textBuffer, scratch.textOffset, scratch.textLength, allowSpecial,
                    scratch);
                if (code == ConversionError.NONE)
                {
                    RowBinary.writeInt32(out, (int)scratch.resultLow);
                }
            }
            return code;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, doublePrecision ? 8 : 4, 0);
        }
    }

    /** Bool from true/false, the numbers 0/1, or the strings "true", "false", "0", "1". */
    static final class BoolEncoder extends ValueEncoder
    {
        BoolEncoder(final ClickHouseType type, final EncoderOptions options)
        {
            super(type, options);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            switch (value.kind())
            {
                case JsonKind.TRUE :
                    RowBinary.writeInt8(out, 1);
                    return ConversionError.NONE;
                case JsonKind.FALSE :
                    RowBinary.writeInt8(out, 0);
                    return ConversionError.NONE;
                case JsonKind.NUMBER :
                case JsonKind.STRING :
                {
                    final int code = scratch.numberText(value);
                    if (code != ConversionError.NONE)
                    {
                        return code;
                    }
                    final DirectBuffer b = scratch.textBuffer;
                    final int offset = scratch.textOffset;
                    final int length = scratch.textLength;
                    if (Numbers.equalsIgnoreCase(b, offset, length, "1") ||
                        (value.kind() == JsonKind.STRING && Numbers.equalsIgnoreCase(b, offset, length, "true")))
                    {
                        RowBinary.writeInt8(out, 1);
                        return ConversionError.NONE;
                    }
                    if (Numbers.equalsIgnoreCase(b, offset, length, "0") ||
                        (value.kind() == JsonKind.STRING && Numbers.equalsIgnoreCase(b, offset, length, "false")))
                    {
                        RowBinary.writeInt8(out, 0);
                        return ConversionError.NONE;
                    }
                    return ConversionError.BAD_BOOL;
                }
                default :
                    return ConversionError.WRONG_KIND;
            }
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeInt8(out, 0);
        }
    }

    /** String: a JSON string's unescaped text, or the raw JSON text of any other value. */
    static final class StringEncoder extends ValueEncoder
    {
        StringEncoder(final ClickHouseType type, final EncoderOptions options)
        {
            super(type, options);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            if (value.kind() == JsonKind.STRING)
            {
                final int code = scratch.text(value);
                if (code == ConversionError.NONE)
                {
                    RowBinary.writeString(out, scratch.textBuffer, scratch.textOffset, scratch.textLength);
                }
                return code;
            }
            RowBinary.writeString(out, value.buffer(), value.offset(), value.length());
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeVarUInt(out, 0);
        }
    }

    /** FixedString(N): the text (as for String) zero-padded to N bytes; longer is TOO_LONG. */
    static final class FixedStringEncoder extends ValueEncoder
    {
        private final int length;

        FixedStringEncoder(final ClickHouseType type, final EncoderOptions options, final int length)
        {
            super(type, options);
            this.length = length;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            DirectBuffer b = value.buffer();
            int offset = value.offset();
            int n = value.length();
            if (value.kind() == JsonKind.STRING)
            {
                final int code = scratch.text(value);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                b = scratch.textBuffer;
                offset = scratch.textOffset;
                n = scratch.textLength;
            }
            if (n > length)
            {
                return ConversionError.TOO_LONG;
            }
            RowBinary.writeBytes(out, b, offset, n);
            RowBinary.writeZeros(out, length - n);
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeZeros(out, length);
        }
    }

    /**
     * Date (UInt16 days, 1970-01-01..2149-06-06, or ..2105-12-31 under {@link EncoderOptions.DateRange#CLICKHOUSE_18_16})
     * and Date32 (Int32 days, 1900-01-01..2299-12-31), from {@code "YYYY-MM-DD"} or a day number. A well-formed date
     * outside the range is {@link ConversionError#OUT_OF_RANGE}, a malformed one {@link ConversionError#BAD_DATE}.
     */
    static final class DateEncoder extends ValueEncoder
    {
        static final long MAX_DAYS_18_16 = DateTimes.daysFromCivil(2105, 12, 31);

        private final boolean date32;
        private final long minDays;
        private final long maxDays;

        DateEncoder(final ClickHouseType type, final EncoderOptions options, final boolean date32)
        {
            super(type, options);
            this.date32 = date32;
            this.minDays = date32 ? DateTimes.daysFromCivil(1900, 1, 1) : 0;
            this.maxDays = date32
                ? DateTimes.daysFromCivil(2299, 12, 31)
                : options.dateRange() == EncoderOptions.DateRange.CLICKHOUSE_18_16 ? MAX_DAYS_18_16 : 0xFFFF;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final long days;
            if (value.kind() == JsonKind.STRING)
            {
                final int code = scratch.text(value);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                days = scratch.textLength == 10
                    ? DateTimes.parseDate(scratch.textBuffer, scratch.textOffset, scratch.textLength)
                    : Long.MIN_VALUE;
                if (days == Long.MIN_VALUE)
                {
                    return ConversionError.BAD_DATE;
                }
                if (days < minDays || days > maxDays)
                {
                    return ConversionError.OUT_OF_RANGE;
                }
            }
            else if (value.kind() == JsonKind.NUMBER)
            {
                final int code = Numbers.parseSigned(value.buffer(), value.offset(), value.length(), minDays, maxDays,
                    scratch);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                days = scratch.resultLow;
            }
            else
            {
                return ConversionError.WRONG_KIND;
            }
            if (date32)
            {
                RowBinary.writeInt32(out, (int)days);
            }
            else
            {
                RowBinary.writeInt16(out, (int)days);
            }
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, date32 ? 4 : 2, 0);
        }
    }

    /**
     * DateTime (UInt32 seconds) and DateTime64(P) (Int64 ticks of 10^-P s) from ISO-8601 strings or epoch numbers.
     * An integer (JSON number or numeric string without fraction or exponent) is in {@link EncoderOptions#epochUnit()}
     * (default: seconds for DateTime, ticks for DateTime64); a number with a fraction or exponent is seconds. Finer
     * digits than the column keeps are truncated (toward negative infinity for epoch integers, toward zero for
     * fractions).
     *
     * <p>Ranges (ClickHouse's data type pages; strings and numbers alike, a well-formed value outside is
     * {@link ConversionError#OUT_OF_RANGE}): DateTime [1970-01-01 00:00:00, 2106-02-07 06:28:15] UTC, all of UInt32
     * (under {@link EncoderOptions.DateRange#CLICKHOUSE_18_16} up to 2105-12-31 23:59:59); DateTime64(P)
     * [1900-01-01 00:00:00, 2299-12-31 23:59:59.999999999] truncated to P digits, and for P = 9 at most Int64's
     * largest tick, 2262-04-11 23:47:16.854775807 (the lower end, 1900, fits Int64 at every precision).
     */
    static final class DateTimeEncoder extends ValueEncoder
    {
        private static final long MIN_SECONDS_64 = -2208988800L; // 1900-01-01T00:00:00Z
        private static final long MAX_SECONDS_64 = 10413791999L; // 2299-12-31T23:59:59Z
        private static final long MAX_SECONDS_32 = 0xFFFF_FFFFL;
        private static final long MAX_SECONDS_18_16 = DateEncoder.MAX_DAYS_18_16 * 86_400 + 86_399;

        private final boolean wide;
        private final int precision;
        private final long ticksPerSecond;
        private final long unitsPerSecond;
        private final long minTicks;
        private final long maxTicks;
        private final ZoneOffsets zone;

        DateTimeEncoder(final ClickHouseType type, final EncoderOptions options, final ClickHouseType base)
        {
            super(type, options);
            this.wide = base.kind() == ClickHouseType.Kind.DATETIME64;
            this.precision = wide ? base.precision() : 0;
            this.ticksPerSecond = pow10(precision);
            if (wide)
            {
                this.minTicks = MIN_SECONDS_64 * ticksPerSecond;
                // 2299-12-31 23:59:59 and the largest fraction of P digits, or Int64's largest tick for P = 9
                final long lastSecond = MAX_SECONDS_64;
                this.maxTicks = lastSecond > (Long.MAX_VALUE - (ticksPerSecond - 1)) / ticksPerSecond
                    ? Long.MAX_VALUE
                    : lastSecond * ticksPerSecond + ticksPerSecond - 1;
            }
            else
            {
                this.minTicks = 0;
                this.maxTicks = options.dateRange() == EncoderOptions.DateRange.CLICKHOUSE_18_16
                    ? MAX_SECONDS_18_16
                    : MAX_SECONDS_32;
            }
            switch (options.epochUnit())
            {
                case SECONDS :
                    unitsPerSecond = 1;
                    break;
                case MILLISECONDS :
                    unitsPerSecond = 1_000;
                    break;
                case MICROSECONDS :
                    unitsPerSecond = 1_000_000;
                    break;
                case NANOSECONDS :
                    unitsPerSecond = 1_000_000_000;
                    break;
                default :
                    unitsPerSecond = ticksPerSecond;
                    break;
            }
            this.zone = base.timeZone() == null ? ZoneOffsets.UTC : new ZoneOffsets(ZoneId.of(base.timeZone()));
        }

        private static long pow10(final int exponent)
        {
            long value = 1;
            for (int i = 0; i < exponent; i++)
            {
                value *= 10;
            }
            return value;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind != JsonKind.STRING && kind != JsonKind.NUMBER)
            {
                return ConversionError.WRONG_KIND;
            }
            final int code = scratch.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final DirectBuffer b = scratch.textBuffer;
            final int offset = scratch.textOffset;
            final int length = scratch.textLength;
            if (kind == JsonKind.STRING && length >= 10 && b.getByte(offset + 4) == '-')
            {
                if (DateTimes.parseDateTime(b, offset, length, zone, scratch) != ConversionError.NONE)
                {
                    return ConversionError.BAD_DATETIME;
                }
                final long seconds = scratch.resultHigh;
                final long fraction = scratch.resultLow / pow10(9 - precision);
                // seconds lie within years 0000..9999 here, so only the multiplication can leave Int64, and only
                // for large precisions: compare before multiplying
                if (seconds < Math.floorDiv(minTicks, ticksPerSecond) ||
                    seconds > Math.floorDiv(maxTicks, ticksPerSecond))
                {
                    return ConversionError.OUT_OF_RANGE;
                }
                final long ticks = seconds * ticksPerSecond + fraction;
                if (ticks < minTicks || ticks > maxTicks || (ticks < 0 && seconds >= 0))
                {
                    return ConversionError.OUT_OF_RANGE;
                }
                return write(out, ticks);
            }
            final int epoch = encodeEpoch(b, offset, length, out, scratch);
            // a string that is neither a date-time nor a number ("yesterday") is a bad date-time, not a bad number
            return epoch == ConversionError.NOT_A_NUMBER && kind == JsonKind.STRING
                ? ConversionError.BAD_DATETIME
                : epoch;
        }

        private int encodeEpoch(final DirectBuffer b, final int offset, final int length, final Bytes<?> out,
            final EncodeScratch scratch)
        {
            int code = Numbers.split(b, offset, length, scratch);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final long ticks;
            if (scratch.fracEnd == scratch.fracStart && scratch.exponent == 0)
            {
                code = Numbers.parseSigned(b, offset, length, Long.MIN_VALUE, Long.MAX_VALUE, scratch);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                final long units = scratch.resultLow;
                if (unitsPerSecond == ticksPerSecond)
                {
                    ticks = units;
                }
                else if (unitsPerSecond > ticksPerSecond)
                {
                    ticks = Math.floorDiv(units, unitsPerSecond / ticksPerSecond);
                }
                else
                {
                    final long factor = ticksPerSecond / unitsPerSecond;
                    if (units > Long.MAX_VALUE / factor || units < Long.MIN_VALUE / factor)
                    {
                        return ConversionError.OUT_OF_RANGE;
                    }
                    ticks = units * factor;
                }
            }
            else
            {
                // seconds with a fraction: exact decimal scaled to the column's precision, truncated toward zero
                code = Numbers.parseDecimal(b, offset, length, 19, precision, scratch);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                if (scratch.resultHigh != (scratch.resultLow >> 63))
                {
                    return ConversionError.OUT_OF_RANGE;
                }
                ticks = scratch.resultLow;
            }
            if (ticks < minTicks || ticks > maxTicks)
            {
                return ConversionError.OUT_OF_RANGE;
            }
            return write(out, ticks);
        }

        private int write(final Bytes<?> out, final long ticks)
        {
            if (wide)
            {
                RowBinary.writeInt64(out, ticks);
            }
            else
            {
                RowBinary.writeInt32(out, (int)ticks);
            }
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, wide ? 8 : 4, 0);
        }
    }

    /** UUID from the canonical 36-character 8-4-4-4-12 hex text (either case). */
    static final class UuidEncoder extends ValueEncoder
    {
        UuidEncoder(final ClickHouseType type, final EncoderOptions options)
        {
            super(type, options);
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            if (value.kind() != JsonKind.STRING)
            {
                return ConversionError.WRONG_KIND;
            }
            final int code = scratch.text(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            final int parsed = SharedParsers.parseUuid(scratch.textBuffer, scratch.textOffset, scratch.textLength,
                scratch);
            if (parsed != ConversionError.NONE)
            {
                return parsed;
            }
            RowBinary.writeUuid(out, scratch.resultHigh, scratch.resultLow);
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeUuid(out, 0, 0);
        }
    }

    /** Decimal(P, S) from JSON numbers or numeric strings, exactly, digits beyond S truncated toward zero. */
    static final class DecimalEncoder extends ValueEncoder
    {
        private final int precision;
        private final int scale;
        private final int bytes;

        DecimalEncoder(final ClickHouseType type, final EncoderOptions options, final int precision, final int scale,
            final int bytes)
        {
            super(type, options);
            this.precision = precision;
            this.scale = scale;
            this.bytes = bytes;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            int code = scratch.numberText(value);
            if (code != ConversionError.NONE)
            {
                return code;
            }
            code = Numbers.parseDecimal(scratch.textBuffer, scratch.textOffset, scratch.textLength, precision, scale,
                scratch);
            if (code == ConversionError.NOT_A_NUMBER)
            {
                return ConversionError.BAD_DECIMAL;
            }
            if (code != ConversionError.NONE)
            {
                return code;
            }
            if (bytes == 16)
            {
                RowBinary.writeInt128(out, scratch.resultHigh, scratch.resultLow);
            }
            else
            {
                writeFixed(out, bytes, scratch.resultLow);
            }
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeZeros(out, bytes);
        }
    }

    /** Enum8/Enum16 from an element name (exact UTF-8 match) or an element number. */
    static final class EnumEncoder extends ValueEncoder
    {
        private final byte[][] names;
        private final int[] values;
        private final int bytes;
        private final int defaultValue;

        EnumEncoder(final ClickHouseType type, final EncoderOptions options, final ClickHouseType base)
        {
            super(type, options);
            final List<String> enumNames = base.enumNames();
            names = new byte[enumNames.size()][];
            values = new int[enumNames.size()];
            int smallest = Integer.MAX_VALUE;
            for (int i = 0; i < names.length; i++)
            {
                names[i] = enumNames.get(i).getBytes(StandardCharsets.UTF_8);
                values[i] = base.enumValue(i);
                smallest = Math.min(smallest, values[i]);
            }
            bytes = base.kind() == ClickHouseType.Kind.ENUM8 ? 1 : 2;
            defaultValue = smallest;
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            if (value.kind() == JsonKind.STRING)
            {
                final int code = scratch.text(value);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                for (int i = 0; i < names.length; i++)
                {
                    if (names[i].length == scratch.textLength && sameBytes(scratch.textBuffer, scratch.textOffset,
                        names[i]))
                    {
                        writeFixed(out, bytes, values[i]);
                        return ConversionError.NONE;
                    }
                }
                return ConversionError.BAD_ENUM;
            }
            if (value.kind() == JsonKind.NUMBER)
            {
                final int code = Numbers.parseSigned(value.buffer(), value.offset(), value.length(), Short.MIN_VALUE,
                    Short.MAX_VALUE, scratch);
                if (code != ConversionError.NONE)
                {
                    return ConversionError.BAD_ENUM;
                }
                for (final int candidate : values)
                {
                    if (candidate == scratch.resultLow)
                    {
                        writeFixed(out, bytes, candidate);
                        return ConversionError.NONE;
                    }
                }
                return ConversionError.BAD_ENUM;
            }
            return ConversionError.WRONG_KIND;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            writeFixed(out, bytes, defaultValue);
        }
    }

    static boolean sameBytes(final DirectBuffer b, final int offset, final byte[] expected)
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

    /** Nullable(T): byte 1 for null or missing, else byte 0 and T. */
    static final class NullableEncoder extends ColumnEncoder
    {
        private final ColumnEncoder inner;

        NullableEncoder(final ClickHouseType type, final ColumnEncoder inner)
        {
            super(type);
            this.inner = inner;
        }

        @Override
        public int encode(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.NULL || kind == JsonKind.MISSING)
            {
                RowBinary.writeInt8(out, 1);
                return ConversionError.NONE;
            }
            RowBinary.writeInt8(out, 0);
            return inner.encode(value, out, scratch);
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeInt8(out, 1);
        }
    }

    /** Counts the elements of a container, or returns a negative code for malformed JSON. */
    static int count(final JsonCursor cursor, final JsonValueView container, final JsonValueView element)
    {
        cursor.wrap(container);
        int n = 0;
        while (cursor.next(element))
        {
            n++;
        }
        return cursor.errorCode() == JsonError.NONE ? n : ConversionError.BAD_JSON;
    }

    /** Array(T) from a JSON array; null and missing are the empty array. */
    static final class ArrayEncoder extends ColumnEncoder
    {
        private final ColumnEncoder element;
        private final int level;

        ArrayEncoder(final ClickHouseType type, final ColumnEncoder element, final int level)
        {
            super(type);
            this.element = element;
            this.level = level;
        }

        @Override
        public int encode(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = value.kind();
            if (kind == JsonKind.NULL || kind == JsonKind.MISSING)
            {
                RowBinary.writeVarUInt(out, 0);
                return ConversionError.NONE;
            }
            if (kind != JsonKind.ARRAY)
            {
                return ConversionError.WRONG_KIND;
            }
            final JsonCursor cursor = scratch.cursor(level);
            final JsonValueView item = scratch.element(level);
            final int n = count(cursor, value, item);
            if (n < 0)
            {
                return n;
            }
            RowBinary.writeVarUInt(out, n);
            cursor.wrap(value);
            while (cursor.next(item))
            {
                final int code = element.encode(item, out, scratch);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
            }
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeVarUInt(out, 0);
        }
    }

    /** Map(K, V) from a JSON object; keys are converted to K from their string text; null and missing are empty. */
    static final class MapEncoder extends ColumnEncoder
    {
        private final ColumnEncoder key;
        private final ColumnEncoder value;
        private final int level;

        MapEncoder(final ClickHouseType type, final ColumnEncoder key, final ColumnEncoder value, final int level)
        {
            super(type);
            this.key = key;
            this.value = value;
            this.level = level;
        }

        @Override
        public int encode(final JsonValueView map, final Bytes<?> out, final EncodeScratch scratch)
        {
            final int kind = map.kind();
            if (kind == JsonKind.NULL || kind == JsonKind.MISSING)
            {
                RowBinary.writeVarUInt(out, 0);
                return ConversionError.NONE;
            }
            if (kind != JsonKind.OBJECT)
            {
                return ConversionError.WRONG_KIND;
            }
            final JsonCursor cursor = scratch.cursor(level);
            final JsonValueView item = scratch.element(level);
            final JsonValueView name = scratch.key(level);
            final int n = count(cursor, map, item);
            if (n < 0)
            {
                return n;
            }
            RowBinary.writeVarUInt(out, n);
            cursor.wrap(map);
            while (cursor.next(item))
            {
                cursor.key(name);
                int code = key.encode(name, out, scratch);
                if (code == ConversionError.NONE)
                {
                    code = value.encode(item, out, scratch);
                }
                if (code != ConversionError.NONE)
                {
                    return code;
                }
            }
            return ConversionError.NONE;
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            RowBinary.writeVarUInt(out, 0);
        }
    }

    /** Tuple from a JSON array (by position, same arity) or, for named Tuples, from a JSON object (by name). */
    static final class TupleEncoder extends ValueEncoder
    {
        private final ColumnEncoder[] elements;
        private final byte[][] names;
        private final int level;

        TupleEncoder(final ClickHouseType type, final EncoderOptions options, final ColumnEncoder[] elements,
            final List<String> names, final int level)
        {
            super(type, options);
            this.elements = elements;
            this.level = level;
            if (names == null)
            {
                this.names = null;
            }
            else
            {
                this.names = new byte[names.size()][];
                for (int i = 0; i < this.names.length; i++)
                {
                    this.names[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
                }
            }
        }

        @Override
        int encodeValue(final JsonValueView value, final Bytes<?> out, final EncodeScratch scratch)
        {
            final JsonCursor cursor = scratch.cursor(level);
            final JsonValueView item = scratch.element(level);
            if (value.kind() == JsonKind.ARRAY)
            {
                final int n = count(cursor, value, item);
                if (n < 0)
                {
                    return n;
                }
                if (n != elements.length)
                {
                    return ConversionError.TUPLE_ARITY;
                }
                cursor.wrap(value);
                int i = 0;
                while (cursor.next(item))
                {
                    final int code = elements[i++].encode(item, out, scratch);
                    if (code != ConversionError.NONE)
                    {
                        return code;
                    }
                }
                return ConversionError.NONE;
            }
            if (value.kind() == JsonKind.OBJECT)
            {
                if (names == null)
                {
                    return ConversionError.TUPLE_ARITY;
                }
                final JsonValueView name = scratch.key(level);
                for (int i = 0; i < elements.length; i++)
                {
                    final int code = encodeByName(value, i, cursor, item, name, out, scratch);
                    if (code != ConversionError.NONE)
                    {
                        return code;
                    }
                }
                return ConversionError.NONE;
            }
            return ConversionError.WRONG_KIND;
        }

        private int encodeByName(final JsonValueView object, final int index, final JsonCursor cursor,
            final JsonValueView item, final JsonValueView name, final Bytes<?> out, final EncodeScratch scratch)
        {
            cursor.wrap(object);
            while (cursor.next(item))
            {
                cursor.key(name);
                final int code = scratch.text(name);
                if (code != ConversionError.NONE)
                {
                    return code;
                }
                if (scratch.textLength == names[index].length &&
                    sameBytes(scratch.textBuffer, scratch.textOffset, names[index]))
                {
                    return elements[index].encode(item, out, scratch);
                }
            }
            if (cursor.errorCode() != JsonError.NONE)
            {
                return ConversionError.BAD_JSON;
            }
            item.setMissing();
            return elements[index].encode(item, out, scratch);
        }

        @Override
        public void encodeDefault(final Bytes<?> out)
        {
            for (final ColumnEncoder element : elements)
            {
                element.encodeDefault(out);
            }
        }
    }
}
