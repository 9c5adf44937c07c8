package io.sluice.sinks.clickhouse;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.core.gather.RowText;

/**
 * Reads RowBinary values back and prints them as ClickHouse prints them in {@code TabSeparated} output, for
 * {@code engine.jar explain} ({@link ClickHouseProvider#rowText}): what the engine's encoders wrote is shown, not a second computation of it. Layouts
 * (little-endian, LEB128 lengths, Nullable's flag byte, UUID as two little-endian halves, Int128/UInt128 and
 * Int256/UInt256 as 16 and 32 bytes, two's complement when signed) are ClickHouse's RowBinary format (docs: "Formats:
 * RowBinary"); printing follows its TSV output: integers of every width in plain decimal, strings escaped
 * ({@code \t \n \\ \'} and the other control escapes), {@code \N} for NULL, arrays {@code [..]}, tuples {@code (..)},
 * maps {@code {..}} with strings, dates and UUIDs quoted inside them, {@code DateTime} in its column's time zone or
 * the server's, Decimal without trailing zeros (current releases' default; 18.16 pads to the scale), Float with the
 * shortest round-trip digits ({@code 1}, {@code 0.1}, {@code 1e21}, {@code inf}, {@code nan}). Not thread-safe: one
 * reader per row.
 */
final class RowBinaryText implements RowText
{
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final ByteBuffer in;
    private final ZoneId serverZone;

    /**
     * @param row        the row's bytes
     * @param serverZone the zone DateTime columns without their own are printed in
     */
    RowBinaryText(final byte[] row, final ZoneId serverZone)
    {
        this.in = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
        this.serverZone = serverZone;
    }

    /** @return bytes not read yet */
    @Override
    public int remaining()
    {
        return in.remaining();
    }

    /**
     * Reads the next value.
     *
     * @param type its column type, as DESCRIBE TABLE prints it
     * @return the value as TSV prints it
     * @throws IllegalArgumentException when the bytes end early, or the type is not one Sluice writes
     */
    @Override
    public String next(final String type)
    {
        return next(ClickHouseType.parse(type));
    }

    /**
     * Reads the next value.
     *
     * @param type its column type
     * @return the value as TSV prints it
     * @throws IllegalArgumentException when the bytes end early
     */
    String next(final ClickHouseType type)
    {
        final StringBuilder sb = new StringBuilder();
        try
        {
            value(type, sb, false);
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new IllegalArgumentException("the row ends inside a " + type + " value", e);
        }
        return sb.toString();
    }

    private void value(final ClickHouseType t, final StringBuilder sb, final boolean nested)
    {
        switch (t.kind())
        {
            case INT8 -> sb.append(in.get());
            case INT16 -> sb.append(in.getShort());
            case INT32 -> sb.append(in.getInt());
            case INT64 -> sb.append(in.getLong());
            case UINT8 -> sb.append(in.get() & 0xFF);
            case UINT16 -> sb.append(in.getShort() & 0xFFFF);
            case UINT32 -> sb.append(in.getInt() & 0xFFFF_FFFFL);
            case UINT64 -> sb.append(Long.toUnsignedString(in.getLong()));
            case INT128 -> sb.append(wide(16, true));
            case UINT128 -> sb.append(wide(16, false));
            case INT256 -> sb.append(wide(32, true));
            case UINT256 -> sb.append(wide(32, false));
            case FLOAT32 -> sb.append(floatText(in.getFloat()));
            case FLOAT64 -> sb.append(floatText(in.getDouble()));
            case BOOL -> sb.append(in.get() != 0 ? "true" : "false");
            case STRING -> quoted(sb, nested, bytes((int)varint()));
            case FIXED_STRING -> quoted(sb, nested, bytes(t.fixedLength()));
            case DATE -> quotedPlain(sb, nested, LocalDate.ofEpochDay(in.getShort() & 0xFFFF).toString());
            case DATE32 -> quotedPlain(sb, nested, LocalDate.ofEpochDay(in.getInt()).toString());
            case DATETIME -> quotedPlain(sb, nested, DATE_TIME.format(Instant.ofEpochSecond(in.getInt() & 0xFFFF_FFFFL)
                .atZone(zone(t))));
            case DATETIME64 -> quotedPlain(sb, nested, dateTime64(in.getLong(), t));
            case UUID -> quotedPlain(sb, nested, uuid(in.getLong(), in.getLong()));
            case DECIMAL -> sb.append(decimal(t));
            case ENUM8, ENUM16 -> enumValue(t, t.kind() == ClickHouseType.Kind.ENUM8 ? in.get() : in.getShort(), sb,
                nested);
            case NULLABLE -> {
                if (in.get() != 0)
                {
                    sb.append(nested ? "NULL" : "\\N");
                }
                else
                {
                    value(t.nested(0), sb, nested);
                }
            }
            case LOW_CARDINALITY -> value(t.nested(0), sb, nested);
            case ARRAY -> {
                final long n = varint();
                sb.append('[');
                for (long i = 0; i < n; i++)
                {
                    sb.append(i > 0 ? "," : "");
                    value(t.nested(0), sb, true);
                }
                sb.append(']');
            }
            case MAP -> {
                final long n = varint();
                sb.append('{');
                for (long i = 0; i < n; i++)
                {
                    sb.append(i > 0 ? "," : "");
                    value(t.nested(0), sb, true);
                    sb.append(':');
                    value(t.nested(1), sb, true);
                }
                sb.append('}');
            }
            case TUPLE -> {
                sb.append('(');
                for (int i = 0; i < t.nestedTypes().size(); i++)
                {
                    sb.append(i > 0 ? "," : "");
                    value(t.nested(i), sb, true);
                }
                sb.append(')');
            }
            default -> throw new IllegalArgumentException("cannot print " + t);
        }
    }

