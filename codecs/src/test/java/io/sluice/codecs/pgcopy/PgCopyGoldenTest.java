package io.sluice.codecs.pgcopy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.testing.Buffers;

/**
 * Byte-for-byte values of the binary COPY codec. Layout source: PostgreSQL 15 documentation, "COPY", section
 * "Binary Format" (signature, flags, header extension, tuples, trailer), and the send/receive functions of each type
 * the section refers to (network byte order; numeric as base-10000 digits; date and timestamp from 2000-01-01;
 * arrays with ndim, has-null flag, element OID, dimensions). Every expected value is computed here independently
 * (ByteBuffer's big-endian writes, java.time, java.util.UUID, BigDecimal) rather than copied from the codec.
 */
class PgCopyGoldenTest
{
    private static final Instant PG_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

    private static String be(final int bytes, final long value)
    {
        final ByteBuffer b = ByteBuffer.allocate(bytes);
        switch (bytes)
        {
            case 2 :
                b.putShort((short)value);
                break;
            case 4 :
                b.putInt((int)value);
                break;
            default :
                b.putLong(value);
                break;
        }
        return Buffers.hex(b.array());
    }

    private static String utf8(final String text)
    {
        return Buffers.hex(text.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertCode(final String type, final String json, final int code)
    {
        assertEquals(PgCopyError.describe(code), PgCopyError.describe(PgValues.code(type, json)), type + " <- " +
            json);
    }

    @Test
    void shouldFrameTheStreamAsDocumented()
    {
        final Bytes<?> out = Bytes.allocateElasticDirect(64);
        try
        {
            PgCopy.writeHeader(out);
            assertEquals(PgCopy.HEADER_BYTES, out.writePosition());
            PgCopy.beginTuple(out, 2);
            PgCopyGoldenTest.encode(PgColumnEncoder.forType("integer", false), "7", out);
            PgCopy.writeNull(out);
            PgCopy.writeTrailer(out);
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.writeBytes("PGCOPY\n".getBytes(StandardCharsets.US_ASCII));
            expected.writeBytes(new byte[]{(byte)0xff, '\r', '\n', 0});
            expected.writeBytes(new byte[8]); // flags 0, header extension length 0
            expected.writeBytes(new byte[]{0, 2}); // two fields
            expected.writeBytes(new byte[]{0, 0, 0, 4, 0, 0, 0, 7});
            expected.writeBytes(new byte[]{(byte)0xff, (byte)0xff, (byte)0xff, (byte)0xff});
            expected.writeBytes(new byte[]{(byte)0xff, (byte)0xff});
            assertEquals(Buffers.hex(expected.toByteArray()), Buffers.hex(bytes));
            assertEquals("50 47 43 4f 50 59 0a ff 0d 0a 00", Buffers.hex(java.util.Arrays.copyOf(bytes, 11)));
        }
        finally
        {
            out.releaseLast();
        }
        assertThrows(IllegalArgumentException.class, () -> PgCopy.beginTuple(Bytes.allocateElasticOnHeap(4), 0));
    }

    private static void encode(final PgColumnEncoder encoder, final String json, final Bytes<?> out)
    {
        assertEquals(ConversionError.NONE, encoder.encode(PgValues.view(json), out, new PgScratch(64)));
    }

    @Test
    void shouldWriteNullsAndRefuseThemInNotNullColumns()
    {
        assertEquals("ff ff ff ff", Buffers.hex(PgValues.field("text", "null")));
        assertEquals("ff ff ff ff", Buffers.hex(PgValues.field("integer", null)));
        final PgColumnEncoder notNull = PgColumnEncoder.forType("text", false);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(16);
        assertEquals(ConversionError.NULL_NOT_ALLOWED, notNull.encode(PgValues.view("null"), out, new PgScratch(64)));
        assertEquals(ConversionError.MISSING_NOT_ALLOWED, notNull.encode(PgValues.view(null), out,
            new PgScratch(64)));
        assertTrue(notNull.describeFailure("s", "payload.s", ConversionError.NULL_NOT_ALLOWED)
            .startsWith("column 's' (text) at path 'payload.s': null"));
    }

    @Test
    void shouldWriteBooleansAndIntegers()
    {
        assertEquals("01", PgValues.hex("boolean", "true"));
        assertEquals("00", PgValues.hex("boolean", "false"));
        assertEquals("01", PgValues.hex("boolean", "\"TRUE\""));
        assertEquals("00", PgValues.hex("boolean", "0"));
        assertCode("boolean", "2", ConversionError.BAD_BOOL);
        assertCode("boolean", "\"yes\"", ConversionError.BAD_BOOL);
        assertCode("boolean", "[]", ConversionError.WRONG_KIND);

        assertEquals(be(2, -1), PgValues.hex("smallint", "-1"));
        assertEquals(be(2, 32767), PgValues.hex("int2", "32767"));
        assertCode("smallint", "32768", ConversionError.OUT_OF_RANGE);
        assertCode("smallint", "-32769", ConversionError.OUT_OF_RANGE);
        assertEquals(be(4, Integer.MIN_VALUE), PgValues.hex("integer", "-2147483648"));
        assertCode("integer", "2147483648", ConversionError.OUT_OF_RANGE);
        assertEquals(be(4, 42), PgValues.hex("integer", "\"42\""));
        assertEquals(be(4, 1000), PgValues.hex("integer", "1e3"));
        assertEquals(be(4, 5), PgValues.hex("integer", "5.0"));
        assertEquals(be(4, 1), PgValues.hex("integer", "true"));
        assertCode("integer", "1.5", ConversionError.NOT_AN_INTEGER);
        assertCode("integer", "\"x\"", ConversionError.NOT_A_NUMBER);
        assertEquals(be(8, Long.MAX_VALUE), PgValues.hex("bigint", "9223372036854775807"));
        assertEquals(be(8, Long.MIN_VALUE), PgValues.hex("int8", "-9223372036854775808"));
        assertCode("bigint", "9223372036854775808", ConversionError.OUT_OF_RANGE);
    }

    @Test
    void shouldWriteFloatsBigEndian()
    {
        assertEquals(be(4, Float.floatToIntBits(1.5f)), PgValues.hex("real", "1.5"));
        assertEquals(be(4, Float.floatToIntBits(Float.parseFloat("0.1"))), PgValues.hex("float4", "0.1"));
        assertEquals(be(8, Double.doubleToLongBits(0.1)), PgValues.hex("double precision", "0.1"));
        assertEquals(be(8, Double.doubleToLongBits(-1.2345678901234567e-300)),
            PgValues.hex("float8", "-1.2345678901234567e-300"));
        assertEquals(be(8, Double.doubleToRawLongBits(Double.POSITIVE_INFINITY)),
            PgValues.hex("double precision", "\"inf\""));
        assertCode("double precision", "1e400", ConversionError.OUT_OF_RANGE);
        assertCode("real", "\"x\"", ConversionError.NOT_A_NUMBER);
    }

    /**
     * A non-zero value that rounds to zero has underflowed: PostgreSQL's float4in/float8in refuse it ("1e-50" is
     * out of range for type real), so writing 0 would store a row the server itself never accepts. Zeros of any
     * spelling and subnormal results are kept.
     */
    @Test
    void shouldRefuseFloatUnderflowToZero()
    {
        assertCode("real", "1e-50", ConversionError.OUT_OF_RANGE);
        assertCode("real", "-0.0000000000000000000000000000000000000000000000001", ConversionError.OUT_OF_RANGE);
        assertCode("real", "\"1E-46\"", ConversionError.OUT_OF_RANGE);
        assertCode("double precision", "1e-400", ConversionError.OUT_OF_RANGE);
        assertCode("double precision", "-2e-324", ConversionError.OUT_OF_RANGE);
        assertEquals(be(4, Float.floatToRawIntBits(1e-40f)), PgValues.hex("real", "1e-40"), "subnormal kept");
        assertEquals(be(8, Double.doubleToRawLongBits(4.9e-324)), PgValues.hex("float8", "4.9e-324"));
        assertEquals(be(8, 0), PgValues.hex("float8", "0e-400"));
        assertEquals(be(8, Double.doubleToRawLongBits(-0.0)), PgValues.hex("float8", "-0.000e5"));
        assertEquals(be(4, 0), PgValues.hex("real", "\"0.0\""));
    }

    /** numeric_send's layout of a value, computed from BigDecimal independently of the codec. */
    private static String numeric(final BigDecimal value, final int dscale)
    {
        final ByteBuffer b = ByteBuffer.allocate(8 + 2 * 4096);
        if (value.signum() == 0)
        {
            b.putShort((short)0).putShort((short)0).putShort((short)0).putShort((short)dscale);
            return Buffers.hex(java.util.Arrays.copyOf(b.array(), 8));
        }
        BigDecimal abs = value.abs().stripTrailingZeros();
        // align the fraction to whole base-10000 digits
        final int fracGroups = Math.max(0, (abs.scale() + 3) / 4);
        abs = abs.setScale(fracGroups * 4);
        BigInteger unscaled = abs.unscaledValue();
        final List<Integer> groups = new ArrayList<>(); // least significant first
        final BigInteger base = BigInteger.valueOf(10_000);
        while (unscaled.signum() > 0)
        {
            final BigInteger[] qr = unscaled.divideAndRemainder(base);
            groups.add(qr[1].intValue());
            unscaled = qr[0];
        }
        int weight = groups.size() - 1 - fracGroups;
        int low = 0;
        while (groups.get(low) == 0)
        {
            low++;
        }
        final int ndigits = groups.size() - low;
        b.putShort((short)ndigits).putShort((short)weight).putShort((short)(value.signum() < 0 ? 0x4000 : 0))
            .putShort((short)dscale);
        for (int i = groups.size() - 1; i >= low; i--)
        {
            b.putShort((short)(int)groups.get(i));
        }
        return Buffers.hex(java.util.Arrays.copyOf(b.array(), 8 + 2 * ndigits));
    }

    @Test
    void shouldWriteNumericAsBase10000Digits()
    {
        // 12345.678 = 1|2345|6780 weight 1, dscale 3
        assertEquals("00 03 00 01 00 00 00 03 00 01 09 29 1a 7c", PgValues.hex("numeric", "12345.678"));
        assertEquals(numeric(new BigDecimal("12345.678"), 3), PgValues.hex("numeric", "12345.678"));
        assertEquals(numeric(new BigDecimal("-0.0001"), 4), PgValues.hex("numeric", "-0.0001"));
        assertEquals(numeric(new BigDecimal("1.50"), 2), PgValues.hex("numeric", "1.50"));
        assertEquals(numeric(new BigDecimal("100"), 0), PgValues.hex("numeric", "1e2"));
        assertEquals(numeric(new BigDecimal("0"), 2), PgValues.hex("numeric", "-0.00"));
        assertEquals(numeric(new BigDecimal("100000000"), 0), PgValues.hex("numeric", "100000000"));
        // numeric(p, s): rounding half away from zero, as PostgreSQL's round_var
        assertEquals(numeric(new BigDecimal("3"), 0), PgValues.hex("numeric(2,0)", "2.5"));
        assertEquals(numeric(new BigDecimal("-3"), 0), PgValues.hex("numeric(2,0)", "-2.5"));
        assertEquals(numeric(new BigDecimal("2"), 0), PgValues.hex("numeric(2,0)", "2.4999"));
        assertEquals(numeric(new BigDecimal("99.99"), 2), PgValues.hex("numeric(4,2)", "99.994"));
        assertCode("numeric(4,2)", "99.995", PgCopyError.NUMERIC_OVERFLOW);
        assertCode("numeric(4,2)", "100", PgCopyError.NUMERIC_OVERFLOW);
        assertEquals(numeric(new BigDecimal("0.01"), 2), PgValues.hex("numeric(4,2)", "0.005"));
        assertEquals(numeric(BigDecimal.ZERO, 2), PgValues.hex("numeric(4,2)", "0.0049"));
        assertEquals(numeric(new BigDecimal("12000"), 0), PgValues.hex("numeric(5,-3)", "12345"));
        assertEquals(numeric(new BigDecimal("42.10"), 2), PgValues.hex("numeric(10,2)", "\"42.1\""));
        assertCode("numeric", "\"NaN\"", ConversionError.BAD_DECIMAL);
        assertCode("numeric", "\"Infinity\"", ConversionError.BAD_DECIMAL);
        assertCode("numeric", "true", ConversionError.WRONG_KIND);
        assertCode("numeric", "1e200000", PgCopyError.NUMERIC_FORMAT_OVERFLOW);
        assertCode("numeric", "1e-20000", PgCopyError.NUMERIC_FORMAT_OVERFLOW);
    }

    @Test
    void shouldAgreeWithBigDecimalOnRandomNumerics()
    {
        final Random random = new Random(22);
        for (int i = 0; i < 20_000; i++)
        {
            final StringBuilder text = new StringBuilder();
            if (random.nextBoolean())
            {
                text.append('-');
            }
            final int intDigits = random.nextInt(12);
            text.append(intDigits == 0 ? "0" : String.valueOf(1 + random.nextInt(9)));
            for (int d = 1; d < intDigits; d++)
            {
                text.append(random.nextInt(10));
            }
            final int fracDigits = random.nextInt(10);
            if (fracDigits > 0)
            {
                text.append('.');
                for (int d = 0; d < fracDigits; d++)
                {
                    text.append(random.nextInt(4) == 0 ? 0 : random.nextInt(10));
                }
            }
            if (random.nextInt(4) == 0)
            {
                text.append('e').append(random.nextInt(21) - 10);
            }
            final BigDecimal exact = new BigDecimal(text.toString());
            assertEquals(numeric(exact, Math.max(0, exact.scale())), PgValues.hex("numeric", text.toString()),
                text.toString());
            final int precision = 1 + random.nextInt(20);
            final int scale = random.nextInt(precision + 1);
            final String type = "numeric(" + precision + "," + scale + ")";
            final BigDecimal rounded = exact.setScale(scale, RoundingMode.HALF_UP);
            final boolean overflow = rounded.signum() != 0 && rounded.precision() - rounded.scale() > precision -
                scale;
            if (overflow)
            {
                assertCode(type, text.toString(), PgCopyError.NUMERIC_OVERFLOW);
            }
            else
            {
                assertEquals(numeric(rounded, scale), PgValues.hex(type, text.toString()), type + " <- " + text);
            }
        }
    }

    @Test
    void shouldWriteTextAndRefuseNulCaseP4()
    {
        // Case P4 (kafka-connect-jdbc#1216, #1271, pgjdbc#665): PostgreSQL cannot store U+0000 (22021)
        assertCode("text", "\"a\\u0000b\"", PgCopyError.NUL_CHARACTER);
        assertCode("character varying(10)", "\"\\u0000\"", PgCopyError.NUL_CHARACTER);
        assertCode("char(3)", "\"a\\u0000\"", PgCopyError.NUL_CHARACTER);
        assertTrue(PgColumnEncoder.forType("text", true).describeFailure("s", "s", PgCopyError.NUL_CHARACTER)
            .contains("22021"));
        // the escaped backslash is two characters, not a NUL
        assertEquals(utf8("a\\u0000b"), PgValues.hex("text", "\"a\\\\u0000b\""));
        assertEquals(utf8("\uD83D\uDE00"), PgValues.hex("text", "\"\\ud83d\\ude00\""));
        assertEquals("f0 9f 98 80", PgValues.hex("text", "\"\\ud83d\\ude00\""));
        // the scanner refuses an unpaired surrogate escape in a record; a view set by hand meets the same refusal
        assertThrows(IllegalArgumentException.class, () -> PgValues.view("\"\\ud800\""));
        assertEquals(ConversionError.INVALID_STRING, PgValues.codeUnscanned("text", JsonKind.STRING, "\\ud800"));
        assertEquals(ConversionError.INVALID_STRING, PgValues.codeUnscanned("varchar(4)", JsonKind.STRING,
            "\\udc00x"));
        assertEquals(utf8("42"), PgValues.hex("text", "42"));
        assertEquals(utf8("{\"a\": [1, \"\\u0000\"]}"), PgValues.hex("text", "{\"a\": [1, \"\\u0000\"]}"));
        assertEquals("", PgValues.hex("text", "\"\""));
    }

    @Test
    void shouldCountCharactersNotBytesForVarcharAndChar()
    {
        assertEquals(utf8("日本語"), PgValues.hex("varchar(3)", "\"日本語\""));
        assertCode("varchar(3)", "\"日本語x\"", PgCopyError.TOO_MANY_CHARACTERS);
        assertCode("character varying(3)", "\"abcd\"", PgCopyError.TOO_MANY_CHARACTERS);
        assertCode("character varying(3)", "\"abc d\"", PgCopyError.TOO_MANY_CHARACTERS);
        // an excess of spaces only is cut, as PostgreSQL's varchar and bpchar input do
        assertEquals(utf8("abc"), PgValues.hex("character varying(3)", "\"abc   \""));
        assertEquals(utf8("é😀x"), PgValues.hex("varchar(3)", "\"é😀x  \""));
        // char(n): sent unpadded, the server pads to n
        assertEquals(utf8("ab"), PgValues.hex("character(3)", "\"ab\""));
        assertCode("char", "\"ab\"", PgCopyError.TOO_MANY_CHARACTERS);
        assertEquals(utf8("abcdefgh"), PgValues.hex("bpchar", "\"abcdefgh\""));
        assertCode("varchar(2)", "123", PgCopyError.TOO_MANY_CHARACTERS);
    }

    @Test
    void shouldWriteEnumLabelsOnly()
    {
        final PgColumnEncoder mood = PgColumnEncoder.forType(PgType.enumeration(50_000, List.of("sad", "happy")),
            true);
        assertEquals("00 00 00 05 " + utf8("happy"), Buffers.hex(PgValues.field(mood, "\"happy\"")));
        final Bytes<?> out = Bytes.allocateElasticOnHeap(16);
        assertEquals(PgCopyError.NOT_AN_ENUM_LABEL, mood.encode(PgValues.view("\"Happy\""), out, new PgScratch(64)));
        assertEquals(ConversionError.WRONG_KIND, mood.encode(PgValues.view("1"), out, new PgScratch(64)));
        assertEquals(PgCopyError.NUL_CHARACTER, mood.encode(PgValues.view("\"s\\u0000\""), out,
            new PgScratch(64)));
        final PgColumnEncoder moods = PgColumnEncoder.forType(PgType.enumeration(50_000, List.of("sad")).arrayOf(),
            true);
        assertEquals(be(4, 1) + " " + be(4, 0) + " " + be(4, 50_000) + " " + be(4, 1) + " " + be(4, 1) + " " +
            be(4, 3) + " " + utf8("sad"),
            Buffers.hex(java.util.Arrays.copyOfRange(PgValues.field(moods,
                "[\"sad\"]"), 4, 31)));
    }

    @Test
    void shouldKeepTheOriginalJsonTextAndRefuseWhatJsonbRefuses()
    {
        final String doc = "{ \"b\" : [1, 2.50, \"\\u00e9\"],\"a\":null }";
        assertEquals(utf8(doc), PgValues.hex("json", doc));
        assertEquals("01 " + utf8(doc), PgValues.hex("jsonb", doc));
        assertEquals(utf8("\"x\\ty\""), PgValues.hex("json", "\"x\\ty\""));
        assertEquals("01 " + utf8("1.0e3"), PgValues.hex("jsonb", "1.0e3"));
        assertEquals("01 " + utf8("true"), PgValues.hex("jsonb", "true"));
        assertEquals("ff ff ff ff", Buffers.hex(PgValues.field("jsonb", "null")));
        // jsonb refuses \u0000 (22P05) and unpaired surrogates; json keeps its text as the server does
        assertCode("jsonb", "{\"a\":\"\\u0000\"}", PgCopyError.NUL_CHARACTER);
        assertCode("jsonb", "\"x\\u0000\"", PgCopyError.NUL_CHARACTER);
        for (final String raw : new String[]{"[\"\\ud800\"]", "[\"\\ud800\\ud800\\udc00\"]", "[\"\\udc00\"]",
            "[\"\\ud800\\n\"]", "{\"\\ud800x\":1}"})
        {
            assertEquals(PgCopyError.UNPAIRED_SURROGATE, PgValues.codeUnscanned("jsonb", JsonKind.ARRAY, raw), raw);
        }
        assertEquals(PgCopyError.UNPAIRED_SURROGATE, PgValues.codeUnscanned("jsonb", JsonKind.STRING, "a\\ud800"));
        assertEquals("01 " + utf8("[\"\\ud83d\\ude00\", \"\\\\u0000\"]"),
            PgValues.hex("jsonb", "[\"\\ud83d\\ude00\", \"\\\\u0000\"]"));
        assertEquals(utf8("{\"a\":\"\\u0000\"}"), PgValues.hex("json", "{\"a\":\"\\u0000\"}"));
    }

    @Test
    void shouldWriteUuidsFromTheCanonicalFormOnly()
    {
        final UUID u = UUID.fromString("f562ac3b-2224-4e25-a0ab-56094e10c239");
        assertEquals(be(8, u.getMostSignificantBits()) + " " + be(8, u.getLeastSignificantBits()),
            PgValues.hex("uuid", "\"F562AC3B-2224-4e25-a0ab-56094e10c239\""));
        assertCode("uuid", "\"{f562ac3b-2224-4e25-a0ab-56094e10c239}\"", ConversionError.BAD_UUID);
        assertCode("uuid", "\"f562ac3b22244e25a0ab56094e10c239\"", ConversionError.BAD_UUID);
        assertCode("uuid", "\"f562ac3b-2224-4e25-a0ab-56094e10c23g\"", ConversionError.BAD_UUID);
        assertCode("uuid", "42", ConversionError.WRONG_KIND);
    }

    @Test
    void shouldWriteDatesAsDaysSince2000()
    {
        final LocalDate epoch = LocalDate.of(2000, 1, 1);
        assertEquals(be(4, 0), PgValues.hex("date", "\"2000-01-01\""));
        assertEquals(be(4, ChronoUnit.DAYS.between(epoch, LocalDate.of(1970, 1, 1))), PgValues.hex("date",
            "\"1970-01-01\""));
        assertEquals(be(4, ChronoUnit.DAYS.between(epoch, LocalDate.of(2024, 2, 29))), PgValues.hex("date",
            "\"2024-02-29\""));
        assertEquals(be(4, ChronoUnit.DAYS.between(epoch, LocalDate.of(1, 1, 1))), PgValues.hex("date",
            "\"0001-01-01\""));
        // a number is days since 1970-01-01, as ClickHouse's Date reads it
        assertEquals(be(4, -10_957), PgValues.hex("date", "0"));
        assertEquals(be(4, 1), PgValues.hex("date", "10958"));
        assertCode("date", "\"2023-02-29\"", ConversionError.BAD_DATE);
        assertCode("date", "\"2023-1-5\"", ConversionError.BAD_DATE);
        assertCode("date", "\"0000-01-01\"", PgCopyError.DATE_OUT_OF_RANGE);
        assertCode("date", "\"infinity\"", ConversionError.BAD_DATE);
        assertCode("date", "3000000000", PgCopyError.DATE_OUT_OF_RANGE);
        assertCode("date", "1.5", ConversionError.NOT_AN_INTEGER);
    }

    private static String micros(final Instant instant)
    {
        return be(8, ChronoUnit.MICROS.between(PG_EPOCH, instant));
    }

    @Test
    void shouldWriteTimestampsAsUtcMicrosecondsCaseP5()
    {
        // Case P5 (kafka-connect-jdbc#921, pgjdbc#2311, #1830): whatever the JVM's zone, an offset is applied, a
        // zone-less text is UTC, a number is epoch seconds; timestamp and timestamptz get the same UTC instant
        final String tenUtc = micros(Instant.parse("2024-03-10T10:00:00Z"));
        for (final String type : new String[]{"timestamp", "timestamptz", "timestamp with time zone",
            "timestamp(3) without time zone"})
        {
            assertEquals(tenUtc, PgValues.hex(type, "\"2024-03-10T12:00:00+02:00\""), type);
            assertEquals(tenUtc, PgValues.hex(type, "\"2024-03-10T10:00:00Z\""), type);
            assertEquals(micros(Instant.parse("2024-03-10T12:00:00Z")), PgValues.hex(type, "\"2024-03-10 12:00:00\""),
                type);
            assertEquals(tenUtc, PgValues.hex(type, "1710064800"), type);
            assertEquals(micros(Instant.parse("2022-08-01T20:35:57.403862Z")), PgValues.hex(type,
                "1659386157.403862"), type);
        }
        assertEquals(be(8, 0), PgValues.hex("timestamp", "\"2000-01-01\""));
        assertEquals(be(8, 1), PgValues.hex("timestamp", "\"2000-01-01T00:00:00.0000019Z\""));
        assertEquals(be(8, -1), PgValues.hex("timestamp", "\"1999-12-31T23:59:59.999999Z\""));
        assertEquals(tenUtc, PgValues.hex("timestamp", "\"1710064800\""));
        assertEquals(micros(Instant.parse("1969-12-31T23:59:58.5Z")), PgValues.hex("timestamptz", "-1.5"));
        assertEquals(micros(Instant.parse("2024-03-10T10:00:00Z")), PgValues.hex("timestamptz", "1.7100648e9"));
        assertCode("timestamp", "\"yesterday\"", ConversionError.BAD_DATETIME);
        assertCode("timestamp", "\"2024-03-10T25:00:00Z\"", ConversionError.BAD_DATETIME);
        assertCode("timestamp", "\"0000-06-01T00:00:00Z\"", PgCopyError.DATE_OUT_OF_RANGE);
        assertCode("timestamp", "1e20", PgCopyError.DATE_OUT_OF_RANGE);
        assertCode("timestamptz", "true", ConversionError.WRONG_KIND);
    }

    @Test
    void shouldWriteOneDimensionalArrays()
    {
        assertEquals(be(4, 1) + " " + be(4, 1) + " " + be(4, 23) + " " + be(4, 3) + " " + be(4, 1) + " " +
            be(4, 4) + " " + be(4, 1) + " ff ff ff ff " + be(4, 4) + " " + be(4, 3),
            PgValues.hex("integer[]", "[1, null, 3]"));
        assertEquals(be(4, 0) + " " + be(4, 0) + " " + be(4, 25), PgValues.hex("text[]", "[]"));
        assertEquals(be(4, 1) + " " + be(4, 0) + " " + be(4, 25) + " " + be(4, 2) + " " + be(4, 1) + " " +
            be(4, 1) + " " + utf8("a") + " " + be(4, 3) + " " + utf8("[1]"), PgValues.hex("_text", "[\"a\", [1]]"));
        assertEquals(be(4, 1) + " " + be(4, 0) + " " + be(4, 3802) + " " + be(4, 1) + " " + be(4, 1) + " " +
            be(4, 8) + " 01 " + utf8("{\"a\":1}"), PgValues.hex("jsonb[]", "[{\"a\":1}]"));
        assertCode("integer[]", "[1, 2.5]", ConversionError.NOT_AN_INTEGER);
        assertCode("integer[]", "[[1]]", ConversionError.WRONG_KIND);
        assertCode("integer[]", "1", ConversionError.WRONG_KIND);
        assertCode("text[]", "[\"\\u0000\"]", PgCopyError.NUL_CHARACTER);
        assertEquals("ff ff ff ff", Buffers.hex(PgValues.field("integer[]", "null")));
    }

    /** timestamp.c's AdjustTimestampForTypmod: half away from zero, on both sides of 2000-01-01. */
    @Test
    void shouldRoundTimestampsToTheTypesPrecisionAsTheServerStoresThem()
    {
        final PgType p3 = PgType.parse("timestamp(3) with time zone");
        assertEquals(123_000L, p3.roundMicros(123_456L));
        assertEquals(124_000L, p3.roundMicros(123_500L));
        assertEquals(123_000L, p3.roundMicros(123_499L));
        assertEquals(-124_000L, p3.roundMicros(-123_500L));
        assertEquals(-123_000L, p3.roundMicros(-123_499L));
        final PgType p0 = PgType.parse("timestamp(0) without time zone");
        assertEquals(1_000_000L, p0.roundMicros(500_000L));
        assertEquals(0L, p0.roundMicros(499_999L));
        assertEquals(-1_000_000L, p0.roundMicros(-500_000L));
        assertEquals(Long.MAX_VALUE, p0.roundMicros(Long.MAX_VALUE), "infinity is kept");
        assertEquals(Long.MIN_VALUE, p0.roundMicros(Long.MIN_VALUE), "-infinity is kept");
        assertEquals(123_456L, PgType.parse("timestamp(6) with time zone").roundMicros(123_456L));
        assertEquals(123_456L, PgType.parse("timestamptz").roundMicros(123_456L));
        assertEquals(123_456L, PgType.parse("bigint").roundMicros(123_456L));
        assertThrows(IllegalArgumentException.class, () -> PgType.timestamp(PgType.Kind.DATE, 3));
    }

    @Test
    void shouldReadTypeNamesAndCatalogModifiers()
    {
        assertEquals("numeric(10,2)", PgType.parse("NUMERIC(10, 2)").toString());
        assertEquals("numeric(10,0)", PgType.parse("decimal(10)").toString());
        assertEquals("character varying(20)[]", PgType.parse("character varying(20)[]").toString());
        assertEquals("character(1)", PgType.parse("character").toString());
        assertEquals("bpchar", PgType.parse("bpchar").toString());
        assertEquals(PgType.Kind.TIMESTAMPTZ, PgType.parse("timestamp(3) with time zone").kind());
        assertEquals("timestamp(3) with time zone", PgType.parse("timestamp(3) with time zone").toString());
        assertEquals("timestamp(0) without time zone[]", PgType.parse("timestamp(0) without time zone[]").toString());
        assertEquals("timestamp(2) with time zone", PgType.fromCatalog("timestamptz", 2).toString());
        assertEquals("timestamp without time zone", PgType.fromCatalog("timestamp", -1).toString());
        assertEquals(PgType.Kind.INT8, PgType.parse("_int8").kind());
        assertTrue(PgType.parse("_int8").isArray());
        assertEquals("numeric(10,2)", PgType.fromCatalog("numeric", ((10 << 16) | 2) + 4).toString());
        assertEquals("numeric(5,-3)", PgType.fromCatalog("numeric", ((5 << 16) | (-3 & 0x7ff)) + 4).toString());
        assertEquals("character varying(7)", PgType.fromCatalog("varchar", 11).toString());
        assertEquals("numeric", PgType.fromCatalog("numeric", -1).toString());
        assertThrows(IllegalArgumentException.class, () -> PgType.parse("money"));
        assertThrows(IllegalArgumentException.class, () -> PgType.fromCatalog("char", -1));
        assertEquals("character(1)", PgType.fromCatalog("bpchar", 5).toString());
        assertThrows(IllegalArgumentException.class, () -> PgType.parse("integer(3)"));
        assertThrows(IllegalStateException.class, () -> PgType.parse("int[]").arrayOf());
        assertArrayEquals(new byte[]{0, 0, 0, 1, 1}, PgValues.field("bool", "true"));
    }

    @Test
    void shouldNameOnlyRealCodesInDocsPostgresMd() throws Exception
    {
        final String page = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "postgres.md"));
        // the codes of the codec's own section; the page's other sections (names, errors) quote SQL words
        final int types = page.indexOf("\n## Types");
        assertTrue(types >= 0, "docs/postgres.md has a Types section");
        final int next = page.indexOf("\n## ", types + 1);
        final String doc = page.substring(types, next < 0 ? page.length() : next);
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("`([A-Z][A-Z_]{3,})`").matcher(doc);
        int names = 0;
        while (m.find())
        {
            final String name = m.group(1);
            int code;
            try
            {
                code = PgCopyError.class.getField(name).getInt(null);
            }
            catch (final NoSuchFieldException e)
            {
                code = ConversionError.class.getField(name).getInt(null);
            }
            assertTrue(code < 0, name);
            names++;
        }
        assertTrue(names > 15, "the Types table names its codes: " + names);
        // the time table of case P5 is what the codec writes
        assertEquals(PgValues.hex("timestamp", "\"2024-03-10T10:00:00Z\""), PgValues.hex("timestamp",
            "\"2024-03-10T12:00:00+02:00\""));
    }
}
