package io.sluice.sinks.postgres;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.sluice.codecs.pgcopy.PgType;
import io.sluice.core.gather.RowText;

/**
 * Reads back one tuple of PostgreSQL's binary COPY format as {@link PgJsonRowEncoder} (or an embedded encoder through
 * {@link PgFields}) wrote it, and prints each value as PostgreSQL 15's output functions print it in a session whose
 * {@code TimeZone} is UTC (what psql shows; a cast to text differs for {@code boolean}, {@code true}, and trims
 * {@code char(n)}): what {@code engine.jar explain} shows for a
 * postgres sink ({@link PostgresProvider#rowText}). The layouts are those of the types' send functions (PostgreSQL
 * documentation, "COPY", "Binary Format"; {@code boolsend} ... {@code array_send}), big-endian; the text is that of
 * their output functions:
 * <ul>
 *   <li>{@code boolean} {@code t} / {@code f}; integers in decimal; {@code numeric} exactly, with its dscale's
 *       fraction digits ({@code 1.50}), {@code NaN}, {@code Infinity}, {@code -Infinity};</li>
 *   <li>{@code real} and {@code double precision} with the shortest digits that read back to the same value
 *       ({@code extra_float_digits = 1}, the default since PostgreSQL 12), in exponent form {@code 1e+15} when the
 *       decimal exponent is below -4 or at least 15 (6 for real), and {@code Infinity}, {@code -Infinity},
 *       {@code NaN};</li>
 *   <li>{@code text}, {@code varchar}, enums as their text; {@code char(n)} padded with spaces to n characters, as
 *       the server's {@code bpchar} input stores it;</li>
 *   <li>{@code json} as its text; {@code jsonb} as {@code jsonb_out} prints it: keys sorted by length then bytes, the
 *       last of duplicate keys kept, {@code ": "} and {@code ", "} between members, numbers as {@code numeric}
 *       prints them ({@code 1e2} is {@code 100}), strings re-escaped ({@code \"}, {@code \\}, {@code \b \f \n \r
 *       \t}, other control characters {@code &#92;u001f});</li>
 *   <li>{@code uuid} in lower-case 8-4-4-4-12; {@code date} {@code 2024-03-10} ({@code 0044-03-15 BC} before year
 *       1); {@code timestamp} {@code 2024-03-10 10:00:00.5} and {@code timestamptz} {@code 2024-03-10 10:00:00.5+00}
 *       (the session zone is UTC: see docs/postgres.md), fraction digits without trailing zeros,
 *       {@code infinity};</li>
 *   <li>arrays as {@code {1,2,NULL}}, an element quoted ({@code "a b"}, with {@code \"} and {@code \\}) when it is
 *       empty, is {@code NULL} in any case, or holds a space, a comma, a brace, a quote or a backslash; an empty array
 *       {@code {}}; a lower bound other than 1 as {@code [2:3]={..}}.</li>
 * </ul>
 * SQL NULL at the top level is {@code \N}, as the ClickHouse reader shows it (and as COPY's text format writes it).
 * Not thread-safe: one reader per row, on the command thread of {@code explain}.
 */
final class PgCopyText implements RowText
{
    /** Microseconds and days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
    private static final LocalDateTime PG_EPOCH = LocalDateTime.of(2000, 1, 1, 0, 0);
    private static final JsonFactory JSON = new JsonFactory();

    private final ByteBuffer in;
    private int fields;
    private boolean counted;

    /**
     * @param row one tuple: its int16 field count, then each field's int32 length and bytes
     */
    PgCopyText(final byte[] row)
    {
        this.in = ByteBuffer.wrap(row).order(ByteOrder.BIG_ENDIAN);
    }

    @Override
    public int remaining()
    {
        return in.remaining();
    }

