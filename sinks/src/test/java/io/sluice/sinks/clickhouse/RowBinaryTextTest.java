package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.JsonToRowBinary;

/**
 * The RowBinary reader of {@code explain}, on byte layouts as ClickHouse documents them (Formats: RowBinary:
 * little-endian numbers, LEB128 lengths, a flag byte before a Nullable, UUID as two little-endian UInt64 halves,
 * Decimal as its scaled integer) and the text ClickHouse's TabSeparated output prints for them. The types of the
 * GitHub sample are also checked against the real server by {@code ExplainIT}.
 */
class RowBinaryTextTest
{
    @Test
    void shouldPrintNumbersAsTabSeparatedDoes()
    {
        assertEquals("-1", read("Int8", b(0xFF)));
        assertEquals("255", read("UInt8", b(0xFF)));
        assertEquals("4294967295", read("UInt32", le(4, 0xFFFF_FFFFL)));
        assertEquals("18446744073709551615", read("UInt64", le(8, -1L)));
        assertEquals("1", read("Float64", f64(1.0)));
        assertEquals("0.1", read("Float64", f64(0.1)));
        assertEquals("1e21", read("Float64", f64(1e21)));
        assertEquals("1e-7", read("Float64", f64(1e-7)));
        assertEquals("9.9e-7", read("Float64", f64(9.9e-7)));
        assertEquals("0.000001", read("Float64", f64(1e-6)));
        assertEquals("123456789012345680000", read("Float64", f64(123456789012345678901.0)));
        assertEquals("123456.789", read("Float64", f64(123456.789)));
        assertEquals("-inf", read("Float64", f64(Double.NEGATIVE_INFINITY)));
        assertEquals("nan", read("Float64", f64(Double.NaN)));
        assertEquals("0.1", read("Float32", le(4, Float.floatToIntBits(0.1f))));
        assertEquals("true", read("Bool", b(1)));
    }

    @Test
    void shouldPrintDecimalsDatesAndUuids()
    {
        assertEquals("1.5", read("Decimal(9, 2)", le(4, 150)));
        assertEquals("-0.01", read("Decimal64(2)", le(8, -1)));
        assertEquals("12345678901234567890.12", read("Decimal128(2)", big(16, "1234567890123456789012")));
        assertEquals("-12345678901234567890.12", read("Decimal128(2)", big(16, "-1234567890123456789012")));
        assertEquals("100", read("Decimal(9, 2)", le(4, 10000)));
        assertEquals("2015-01-01", read("Date", le(2, 16436)));
        assertEquals("2015-01-01 00:00:00", read("DateTime", le(4, 1420070400L)));
        assertEquals("2015-01-01 01:00:00", read("DateTime('Europe/Berlin')", le(4, 1420070400L)));
        assertEquals("1970-01-01 00:00:01.500", read("DateTime64(3)", le(8, 1500)));
        assertEquals("1969-12-31 23:59:59.900", read("DateTime64(3)", le(8, -100)));
        assertEquals("61f0c404-5cb3-11e7-907b-a6006ad3dba0", read("UUID", concat(le(8, 0x61f0c4045cb311e7L),
            le(8, 0x907ba6006ad3dba0L))));
    }

    @Test
    void shouldEscapeStringsAndQuoteThemInsideComposites()
    {
        assertEquals("a\\tb\\nc\\\\d\\'e", read("String", str("a\tb\nc\\d'e")));
        assertEquals("ab\\0", read("FixedString(3)", "ab\0".getBytes(StandardCharsets.UTF_8)));
        assertEquals("x", read("LowCardinality(String)", str("x")));
        assertEquals("\\N", read("Nullable(String)", b(1)));
        assertEquals("v", read("Nullable(String)", concat(b(0), str("v"))));
        assertEquals("['a\\'b',NULL]", read("Array(Nullable(String))", concat(b(2), b(0), str("a'b"), b(1))));
        assertEquals("[1,2]", read("Array(UInt8)", concat(b(2), b(1), b(2))));
        assertEquals("{'k':7}", read("Map(String, UInt8)", concat(b(1), str("k"), b(7))));
        assertEquals("(1,'s')", read("Tuple(UInt8, String)", concat(b(1), str("s"))));
        assertEquals("['2015-01-01']", read("Array(Date)", concat(b(1), le(2, 16436))));
        assertEquals("b", read("Enum8('a' = 1, 'b' = 2)", b(2)));
    }

