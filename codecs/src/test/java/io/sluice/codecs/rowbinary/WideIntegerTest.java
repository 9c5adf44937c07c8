package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sluice.codecs.testing.Buffers;

/**
 * Int128, UInt128, Int256 and UInt256 against the layout ClickHouse documents ("RowBinary" format page, "(U)Int128,
 * (U)Int256": little endian in 16 or 32 bytes, signed types in two's complement) and the ranges of its "Int | UInt
 * Types" page. The local server (18.16) predates these types, so every expected byte string is computed here,
 * independently of the encoder, with {@link BigInteger}: the value's two's complement in the type's width, reversed to
 * little endian. The conversion rules are those of the narrower integers (ConversionOracleTest, docs/codecs.md).
 */
class WideIntegerTest
{
    private static final BigInteger TWO = BigInteger.TWO;

    /** A wide type: its name, width in bytes and range. */
    private record Wide(String name, int bytes, BigInteger min, BigInteger max)
    {
        static Wide signed(final String name, final int bits)
        {
            return new Wide(name, bits / 8, TWO.pow(bits - 1).negate(), TWO.pow(bits - 1).subtract(BigInteger.ONE));
        }

        static Wide unsigned(final String name, final int bits)
        {
            return new Wide(name, bits / 8, BigInteger.ZERO, TWO.pow(bits).subtract(BigInteger.ONE));
        }

        boolean holds(final BigInteger v)
        {
            return v.compareTo(min) >= 0 && v.compareTo(max) <= 0;
        }
    }

    private static final List<Wide> TYPES = List.of(Wide.signed("Int128", 128), Wide.unsigned("UInt128", 128),
        Wide.signed("Int256", 256), Wide.unsigned("UInt256", 256));

    /** The expected bytes: two's complement in {@code bytes} bytes, least significant first, as hex. */
    static String expected(final BigInteger value, final int bytes)
    {
        final BigInteger modulus = TWO.pow(bytes * 8);
        final byte[] big = value.mod(modulus).add(modulus).toByteArray(); // a leading 0x01 byte, then bytes bytes
        final byte[] little = new byte[bytes];
        for (int i = 0; i < bytes; i++)
        {
            little[i] = big[big.length - 1 - i];
        }
        return Buffers.hex(little);
    }

    /** What the encoder gives: hex, or the name of the conversion error. */
    private static String actual(final String type, final String json)
    {
        return DocumentedConversionsTest.encode(type, json, EncoderOptions.DEFAULTS);
    }

    private static String expectedOrRange(final Wide t, final BigInteger v)
    {
        return t.holds(v) ? expected(v, t.bytes()) : "OUT_OF_RANGE";
    }

    /** 0, 1, -1, the powers of two around every width's edges, each type's bounds and one past them. */
    private static List<BigInteger> edges()
    {
        final List<BigInteger> values = new ArrayList<>();
        values.add(BigInteger.ZERO);
        values.add(BigInteger.ONE);
        values.add(BigInteger.ONE.negate());
        for (final int bits : new int[]{7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 257})
        {
            final BigInteger p = TWO.pow(bits);
            for (final BigInteger v : List.of(p.subtract(BigInteger.ONE), p, p.add(BigInteger.ONE)))
            {
                values.add(v);
                values.add(v.negate());
            }
        }
        for (final Wide t : TYPES)
        {
            values.add(t.min());
            values.add(t.max());
            values.add(t.min().subtract(BigInteger.ONE));
            values.add(t.max().add(BigInteger.ONE));
        }
        return values;
    }