    /**
     * Reads the next field.
     *
     * @param type its column type as {@code format_type} prints it or by its internal name ({@link PgType#parse}), or
     *             {@code text} for an enum
     * @return the value as the server prints it, {@code \N} for NULL
     * @throws IllegalArgumentException when the row holds no more fields or ends inside the value, or the type is not
     *                                  one the encoders write
     */
    @Override
    public String next(final String type)
    {
        final PgType t = PgType.parse(type);
        try
        {
            if (!counted)
            {
                counted = true;
                fields = in.getShort();
            }
            if (fields-- <= 0)
            {
                throw new IllegalArgumentException("the tuple has no more fields (its count is read out) for a " + type
                    + " value");
            }
            final int length = in.getInt();
            if (length < 0)
            {
                return "\\N";
            }
            final ByteBuffer value = slice(length);
            final StringBuilder sb = new StringBuilder();
            if (t.isArray())
            {
                array(t.element(), value, sb);
            }
            else
            {
                sb.append(scalar(t, value));
            }
            if (value.hasRemaining())
            {
                throw new IllegalArgumentException(value.remaining() + " bytes left inside a " + type + " value");
            }
            return sb.toString();
        }
        catch (final BufferUnderflowException e)
        {
            throw new IllegalArgumentException("the row ends inside a " + type + " value", e);
        }
    }

    private ByteBuffer slice(final int length)
    {
        return slice(in, length);
    }

    private static ByteBuffer slice(final ByteBuffer from, final int length)
    {
        if (length > from.remaining())
        {
            throw new BufferUnderflowException();
        }
        final ByteBuffer v = from.slice(from.position(), length).order(ByteOrder.BIG_ENDIAN);
        from.position(from.position() + length);
        return v;
    }

    /** {@code array_out} of a one-dimensional array. */
    private static void array(final PgType element, final ByteBuffer v, final StringBuilder sb)
    {
        final int dims = v.getInt();
        v.getInt(); // has-null flag
        v.getInt(); // element OID
        if (dims == 0)
        {
            sb.append("{}");
            return;
        }
        if (dims != 1)
        {
            throw new IllegalArgumentException("a " + dims + "-dimensional array: Sluice writes one dimension");
        }
        final int n = v.getInt();
        final int lower = v.getInt();
        if (lower != 1)
        {
            sb.append('[').append(lower).append(':').append(lower + n - 1).append("]=");
        }
        sb.append('{');
        for (int i = 0; i < n; i++)
        {
            if (i > 0)
            {
                sb.append(',');
            }
            final int length = v.getInt();
            if (length < 0)
            {
                sb.append("NULL");
                continue;
            }
            arrayElement(scalar(element, slice(v, length)), sb);
        }
        sb.append('}');
    }

    /** An element as {@code array_out} writes it: quoted when its text would not read back as itself. */
    private static void arrayElement(final String text, final StringBuilder sb)
    {
        boolean quote = text.isEmpty() || text.equalsIgnoreCase("NULL");
        for (int i = 0; i < text.length() && !quote; i++)
        {
            final char c = text.charAt(i);
            quote = c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || c == ' ' || c == '\t' || c == '\n'
                || c == '\r' || c == 0x0B || c == '\f';
        }
        if (!quote)
        {
            sb.append(text);
            return;
        }
        sb.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }

    private static String scalar(final PgType t, final ByteBuffer v)
    {
        return switch (t.kind())
        {
            case BOOL -> v.get() != 0 ? "t" : "f";
            case INT2 -> Short.toString(v.getShort());
            case INT4 -> Integer.toString(v.getInt());
            case INT8 -> Long.toString(v.getLong());
            case FLOAT4 -> floatText(v.getFloat(), true);
            case FLOAT8 -> floatText(v.getDouble(), false);
            case NUMERIC -> numeric(v);
            case TEXT, VARCHAR, ENUM -> utf8(v);
            case BPCHAR -> padded(utf8(v), t.length());
            case JSON -> utf8(v);
            case JSONB -> jsonb(v);
            case UUID -> uuid(v.getLong(), v.getLong());
            case DATE -> date(v.getInt());
            case TIMESTAMP -> timestamp(t.roundMicros(v.getLong()), "");
            case TIMESTAMPTZ -> timestamp(t.roundMicros(v.getLong()), "+00");
        };
    }

