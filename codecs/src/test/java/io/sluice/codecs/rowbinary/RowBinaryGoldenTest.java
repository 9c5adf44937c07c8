package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.testing.Buffers;

/**
 * Byte-for-byte golden values. Layout source: ClickHouse documentation, "RowBinary" format page (section "Data
 * types wire format") and the data type pages (Int/UInt, Float, Boolean, String, FixedString, Date, Date32,
 * DateTime, DateTime64, UUID, Decimal, Enum, Nullable, LowCardinality, Array, Map, Tuple). Cases V1-V4 come from
 * shared/cases/README.md with the bug reports they name.
 */
class RowBinaryGoldenTest
{
    private static String hex(final String type, final String json)
    {
        return Buffers.hex(JsonToRowBinary.encode(type, json));
    }

    private static String hex(final String type, final String json, final EncoderOptions options)
    {
        return Buffers.hex(JsonToRowBinary.encode(type, json, options));
    }

    private static void assertFails(final String type, final String json, final int code)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> JsonToRowBinary.encode(type, json), type + " <- " + json);
        assertTrue(ex.getMessage().contains(ConversionError.describe(code)), type + " <- " + json + ": " +
            ex.getMessage());
    }

    @Test
    void shouldConvertIsoDateTimesCaseV1()
    {
        // Case V1 (ClickHouse#74243, #64644, vector#5797).
        assertEquals(1736235881542L, Long.reverseBytes(Long.parseUnsignedLong(
            hex("DateTime64(3)", "\"2025-01-07T07:44:41.542Z\"").replace(" ", ""), 16)));
        assertEquals("46 14 b9 3f 94 01 00 00", hex("DateTime64(3)", "\"2025-01-07T07:44:41.542Z\""));
        assertEquals("69 db 7c 67", hex("DateTime", "\"2025-01-07T07:44:41.542Z\""), "1736235881 little endian");
        assertEquals(1602349656452332L, Long.reverseBytes(Long.parseUnsignedLong(
            hex("DateTime64(6)", "\"2020-10-10T17:07:36.452332Z\"").replace(" ", ""), 16)));
        assertEquals(1609572030, Integer.reverseBytes(Integer.parseUnsignedInt(
            hex("DateTime", "\"2021-01-02T10:20:30+03:00\"").replace(" ", ""), 16)));
    }

    @Test
    void shouldRangeCheckUnsignedAndNarrowIntegersCaseV2()
    {
        // Case V2 (clickhouse-java#1158, clickhouse-kafka-connect#576, simdjson#178).
        assertEquals("ff ff ff ff ff ff ff ff", hex("UInt64", "18446744073709551615"));
        assertEquals("00 00 00 00 00 00 00 80", hex("UInt64", "9223372036854775808"));
        assertFails("Int64", "9223372036854775808", ConversionError.OUT_OF_RANGE);
        assertEquals("c8", hex("UInt8", "200"));
        assertFails("UInt8", "300", ConversionError.OUT_OF_RANGE);
        assertFails("UInt8", "-1", ConversionError.OUT_OF_RANGE);
        assertEquals("ff ff", hex("Int16", "-1"));
        assertEquals("02 00 00 01", hex("Array(Nullable(UInt8))", "[0, null]"));
    }

    @Test
    void shouldWriteNullsAndMissingValuesCaseV3()
    {
        // Case V3 (clickhouse-kafka-connect#562, #62, #80, PR #836; ClickHouse#2633).
        assertEquals("01", hex("Nullable(String)", "null"));
        assertEquals("00 01 78", hex("Nullable(String)", "\"x\""));
        assertEquals("01", hex("Nullable(String)", null), "absent key");
        assertEquals("00", hex("Array(String)", "null"));
        assertEquals("00", hex("Map(String, String)", "null"));
        assertEquals("01 01 6b 01 76", hex("Map(String, String)", "{\"k\":\"v\"}"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> JsonToRowBinary.encode("String", "null"));
        assertEquals("column 'value' (String): null into a non-Nullable column without a default (null)",
            ex.getMessage());
        assertEquals("00", hex("String", "null", EncoderOptions.DEFAULTS.withNullAsDefault(true)));
        assertFails("String", null, ConversionError.MISSING_NOT_ALLOWED);
        assertEquals("00", hex("String", null, EncoderOptions.DEFAULTS.withMissingAsDefault(true)));
    }

    @Test
    void shouldWriteSurrogatePairsAsOneFourByteCharacterCaseV4()
    {
        // Case V4 (posthog#9368, langwatch#6078, ClickHouse#1076).
        assertEquals("04 f0 9f 98 80", hex("String", "\"\\ud83d\\ude00\""));
        assertEquals("03 e2 80 a8", hex("String", "\"\\u2028\""));
        assertEquals("03 61 00 62", hex("String", "\"a\\u0000b\""));
        assertThrows(IllegalArgumentException.class, () -> hex("String", "\"\\ud83d\""), "lone surrogate");
        // invalid UTF-8 never reaches an encoder: the scanner rejects the document first
        final byte[] doc = {'{', '"', 'v', '"', ':', '"', (byte)0xC0, (byte)0x80, '"', '}'};
        final JsonScanner scanner = new JsonScanner(
            JsonPathSet.compile(List.of("v")), 8);
        assertEquals(JsonError.INVALID_UTF8,
            scanner.scan(new org.agrona.concurrent.UnsafeBuffer(doc), 0, doc.length));
        assertEquals(JsonKind.MISSING, scanner.kind(0));
    }

    @Test
    void shouldWriteEveryIntegerWidth()
    {
        assertEquals("80", hex("Int8", "-128"));
        assertEquals("7f", hex("Int8", "127"));
        assertFails("Int8", "128", ConversionError.OUT_OF_RANGE);
        assertEquals("00 80", hex("Int16", "-32768"));
        assertFails("Int16", "32768", ConversionError.OUT_OF_RANGE);
        assertEquals("ff ff ff 7f", hex("Int32", "2147483647"));
        assertFails("Int32", "-2147483649", ConversionError.OUT_OF_RANGE);
        assertEquals("00 00 00 00 00 00 00 80", hex("Int64", "-9223372036854775808"));
        assertEquals("ff ff ff ff ff ff ff 7f", hex("Int64", "9223372036854775807"));
        assertFails("Int64", "-9223372036854775809", ConversionError.OUT_OF_RANGE);
        assertEquals("ff ff", hex("UInt16", "65535"));
        assertFails("UInt16", "65536", ConversionError.OUT_OF_RANGE);
        assertEquals("ff ff ff ff", hex("UInt32", "4294967295"));
        assertFails("UInt32", "4294967296", ConversionError.OUT_OF_RANGE);
        assertFails("UInt64", "18446744073709551616", ConversionError.OUT_OF_RANGE);
        assertFails("UInt64", "184467440737095516150", ConversionError.OUT_OF_RANGE);
        assertEquals("00", hex("UInt64", "-0").substring(0, 2));
    }

    @Test
    void shouldAcceptExactlyIntegralNumbersAndNumericStrings()
    {
        assertEquals("2a 00 00 00", hex("Int32", "\"42\""));
        assertEquals("05 00 00 00", hex("Int32", "5.0"));
        assertEquals("e8 03 00 00", hex("Int32", "1e3"));
        assertEquals("0f 00 00 00", hex("Int32", "1.5e1"));
        assertEquals("00 00 00 00", hex("Int32", "0.000e5"));
        assertEquals("9c ff ff ff", hex("Int32", "-1000e-1"));
        assertFails("Int32", "1.5", ConversionError.NOT_AN_INTEGER);
        assertFails("Int32", "1e-1", ConversionError.NOT_AN_INTEGER);
        assertFails("Int32", "\"12a\"", ConversionError.NOT_A_NUMBER);
        assertFails("Int32", "\" 12\"", ConversionError.NOT_A_NUMBER);
        assertFails("Int32", "\"+12\"", ConversionError.NOT_A_NUMBER);
        assertFails("Int32", "\"\"", ConversionError.NOT_A_NUMBER);
        // JSON booleans go into integer columns as 1/0, as ClickHouse's JSON input formats do
        assertEquals("01 00 00 00", hex("Int32", "true"));
        assertEquals("00", hex("UInt8", "false"));
        assertFails("Int32", "[1]", ConversionError.WRONG_KIND);
        assertFails("Int32", "{\"a\":1}", ConversionError.WRONG_KIND);
        assertFails("UInt8", "1e999999999999", ConversionError.OUT_OF_RANGE);
    }

    @Test
    void shouldWriteCorrectlyRoundedFloats()
    {
        assertEquals(hex64(1.5), hex("Float64", "1.5"));
        assertEquals(hex64(0.1), hex("Float64", "0.1"));
        assertEquals(hex64(-1.5e3), hex("Float64", "-1.5e3"));
        assertEquals(hex64(1e23), hex("Float64", "1e23"), "outside the fast path");
        assertEquals(hex64(2.2250738585072014E-308), hex("Float64", "2.2250738585072014E-308"));
        assertEquals(hex64(Double.POSITIVE_INFINITY), hex("Float64", "\"inf\""));
        assertEquals(hex64(Double.NaN), hex("Float64", "\"nan\""));
        assertEquals(hex64(42), hex("Float64", "\"42\""));
        assertFails("Float64", "1e400", ConversionError.OUT_OF_RANGE);
        assertEquals(hex32(0.1f), hex("Float32", "0.1"));
        assertEquals(hex32(16777217f), hex("Float32", "16777217"), "9 digits: exact fallback, no double rounding");
        assertEquals(hex32(Float.parseFloat("1.00000017881393432617187499")),
            hex("Float32", "1.00000017881393432617187499"));
        assertEquals("00 00 c0 3f", hex("Float32", "1.5"));
    }

    private static String hex64(final double value)
    {
        return Buffers.hex(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
            .putDouble(value).array());
    }

    private static String hex32(final float value)
    {
        return Buffers.hex(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
            .putFloat(value).array());
    }

    @Test
    void shouldWriteBools()
    {
        assertEquals("01", hex("Bool", "true"));
        assertEquals("00", hex("Bool", "false"));
        assertEquals("01", hex("Bool", "1"));
        assertEquals("00", hex("Bool", "0"));
        assertEquals("01", hex("Bool", "\"true\""));
        assertEquals("00", hex("Bool", "\"0\""));
        assertFails("Bool", "2", ConversionError.BAD_BOOL);
        assertFails("Bool", "\"yes\"", ConversionError.BAD_BOOL);
        assertFails("Bool", "null", ConversionError.NULL_NOT_ALLOWED);
    }

    @Test
    void shouldWriteStringsAndRawJsonText()
    {
        assertEquals("03 61 62 63", hex("String", "\"abc\""));
        assertEquals("00", hex("String", "\"\""));
        assertEquals("06 2d 31 2e 35 65 33", hex("String", "-1.5e3"), "number text as written");
        assertEquals("04 74 72 75 65", hex("String", "true"));
        assertEquals("07 7b 22 61 22 3a 31 7d", hex("String", "{\"a\":1}"), "object as raw JSON text");
        assertEquals("03 5b 31 5d", hex("LowCardinality(String)", "[1]"));
        final String longText = "x".repeat(200);
        assertEquals("c8 01", hex("String", "\"" + longText + "\"").substring(0, 5), "LEB128 length 200");
    }

    @Test
    void shouldWriteFixedStrings()
    {
        assertEquals("61 62 00 00", hex("FixedString(4)", "\"ab\""));
        assertEquals("61 62 63 64", hex("FixedString(4)", "\"abcd\""));
        assertFails("FixedString(4)", "\"abcde\"", ConversionError.TOO_LONG);
        assertEquals("c3 a9", hex("FixedString(2)", "\"\\u00e9\""));
    }

    @Test
    void shouldWriteDates()
    {
        assertEquals("00 00", hex("Date", "\"1970-01-01\""));
        assertEquals("7f 4e", hex("Date", "\"2025-01-07\""), "20095 days");
        assertEquals("ff ff", hex("Date", "\"2149-06-06\""));
        assertFails("Date", "\"2149-06-07\"", ConversionError.OUT_OF_RANGE);
        assertFails("Date", "\"1969-12-31\"", ConversionError.OUT_OF_RANGE);
        assertFails("Date", "\"2025-02-30\"", ConversionError.BAD_DATE);
        assertFails("Date", "\"2025-1-07\"", ConversionError.BAD_DATE);
        assertEquals("0a 00", hex("Date", "10"), "a number is a day number");
        assertEquals("21 9c ff ff", hex("Date32", "\"1900-01-01\""), "-25567 days");
        assertEquals("7f 4e 00 00", hex("Date32", "\"2025-01-07\""));
        assertEquals("d1 d6 01 00", hex("Date32", "\"2299-12-31\""));
        assertFails("Date32", "\"2300-01-01\"", ConversionError.OUT_OF_RANGE);
        assertEquals("33 4e", hex("Date", "\"2024-10-23\""));
    }

    @Test
    void shouldWriteDateTimesFromIsoAndEpochNumbers()
    {
        assertEquals("00 00 00 00", hex("DateTime", "\"1970-01-01 00:00:00\""), "space separator, no zone: UTC");
        assertEquals("69 db 7c 67", hex("DateTime", "1736235881"), "epoch seconds");
        assertEquals("69 db 7c 67", hex("DateTime", "\"1736235881\""), "numeric string");
        assertEquals("69 db 7c 67", hex("DateTime", "1736235881.9"), "fraction truncated");
        assertEquals("69 db 7c 67", hex("DateTime", "1736235881542",
            EncoderOptions.DEFAULTS.withEpochUnit(EncoderOptions.EpochUnit.MILLISECONDS)));
        assertEquals("69 db 7c 67", hex("DateTime('UTC')", "\"2025-01-07T07:44:41\""));
        assertEquals("59 cd 7c 67", hex("DateTime('Europe/Berlin')", "\"2025-01-07T07:44:41\""),
            "local time in the column's zone: 06:44:41Z = 1736232281");
        assertEquals("59 cd 7c 67", hex("DateTime('Europe/Berlin')", "\"2025-01-07T06:44:41Z\""));
        assertEquals("ff ff ff ff", hex("DateTime", "\"2106-02-07T06:28:15Z\""));
        assertFails("DateTime", "\"2106-02-07T06:28:16Z\"", ConversionError.OUT_OF_RANGE);
        assertFails("DateTime", "-1", ConversionError.OUT_OF_RANGE);
        assertFails("DateTime", "\"2025-01-07T24:00:00Z\"", ConversionError.BAD_DATETIME);
        assertFails("DateTime", "\"2025-01-07T23:59:60Z\"", ConversionError.BAD_DATETIME);
        assertFails("DateTime", "\"2025-01-07T10:00:00+19:00\"", ConversionError.BAD_DATETIME);
        // neither a date-time nor an epoch number: named as a bad date-time, not as a bad number
        assertFails("DateTime", "\"yesterday\"", ConversionError.BAD_DATETIME);
        assertFails("DateTime64(3)", "\"bad\"", ConversionError.BAD_DATETIME);
        assertFails("DateTime", "\"12x\"", ConversionError.BAD_DATETIME);
        assertFails("DateTime", "true", ConversionError.WRONG_KIND);

        assertEquals(hexLong(1736235881542L), hex("DateTime64(3)", "1736235881542"), "ticks at the precision");
        assertEquals(hexLong(1736235881542L), hex("DateTime64(3)", "1736235881.5429"), "seconds with a fraction");
        assertEquals(hexLong(1736235881000L), hex("DateTime64(3)", "1736235881",
            EncoderOptions.DEFAULTS.withEpochUnit(EncoderOptions.EpochUnit.SECONDS)));
        assertEquals(hexLong(1736235881542123456L), hex("DateTime64(9, 'UTC')",
            "\"2025-01-07T07:44:41.5421234567Z\""), "more than 9 digits truncated");
        assertEquals(hexLong(17362358815L), hex("DateTime64(1)", "\"2025-01-07T10:44:41.59+03:00\""));
        assertEquals(hexLong(-2208988800L), hex("DateTime64(0)", "\"1900-01-01T00:00:00Z\""));
        assertFails("DateTime64(0)", "\"1899-12-31T23:59:59Z\"", ConversionError.OUT_OF_RANGE);
        assertFails("DateTime64(9)", "\"2299-12-31T00:00:00Z\"", ConversionError.OUT_OF_RANGE);
    }

    private static String hexLong(final long value)
    {
        return Buffers.hex(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(value).array());
    }

    @Test
    void shouldWriteUuidAsTwoLittleEndianHalves()
    {
        // ClickHouse docs, RowBinary "UUID": high 64 bits little endian, then low 64 bits little endian.
        assertEquals("e7 11 b3 5c 04 c4 f0 61 a0 db d3 6a 00 a6 7b 90",
            hex("UUID", "\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\""));
        assertEquals("e7 11 b3 5c 04 c4 f0 61 a0 db d3 6a 00 a6 7b 90",
            hex("UUID", "\"61F0C404-5CB3-11E7-907B-A6006AD3DBA0\""));
        assertFails("UUID", "\"61f0c4045cb311e7907ba6006ad3dba0\"", ConversionError.BAD_UUID);
        assertFails("UUID", "\"61f0c404-5cb3-11e7-907b-a6006ad3dbaz\"", ConversionError.BAD_UUID);
    }

    @Test
    void shouldWriteDecimalsExactly()
    {
        assertEquals("39 30 00 00", hex("Decimal(9, 2)", "123.45"), "12345");
        assertEquals("39 30 00 00", hex("Decimal32(2)", "\"123.45\""));
        assertEquals("39 30 00 00", hex("Decimal(9, 2)", "123.459"), "truncated toward zero");
        assertEquals("c7 cf ff ff", hex("Decimal(9, 2)", "-123.459"), "-12345");
        assertEquals("39 30 00 00", hex("Decimal(9, 2)", "1.2345e2"));
        assertEquals("10 27 00 00 00 00 00 00", hex("Decimal(18, 4)", "1"));
        assertEquals("10 27 00 00 00 00 00 00", hex("Decimal64(4)", "1.00000"));
        assertFails("Decimal(9, 2)", "10000000", ConversionError.OUT_OF_RANGE);
        assertEquals("ff c9 9a 3b", hex("Decimal(9, 2)", "9999999.99"));
        assertFails("Decimal(9, 2)", "\"abc\"", ConversionError.BAD_DECIMAL);
        // 10^37 + 1 with scale 0 in Decimal(38, 0): 128-bit little endian
        assertEquals(Buffers.hex(int128(new BigInteger("10000000000000000000000000000000000001"))),
            hex("Decimal(38, 0)", "10000000000000000000000000000000000001"));
        assertEquals(Buffers.hex(int128(new BigInteger("-12345678901234567890123456789012345678"))),
            hex("Decimal128(2)", "-123456789012345678901234567890123456.78"));
        assertFails("Decimal(38, 0)", "100000000000000000000000000000000000000", ConversionError.OUT_OF_RANGE);
        assertEquals("00 00 00 00", hex("Decimal(9, 2)", "0.001"));
        assertEquals("00 00 00 00", hex("Decimal(9, 2)", "0e999999999"));
    }

    private static byte[] int128(final BigInteger value)
    {
        final byte[] big = value.toByteArray();
        final byte[] out = new byte[16];
        final byte fill = (byte)(value.signum() < 0 ? 0xff : 0);
        Arrays.fill(out, fill);
        for (int i = 0; i < big.length; i++)
        {
            out[i] = big[big.length - 1 - i];
        }
        return out;
    }

    @Test
    void shouldWriteEnums()
    {
        assertEquals("01", hex("Enum8('a' = 1, 'b' = 2)", "\"a\""));
        assertEquals("02", hex("Enum8('a' = 1, 'b' = 2)", "2"));
        assertEquals("fe", hex("Enum8('x' = -2)", "\"x\""));
        assertEquals("e8 03", hex("Enum16('big' = 1000, 'small' = -5)", "\"big\""));
        assertEquals("fb ff", hex("Enum16('big' = 1000, 'small' = -5)", "null",
            EncoderOptions.DEFAULTS.withNullAsDefault(true)), "default: the smallest value");
        assertEquals("02", hex("Enum8('a', 'b')", "\"b\""), "implicit values start at 1");
        assertFails("Enum8('a' = 1, 'b' = 2)", "\"c\"", ConversionError.BAD_ENUM);
        assertFails("Enum8('a' = 1, 'b' = 2)", "3", ConversionError.BAD_ENUM);
    }

    @Test
    void shouldWriteNullableLowCardinalityArrayMapAndTuple()
    {
        assertEquals("00 2a 00 00 00", hex("Nullable(Int32)", "42"));
        assertEquals("01", hex("LowCardinality(Nullable(String))", "null"));
        assertEquals("00 01 61", hex("LowCardinality(Nullable(String))", "\"a\""));
        assertEquals("03 01 02 03", hex("Array(UInt8)", "[1,2,3]"));
        assertEquals("00", hex("Array(UInt8)", "[]"));
        assertEquals("00", hex("Array(UInt8)", null));
        assertEquals("02 01 01 00", hex("Array(Array(UInt8))", "[[1],[]]"));
        assertFails("Array(UInt8)", "{\"a\":1}", ConversionError.WRONG_KIND);
        assertFails("Array(UInt8)", "[1,300]", ConversionError.OUT_OF_RANGE);
        assertEquals("02 01 61 01 00 00 00 00 00 00 00 01 62 02 00 00 00 00 00 00 00",
            hex("Map(String, UInt64)", "{\"a\":1,\"b\":2}"));
        assertEquals("01 07 01 78", hex("Map(UInt8, String)", "{\"7\":\"x\"}"), "keys converted from text");
        assertFails("Map(UInt8, String)", "{\"x\":\"x\"}", ConversionError.NOT_A_NUMBER);
        assertEquals("01 61 05", hex("Tuple(String, UInt8)", "[\"a\", 5]"));
        assertFails("Tuple(String, UInt8)", "[\"a\"]", ConversionError.TUPLE_ARITY);
        assertEquals("01 61 05", hex("Tuple(s String, n UInt8)", "{\"n\":5,\"s\":\"a\"}"), "named, by name");
        assertEquals("01 61 01", hex("Tuple(s String, n Nullable(UInt8))", "{\"s\":\"a\"}"), "absent element");
        assertEquals("02 01 61 05 01 62 06", hex("Array(Tuple(String, UInt8))", "[[\"a\",5],[\"b\",6]]"));
        assertEquals("00 00", hex("Tuple(String, UInt8)", "null", EncoderOptions.DEFAULTS.withNullAsDefault(true)));
        assertFails("Tuple(String, UInt8)", "null", ConversionError.NULL_NOT_ALLOWED);
        assertEquals("01 01 6b 02 00 01 01", hex("Map(String, Array(Nullable(UInt8)))", "{\"k\":[1,null]}"));
    }

    @Test
    void shouldWriteDefaultsForNullAsDefault()
    {
        final EncoderOptions defaults = EncoderOptions.DEFAULTS.withNullAsDefault(true);
        assertEquals("00 00 00 00", hex("Int32", "null", defaults));
        assertEquals("00 00 00 00 00 00 00 00", hex("Float64", "null", defaults));
        assertEquals("00 00 00", hex("FixedString(3)", "null", defaults));
        assertEquals("00 00", hex("Date", "null", defaults));
        assertEquals("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", hex("UUID", "null", defaults));
        assertEquals("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", hex("Decimal(38, 2)", "null", defaults));
        assertEquals("00", hex("Bool", "null", defaults));
    }
}
