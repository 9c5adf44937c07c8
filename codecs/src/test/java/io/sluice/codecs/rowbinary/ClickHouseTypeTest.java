package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClickHouseTypeTest
{
    private static void assertCanonical(final String text, final String canonical)
    {
        final ClickHouseType type = ClickHouseType.parse(text);
        assertEquals(canonical, type.toString(), text);
        assertEquals(type, ClickHouseType.parse(canonical), "canonical text parses to the same type");
    }

    @Test
    void shouldParseClickHouseSpellings()
    {
        assertCanonical("Nullable(String)", "Nullable(String)");
        assertCanonical("LowCardinality( Nullable( String ) )", "LowCardinality(Nullable(String))");
        assertCanonical("DateTime('UTC')", "DateTime('UTC')");
        assertCanonical("DateTime", "DateTime");
        assertCanonical("DateTime64(3, 'Europe/Berlin')", "DateTime64(3, 'Europe/Berlin')");
        assertCanonical("Decimal(18,4)", "Decimal(18, 4)");
        assertCanonical("Decimal64(4)", "Decimal(18, 4)");
        assertCanonical("Decimal32(2)", "Decimal(9, 2)");
        assertCanonical("Decimal128(10)", "Decimal(38, 10)");
        assertCanonical("Decimal(5)", "Decimal(5, 0)");
        assertCanonical("Enum8('a' = 1, 'b' = 2)", "Enum8('a' = 1, 'b' = 2)");
        assertCanonical("Enum16('it''s' = -3)", "Enum16('it\\'s' = -3)");
        assertCanonical("Enum8('a', 'b')", "Enum8('a' = 1, 'b' = 2)");
        assertCanonical("Array(Tuple(String, UInt8))", "Array(Tuple(String, UInt8))");
        assertCanonical("Tuple(a String, b Nullable(UInt8))", "Tuple(a String, b Nullable(UInt8))");
        assertCanonical("Map(String, UInt64)", "Map(String, UInt64)");
        assertCanonical("FixedString(16)", "FixedString(16)");
        assertCanonical("Boolean", "Bool");
        assertCanonical("UUID", "UUID");
        assertCanonical("Date32", "Date32");
    }

    @Test
    void shouldExposeParameters()
    {
        final ClickHouseType dt = ClickHouseType.parse("DateTime64(6, 'Asia/Tokyo')");
        assertEquals(ClickHouseType.Kind.DATETIME64, dt.kind());
        assertEquals(6, dt.precision());
        assertEquals("Asia/Tokyo", dt.timeZone());
        final ClickHouseType decimal = ClickHouseType.parse("Decimal(20, 3)");
        assertEquals(20, decimal.precision());
        assertEquals(3, decimal.scale());
        assertEquals(16, decimal.decimalBytes());
        assertEquals(4, ClickHouseType.parse("Decimal(9, 3)").decimalBytes());
        assertEquals(8, ClickHouseType.parse("Decimal(10, 3)").decimalBytes());
        assertTrue(ClickHouseType.parse("Nullable(Int8)").isNullable());
        assertTrue(ClickHouseType.parse("LowCardinality(Nullable(String))").isNullable());
        assertFalse(ClickHouseType.parse("Array(Nullable(Int8))").isNullable());
        final ClickHouseType map = ClickHouseType.parse("Map(String, Array(UInt8))");
        assertEquals(ClickHouseType.Kind.ARRAY, map.nested(1).kind());
        assertEquals(16, ClickHouseType.parse("FixedString(16)").fixedLength());
        final ClickHouseType enumType = ClickHouseType.parse("Enum8('a' = 1, 'b' = 2)");
        assertEquals("b", enumType.enumNames().get(1));
        assertEquals(2, enumType.enumValue(1));
    }

    @Test
    void shouldRejectBadTypesNamingTextAndPosition()
    {
        for (final String bad : new String[]{"", "Strin", "Nullable(Array(UInt8))", "Nullable(Nullable(Int8))",
            "Array(UInt8", "DateTime64(10)", "Decimal(39, 2)", "Decimal(5, 6)", "FixedString(0)",
            "DateTime('Mars/Base')", "Enum8('a' = 1, 'a' = 2)", "Enum8('a' = 200)", "Map(Nullable(String), UInt8)",
            "UInt8 junk", "Decimal256(2)", "IPv4", "Tuple(a String, UInt8)"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> ClickHouseType.parse(bad), bad);
            assertTrue(ex.getMessage().contains("'" + bad + "'") && ex.getMessage().contains("position"),
                ex.getMessage());
        }
    }
}