    private static String utf8(final ByteBuffer v)
    {
        try
        {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(v).toString();
        }
        catch (final CharacterCodingException e)
        {
            throw new IllegalArgumentException("a text value that is not UTF-8", e);
        }
    }

    private static String padded(final String s, final int length)
    {
        final int chars = s.codePointCount(0, s.length());
        return length == PgType.NONE || chars >= length ? s : s + " ".repeat(length - chars);
    }

    /** {@code numeric_out}: the digits with exactly dscale fraction digits. */
    private static String numeric(final ByteBuffer v)
    {
        final int ndigits = v.getShort();
        final int weight = v.getShort();
        final int sign = v.getShort() & 0xFFFF;
        final int dscale = v.getShort();
        switch (sign)
        {
            case 0xC000 :
                return "NaN";
            case 0xD000 :
                return "Infinity";
            case 0xF000 :
                return "-Infinity";
            case 0x0000 :
            case 0x4000 :
                break;
            default :
                throw new IllegalArgumentException("numeric sign 0x" + Integer.toHexString(sign) + " is none of "
                    + "PostgreSQL's");
        }
        BigInteger unscaled = BigInteger.ZERO;
        for (int i = 0; i < ndigits; i++)
        {
            unscaled = unscaled.multiply(BigInteger.valueOf(10_000)).add(BigInteger.valueOf(v.getShort()));
        }
        // the last digit read has the weight (weight - ndigits + 1): a scale of 4 per group below it
        BigDecimal d = new BigDecimal(unscaled, 4 * (ndigits - 1 - weight));
        if (sign == 0x4000)
        {
            d = d.negate();
        }
        return d.setScale(dscale, RoundingMode.DOWN).toPlainString();
    }

    /**
     * {@code float4out} / {@code float8out} with {@code extra_float_digits = 1}: the shortest decimal that reads back
     * as the same value (PostgreSQL uses the Ryu algorithm), fixed notation for decimal exponents -4 to 14 (-4 to 5
     * for real), else {@code d.ddde+XX}.
     */
    static String floatText(final double value, final boolean single)
    {
        if (Double.isNaN(value))
        {
            return "NaN";
        }
        if (Double.isInfinite(value))
        {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        if (value == 0)
        {
            return 1 / value < 0 ? "-0" : "0";
        }
        final BigDecimal exact = new BigDecimal(value);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++)
        {
            final BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (single ? r.floatValue() == (float)value : r.doubleValue() == value)
            {
                shortest = r;
                break;
            }
        }
        final BigDecimal s = shortest.stripTrailingZeros();
        final String digits = s.unscaledValue().abs().toString();
        final int exponent = digits.length() - 1 - s.scale();
        final String sign = s.signum() < 0 ? "-" : "";
        if (exponent < -4 || exponent >= (single ? 6 : 15))
        {
            final String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            final int e = Math.abs(exponent);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
        }
        return sign + s.abs().toPlainString();
    }

    private static String uuid(final long high, final long low)
    {
        return new java.util.UUID(high, low).toString();
    }

    /** {@code date_out} in the ISO style: zero-padded 4-digit year, {@code BC} for years before 1. */
    static String date(final int days)
    {
        if (days == Integer.MAX_VALUE)
        {
            return "infinity";
        }
        if (days == Integer.MIN_VALUE)
        {
            return "-infinity";
        }
        final LocalDate d = PG_EPOCH.toLocalDate().plusDays(days);
        return year(d.getYear()) + String.format(Locale.ROOT, "-%02d-%02d", d.getMonthValue(), d.getDayOfMonth())
            + (d.getYear() <= 0 ? " BC" : "");
    }