    @Test
    void shouldWriteEveryEdgeValueAsNumberAndAsStringOrRefuseItOutOfRange()
    {
        final List<String> failures = new ArrayList<>();
        int checked = 0;
        for (final Wide t : TYPES)
        {
            for (final BigInteger v : edges())
            {
                final String want = expectedOrRange(t, v);
                for (final String json : List.of(v.toString(), "\"" + v + "\""))
                {
                    final String got = actual(t.name(), json);
                    checked++;
                    if (!want.equals(got))
                    {
                        failures.add(t.name() + " <- " + json + ": expected " + want + ", got " + got);
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(checked > 500, "checked " + checked);
    }

    @Test
    void shouldWriteTheDocumentedBoundsByteForByte()
    {
        // spelled out once, so that a mistake shared by the encoder and expected() would still show
        assertEquals("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 80",
            actual("Int128", "-170141183460469231731687303715884105728"));
        assertEquals("ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff 7f",
            actual("Int128", "170141183460469231731687303715884105727"));
        assertEquals("ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff", actual("Int128", "-1"));
        assertEquals("ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff",
            actual("UInt128", "340282366920938463463374607431768211455"));
        assertEquals("00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00", actual("UInt128", "18446744073709551616"));
        assertEquals("00 00 00 00 00 00 00 80 00 00 00 00 00 00 00 00", actual("Int128", "9223372036854775808"));
        assertEquals("00 ".repeat(31) + "80", actual("Int256",
            "-57896044618658097711785492504343953926634992332820282019728792003956564819968"));
        assertEquals("ff ".repeat(31) + "7f", actual("Int256",
            "57896044618658097711785492504343953926634992332820282019728792003956564819967"));
        assertEquals(("ff ".repeat(32)).trim(), actual("UInt256",
            "115792089237316195423570985008687907853269984665640564039457584007913129639935"));
        assertEquals("OUT_OF_RANGE", actual("UInt256",
            "115792089237316195423570985008687907853269984665640564039457584007913129639936"));
        assertEquals("OUT_OF_RANGE", actual("Int256",
            "-57896044618658097711785492504343953926634992332820282019728792003956564819969"));
        assertEquals("01" + " 00".repeat(15), actual("Int128", "1"));
        assertEquals(("00 ".repeat(32)).trim(), actual("UInt256", "0"));
    }

    @Test
    void shouldReadNumberTextByTheRulesOfTheNarrowerIntegers()
    {
        for (final Wide t : TYPES)
        {
            final String name = t.name();
            // the same outcome as UInt64 for every spelling: the rule is shared, only the range differs
            for (final String json : List.of("1e3", "\"1e3\"", "1.5e1", "5.0", "\"5.0\"", "10e-1", "1000e-3", "0.0e5",
                "-0", "\"-0\"", "0e999999999", "1.5", "\"1.5\"", "1e-1", "\"+1\"", "\" 1\"", "\"1 \"", "\"0x10\"",
                "\"01\"", "\"\"", "\"-\"", "\"1e\"", "\"1.\"", "\".5\"", "\"one\"", "\"١\"", "true", "false", "null",
                "{}", "[]", "[1]", "\"\\u0031\\u0032\""))
            {
                final String narrow = actual("UInt64", json);
                final String wide = actual(name, json);
                final String expect = narrow.contains(" ") ? expected(value(json), t.bytes()) : narrow;
                assertEquals(expect, wide, name + " <- " + json + " (UInt64 gives " + narrow + ")");
            }
            assertEquals(expected(BigInteger.valueOf(1000), t.bytes()), actual(name, "1e3"));
            assertEquals("NOT_AN_INTEGER", actual(name, "1.5"));
            assertEquals("NOT_A_NUMBER", actual(name, "\"+1\""));
            assertEquals("NOT_A_NUMBER", actual(name, "\"0x10\""));
            assertEquals("NOT_A_NUMBER", actual(name, "\" 1\""));
            assertEquals(expected(BigInteger.ONE, t.bytes()), actual(name, "true"));
            assertEquals("NULL_NOT_ALLOWED", actual(name, "null"));
            assertEquals("MISSING_NOT_ALLOWED", actual(name, null));
            assertEquals("WRONG_KIND", actual(name, "{}"));
        }
    }

    private static BigInteger value(final String json)
    {
        final String text = json.replace("\"", "").replace("\\u0031\\u0032", "12");
        if (json.equals("true") || json.equals("false"))
        {
            return json.equals("true") ? BigInteger.ONE : BigInteger.ZERO;
        }
        final java.math.BigDecimal d = new java.math.BigDecimal(text);
        // a zero with a huge exponent (0e999999999) is zero; toBigIntegerExact would scale it first
        return d.signum() == 0 ? BigInteger.ZERO : d.toBigIntegerExact();
    }

    @Test
    void shouldTakeTheLongestDigitRunsAndExponentsAtTheEdges()
    {
        final List<String> failures = new ArrayList<>();
        for (final Wide t : TYPES)
        {
            for (final BigInteger v : List.of(t.max(), t.min(), t.max().add(BigInteger.ONE),
                t.min().subtract(BigInteger.ONE), TWO.pow(127), TWO.pow(127).subtract(BigInteger.ONE)))
            {
                if (v.signum() == 0)
                {
                    continue; // UInt's min: 0 has no leading-zero spellings in JSON (zero is checked below)
                }
                final String want = expectedOrRange(t, v);
                final String digits = v.toString();
                // the same value as a fraction with 40 trailing zeros, shifted by an exponent, with many zeros
                final String[] spellings = {digits + ".0000000000000000000000000000000000000000",
                    "\"" + digits + ".000\"", digits.charAt(0) == '-'
                        ? "-0." + digits.substring(1) + "e" + (digits.length() - 1)
                        : "0." + digits + "e" + digits.length(),
                    digits + "00000e-5", digits + "0".repeat(200) + "e-200"};
                for (final String json : spellings)
                {
                    final String got = actual(t.name(), json);
                    if (!want.equals(got))
                    {
                        failures.add(t.name() + " <- " + json + ": expected " + want + ", got " + got);
                    }
                }
            }
            // powers of ten written as exponents: 10^38 passes Int128 and UInt128, 10^77 fits UInt256 but not Int256
            for (int e = 36; e <= 79; e++)
            {
                final BigInteger v = BigInteger.TEN.pow(e);
                assertEquals(expectedOrRange(t, v), actual(t.name(), "1e" + e), t.name() + " <- 1e" + e);
                assertEquals(expectedOrRange(t, v.negate()), actual(t.name(), "-1e" + e), t.name() + " <- -1e" + e);
            }
            assertEquals("OUT_OF_RANGE", actual(t.name(), "1e1000000000"), "an exponent past the accumulator");
            assertEquals("OUT_OF_RANGE", actual(t.name(), "9".repeat(500)), "500 digits");
            assertEquals(expected(BigInteger.ZERO, t.bytes()), actual(t.name(), "0." + "0".repeat(300) + "e300"));
            assertEquals("NOT_AN_INTEGER", actual(t.name(), "1." + "0".repeat(30) + "1"));
            assertEquals("NOT_AN_INTEGER", actual(t.name(), "-" + t.max().divide(BigInteger.valueOf(100)) + ".5"));
            // as for the narrower integers at 2^64 (docs/codecs.md), a significand of 2^128 or more (2^256 for the
            // 256-bit types) is OUT_OF_RANGE even when the value has a fraction
            final int bits = t.bytes() * 8;
            assertEquals("OUT_OF_RANGE", actual(t.name(), "0." + TWO.pow(bits)), "significand 2^" + bits);
            assertEquals("NOT_AN_INTEGER", actual(t.name(), "0." + TWO.pow(bits).subtract(BigInteger.ONE)),
                "significand 2^" + bits + " - 1");
            assertEquals("OUT_OF_RANGE", actual(t.name(), "1." + "0".repeat(100) + "1"));
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertEquals("OUT_OF_RANGE", actual("Int256", "1e77"));
        assertEquals(expected(BigInteger.TEN.pow(77), 32), actual("UInt256", "1e77"));
    }

    @Test
    void shouldAgreeWithBigIntegerOnRandomValuesAndSpellings()
    {
        final Random random = new Random(20261204L);
        final List<String> failures = new ArrayList<>();
        for (int i = 0; i < 10_000; i++)
        {
            final Wide t = TYPES.get(random.nextInt(TYPES.size()));
            BigInteger v = new BigInteger(random.nextInt(260), random);
            if (random.nextBoolean())
            {
                v = v.negate();
            }
            final String digits = v.toString();
            final String json;
            switch (random.nextInt(4))
            {
                case 0 -> json = digits;
                case 1 -> json = "\"" + digits + "\"";
                case 2 -> {
                    // v * 10^k written with k trailing zeros moved into an exponent
                    final int k = v.signum() == 0 ? 0 : random.nextInt(5);
                    json = digits + "0".repeat(k) + "e-" + k;
                }
                default -> {
                    // a point inside the digits and the exponent that moves it back
                    final String magnitude = v.abs().toString();
                    final int at = 1 + random.nextInt(magnitude.length());
                    final String fraction = at == magnitude.length() ? "0" : magnitude.substring(at);
                    json = (v.signum() < 0 ? "-" : "") + magnitude.substring(0, at) + "." + fraction + "E+"
                        + (magnitude.length() - at);
                }
            }
            final String want = expectedOrRange(t, v);
            final String got = actual(t.name(), json);
            if (!want.equals(got))
            {
                failures.add(t.name() + " <- " + json + ": expected " + want + ", got " + got);
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " disagreements, first: " + failures.subList(0,
            Math.min(10, failures.size())));
    }

    @Test
    void shouldBeWrappedWhereTheOtherIntegersAre()
    {
        final String max128 = "340282366920938463463374607431768211455";
        assertEquals("01", actual("Nullable(Int128)", "null"));
        assertEquals("00 " + expected(BigInteger.ONE.negate(), 16), actual("Nullable(Int128)", "-1"));
        assertEquals(expected(BigInteger.TWO.pow(64), 32), actual("LowCardinality(UInt256)",
            "\"18446744073709551616\""));
        assertEquals("00 " + expected(BigInteger.TEN, 32), actual("LowCardinality(Nullable(Int256))", "10"));
        assertEquals("02 " + expected(BigInteger.ONE, 16) + " " + expected(new BigInteger(max128), 16),
            actual("Array(UInt128)", "[1, \"" + max128 + "\"]"));
        assertEquals("OUT_OF_RANGE", actual("Array(UInt128)", "[1, -1]"));
        // Map keys are JSON strings, read as numeric strings
        assertEquals("01 " + expected(new BigInteger(max128), 16) + " " + expected(BigInteger.TWO.negate(), 32),
            actual("Map(UInt128, Int256)", "{\"" + max128 + "\": -2}"));
        assertEquals("OUT_OF_RANGE", actual("Map(UInt128, Int256)", "{\"" + max128 + "0\": 1}"));
        assertEquals(expected(BigInteger.valueOf(7), 16) + " 01 78", actual("Tuple(a Int128, b String)",
            "{\"a\":7,\"b\":\"x\"}"));
        for (final String type : List.of("Int128", "UInt128", "Int256", "UInt256"))
        {
            assertEquals(type, ClickHouseType.parse(type).toString());
            assertEquals("Array(Nullable(" + type + "))", ClickHouseType.parse("Array( Nullable(" + type + ") )")
                .toString());
        }
    }

    @Test
    void shouldWriteZeroForNullAndMissingWithTheDefaultOptions()
    {
        final EncoderOptions defaults = EncoderOptions.DEFAULTS.withNullAsDefault(true).withMissingAsDefault(true);
        for (final Wide t : TYPES)
        {
            final String zero = expected(BigInteger.ZERO, t.bytes());
            assertEquals(zero, DocumentedConversionsTest.encode(t.name(), "null", defaults));
            assertEquals(zero, DocumentedConversionsTest.encode(t.name(), null, defaults));
        }
    }

    @Test
    void shouldNameTheColumnTypeAndValueOfARefusedValue()
    {
        final String past = "340282366920938463463374607431768211456";
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> JsonToRowBinary.encode("UInt128", past));
        assertEquals("column 'value' (UInt128): value out of range for the column type (" + past + ")",
            e.getMessage());
    }

    @Test
    void shouldStillRefuseTheWideTypesItDoesNotWrite()
    {
        for (final String type : List.of("Decimal256(2)", "Decimal(76, 0)", "Decimal(39, 0)", "Int512", "BFloat16"))
        {
            assertThrows(IllegalArgumentException.class, () -> ClickHouseType.parse(type), type);
        }
    }
}