    @Test
    void shouldPrintWideIntegersInPlainDecimal()
    {
        // ClickHouse's TSV prints every integer width as plain decimal, never with an exponent
        final String int128Min = "-170141183460469231731687303715884105728";
        final String uint128Max = "340282366920938463463374607431768211455";
        final String int256Min = "-57896044618658097711785492504343953926634992332820282019728792003956564819968";
        final String uint256Max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assertEquals(int128Min, read("Int128", big(16, int128Min)));
        assertEquals("-1", read("Int128", big(16, "-1")));
        assertEquals(uint128Max, read("UInt128", big(16, uint128Max)));
        assertEquals("18446744073709551616", read("UInt128", big(16, "18446744073709551616")));
        assertEquals(int256Min, read("Int256", big(32, int256Min)));
        assertEquals(uint256Max, read("UInt256", big(32, uint256Max)));
        assertEquals("0", read("UInt256", big(32, "0")));
        assertEquals("[1,-2]", read("Array(Int128)", concat(b(2), big(16, "1"), big(16, "-2"))));
        assertEquals("{3:NULL}", read("Map(UInt128, Nullable(Int256))", concat(b(1), big(16, "3"), b(1))));
        assertEquals("\\N", read("Nullable(UInt256)", b(1)));
        assertEquals("7", read("LowCardinality(Int128)", big(16, "7")));
        // what the encoder wrote, read back: an exponent spelling is shown as the integer it stored
        assertEquals("1" + "0".repeat(40), read("Int256", JsonToRowBinary.encode("Int256", "1e40")));
        assertEquals(uint128Max, read("UInt128", JsonToRowBinary.encode("UInt128", "\"" + uint128Max + "\"")));
    }

    @Test
    void shouldRefuseARowThatEndsInsideAValue()
    {
        assertThrows(IllegalArgumentException.class, () -> read("UInt64", le(4, 1)));
    }

    @Test
    void shouldReadLongStringLengthsAsLeb128()
    {
        final String s = "x".repeat(300);
        assertEquals(s, read("String", str(s)));
    }

    private static String read(final String type, final byte[] bytes)
    {
        final RowBinaryText t = new RowBinaryText(bytes, ZoneId.of("UTC"));
        final String v = t.next(ClickHouseType.parse(type));
        assertEquals(0, t.remaining(), "bytes left after " + type);
        return v;
    }

    private static byte[] b(final int... values)
    {
        final byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            out[i] = (byte)values[i];
        }
        return out;
    }

    private static byte[] le(final int size, final long v)
    {
        final ByteBuffer bb = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v);
        final byte[] out = new byte[size];
        System.arraycopy(bb.array(), 0, out, 0, size);
        return out;
    }

    /** A two's complement little-endian integer of {@code size} bytes, as RowBinary stores a wide Decimal. */
    private static byte[] big(final int size, final String value)
    {
        final byte[] be = new BigInteger(value).toByteArray();
        final byte[] out = new byte[size];
        final byte fill = (byte)(be[0] < 0 ? 0xFF : 0);
        for (int i = 0; i < size; i++)
        {
            out[i] = i < be.length ? be[be.length - 1 - i] : fill;
        }
        return out;
    }

    private static byte[] f64(final double v)
    {
        return le(8, Double.doubleToRawLongBits(v));
    }

    private static byte[] str(final String s)
    {
        final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = utf8.length;
        while (n >= 0x80)
        {
            out.write((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        out.write(n);
        out.writeBytes(utf8);
        return out.toByteArray();
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