    /** {@code timestamp_out} / {@code timestamptz_out} in the ISO style, the zone suffix given (UTC: {@code +00}). */
    static String timestamp(final long micros, final String zone)
    {
        if (micros == Long.MAX_VALUE)
        {
            return "infinity";
        }
        if (micros == Long.MIN_VALUE)
        {
            return "-infinity";
        }
        final LocalDateTime t = PG_EPOCH.plus(micros, ChronoUnit.MICROS);
        final StringBuilder sb = new StringBuilder(year(t.getYear()));
        sb.append(String.format(Locale.ROOT, "-%02d-%02d %02d:%02d:%02d", t.getMonthValue(), t.getDayOfMonth(),
            t.getHour(), t.getMinute(), t.getSecond()));
        final int fraction = t.getNano() / 1000;
        if (fraction != 0)
        {
            String f = String.format(Locale.ROOT, "%06d", fraction);
            while (f.endsWith("0"))
            {
                f = f.substring(0, f.length() - 1);
            }
            sb.append('.').append(f);
        }
        sb.append(zone);
        if (t.getYear() <= 0)
        {
            sb.append(" BC");
        }
        return sb.toString();
    }

    /** A proleptic ISO year as PostgreSQL writes it: 4 digits at least, year 0 is 1 BC. */
    private static String year(final int isoYear)
    {
        final int y = isoYear <= 0 ? 1 - isoYear : isoYear;
        return String.format(Locale.ROOT, "%04d", y);
    }

    /** {@code jsonb_out}: the version byte 1, then the document, printed in jsonb's normal form. */
    private static String jsonb(final ByteBuffer v)
    {
        final int version = v.get();
        if (version != 1)
        {
            throw new IllegalArgumentException("jsonb version " + version + ": PostgreSQL's binary jsonb is version 1");
        }
        final String text = utf8(v);
        try (JsonParser p = JSON.createParser(text))
        {
            final StringBuilder sb = new StringBuilder();
            p.nextToken();
            jsonValue(p, sb);
            if (p.nextToken() != null)
            {
                throw new IllegalArgumentException("jsonb text with more than one value: " + text);
            }
            return sb.toString();
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException("jsonb text that is no JSON: " + e.getMessage(), e);
        }
    }

    private static void jsonValue(final JsonParser p, final StringBuilder sb) throws IOException
    {
        final JsonToken t = p.currentToken();
        switch (t)
        {
            case START_OBJECT -> {
                // jsonb orders keys by their length in bytes, then bytewise; the last of equal keys wins
                final Map<byte[], String> members = new TreeMap<>(PgCopyText::compareKeys);
                while (p.nextToken() == JsonToken.FIELD_NAME)
                {
                    final String key = p.currentName();
                    p.nextToken();
                    final StringBuilder value = new StringBuilder();
                    jsonValue(p, value);
                    members.put(key.getBytes(StandardCharsets.UTF_8), jsonString(key) + ": " + value);
                }
                sb.append('{').append(String.join(", ", members.values())).append('}');
            }
            case START_ARRAY -> {
                final List<String> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY)
                {
                    final StringBuilder item = new StringBuilder();
                    jsonValue(p, item);
                    items.add(item.toString());
                }
                sb.append('[').append(String.join(", ", items)).append(']');
            }
            case VALUE_STRING -> sb.append(jsonString(p.getText()));
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> sb.append(jsonNumber(p.getText()));
            case VALUE_TRUE -> sb.append("true");
            case VALUE_FALSE -> sb.append("false");
            case VALUE_NULL -> sb.append("null");
            default -> throw new IllegalArgumentException("unexpected JSON token " + t);
        }
    }

    private static int compareKeys(final byte[] a, final byte[] b)
    {
        if (a.length != b.length)
        {
            return Integer.compare(a.length, b.length);
        }
        for (int i = 0; i < a.length; i++)
        {
            if (a[i] != b[i])
            {
                return Integer.compare(a[i] & 0xFF, b[i] & 0xFF);
            }
        }
        return 0;
    }

    /** A JSON number as jsonb stores it, a {@code numeric}: exact, a negative exponent's digits as fraction. */
    private static String jsonNumber(final String text)
    {
        final BigDecimal d = new BigDecimal(text);
        return (d.scale() < 0 ? d.setScale(0, RoundingMode.UNNECESSARY) : d).toPlainString();
    }

    /** {@code escape_json}: quotes, backslashes and control characters escaped, everything else as it is. */
    private static String jsonString(final String s)
    {
        final StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20)
                    {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