    private ZoneId zone(final ClickHouseType t)
    {
        return t.timeZone() == null || t.timeZone().isEmpty() ? serverZone : ZoneId.of(t.timeZone());
    }

    private String dateTime64(final long ticks, final ClickHouseType t)
    {
        final int p = t.precision();
        final long scale = BigInteger.TEN.pow(p).longValueExact();
        final long seconds = Math.floorDiv(ticks, scale);
        final long fraction = Math.floorMod(ticks, scale);
        final String base = DATE_TIME.format(Instant.ofEpochSecond(seconds).atZone(zone(t)));
        if (p == 0)
        {
            return base;
        }
        final String f = Long.toString(fraction);
        return base + "." + "0".repeat(p - f.length()) + f;
    }

    private String decimal(final ClickHouseType t)
    {
        final int n = t.decimalBytes();
        final byte[] le = bytes(n);
        final byte[] be = new byte[n];
        for (int i = 0; i < n; i++)
        {
            be[i] = le[n - 1 - i];
        }
        final BigDecimal d = new BigDecimal(new BigInteger(be), t.scale());
        final BigDecimal stripped = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0).toPlainString() : stripped.toPlainString();
    }

    /** A 16- or 32-byte little-endian integer (two's complement when signed) in plain decimal, as TSV prints it. */
    private String wide(final int n, final boolean signed)
    {
        final byte[] le = bytes(n);
        final byte[] be = new byte[n];
        for (int i = 0; i < n; i++)
        {
            be[i] = le[n - 1 - i];
        }
        return (signed ? new BigInteger(be) : new BigInteger(1, be)).toString();
    }

    private void enumValue(final ClickHouseType t, final int v, final StringBuilder sb, final boolean nested)
    {
        for (int i = 0; i < t.enumNames().size(); i++)
        {
            if (t.enumValue(i) == v)
            {
                quoted(sb, nested, t.enumNames().get(i).getBytes(StandardCharsets.UTF_8));
                return;
            }
        }
        throw new IllegalArgumentException("value " + v + " is not in " + t);
    }

    private static String uuid(final long high, final long low)
    {
        return new java.util.UUID(high, low).toString();
    }

    private byte[] bytes(final int n)
    {
        final byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    private long varint()
    {
        long v = 0;
        int shift = 0;
        while (true)
        {
            final int b = in.get() & 0xFF;
            v |= (long)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return v;
            }
            shift += 7;
        }
    }

    private static void quotedPlain(final StringBuilder sb, final boolean nested, final String text)
    {
        if (nested)
        {
            sb.append('\'').append(text).append('\'');
        }
        else
        {
            sb.append(text);
        }
    }

    private static void quoted(final StringBuilder sb, final boolean nested, final byte[] utf8)
    {
        if (nested)
        {
            sb.append('\'');
        }
        escape(sb, new String(utf8, StandardCharsets.UTF_8));
        if (nested)
        {
            sb.append('\'');
        }
    }

    /** ClickHouse's {@code writeEscapedString}: the escapes its TSV output uses. */
    static void escape(final StringBuilder sb, final String s)
    {
        for (int i = 0; i < s.length(); i++)
        {
            final char ch = s.charAt(i);
            switch (ch)
            {
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\0' -> sb.append("\\0");
                case '\\' -> sb.append("\\\\");
                case '\'' -> sb.append("\\'");
                default -> sb.append(ch);
            }
        }
    }

    /** Shortest round-trip digits, as ClickHouse prints floats: plain from 1e-6 to below 1e21, else exponent. */
    static String floatText(final double v)
    {
        if (Double.isNaN(v))
        {
            return "nan";
        }
        if (Double.isInfinite(v))
        {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0)
        {
            return 1 / v < 0 ? "-0" : "0";
        }
        final BigDecimal d = new BigDecimal(Double.toString(v)).stripTrailingZeros();
        final double abs = Math.abs(v);
        if (abs >= 1e21 || abs < 1e-6)
        {
            final String digits = d.unscaledValue().abs().toString();
            final int exponent = digits.length() - 1 - d.scale();
            final String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return (v < 0 ? "-" : "") + mantissa + "e" + exponent;
        }
        return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
    }

    static String floatText(final float v)
    {
        return Float.isNaN(v) || Float.isInfinite(v) || v == 0
            ? floatText((double)v)
            : floatText(new BigDecimal(Float.toString(v)).doubleValue());
    }
}
