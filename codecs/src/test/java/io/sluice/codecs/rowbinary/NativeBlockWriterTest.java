package io.sluice.codecs.rowbinary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Native blocks from RowBinary rows, byte for byte. The expected blocks were produced by ClickHouse 18.16.1 itself:
 * the same values inserted into a Log table with VALUES and read back with {@code SELECT * FORMAT Native} (the
 * statements are in docs/schema-changes.md). LowCardinality, Map and the types 18.16 lacks are checked against the
 * layout ClickHouse documents (and LowCardinality on the real server by the sink's NativeInsertIT).
 */
class NativeBlockWriterTest
{
    /** Encodes rows of JSON values (one list per row, a null entry is a missing value) and rewrites them. */
    private static String block(final List<String> names, final List<String> types, final List<List<String>> rows)
    {
        final Bytes<?> rowBinary = Bytes.allocateElasticOnHeap(256);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(256);
        try (NativeBlockWriter writer = new NativeBlockWriter(names, types))
        {
            for (final List<String> row : rows)
            {
                for (int c = 0; c < types.size(); c++)
                {
                    rowBinary.write(JsonToRowBinary.encode(types.get(c), row.get(c)));
                }
            }
            writer.writeBlock(rowBinary, 0, rowBinary.writePosition(), rows.size(), out);
            final byte[] bytes = new byte[(int)out.writePosition()];
            out.read(bytes);
            return HexFormat.of().formatHex(bytes);
        }
        finally
        {
            rowBinary.releaseLast();
            out.releaseLast();
        }
    }

    private static List<String> row(final String... values)
    {
        final List<String> row = new ArrayList<>();
        for (final String v : values)
        {
            row.add(v);
        }
        return row;
    }

    @Test
    void shouldWriteScalarsAsTheServerDoes()
    {
        assertEquals("0503016105496e743332010000000200000003000000017306537472696e6701780002797a01750655496e743634"
            + "ffffffffffffffff00000000000000000700000000000000016607466c6f61743634000000000000f83f000000000000d0bf"
            + "0000000000000000016904496e7438ff7f00",
            block(List.of("a", "s", "u", "f", "i"), List.of("Int32", "String", "UInt64", "Float64", "Int8"),
                List.of(row("1", "\"x\"", "18446744073709551615", "1.5", "-1"), row("2", "\"\"", "0", "-0.25", "127"),
                    row("3", "\"yz\"", "7", "0", "0"))));
    }

    @Test
    void shouldWriteNullMapsThenValuesWithDefaultsUnderNulls()
    {
        assertEquals("0203016e0f4e756c6c61626c6528496e74333229000100010000000000000003000000026e73104e756c6c61626c65"
            + "28537472696e672900010001780000",
            block(List.of("n", "ns"), List.of("Nullable(Int32)", "Nullable(String)"),
                List.of(row("1", "\"x\""), row("null", null), row("3", "\"\""))));
    }

    @Test
    void shouldWriteArraysAsOffsetsThenElements()
    {
        assertEquals("0303036172720c417272617928496e74333229020000000000000002000000000000000300000000000000010000"
            + "00020000000300000002616e174172726179284e756c6c61626c6528537472696e67292902000000000000000200000000"
            + "0000000300000000000000010000000178017902616114417272617928417272617928537472696e6729290200000000"
            + "000000020000000000000003000000000000000100000000000000010000000000000003000000000000000161016201"
            + "63",
            block(List.of("arr", "an", "aa"),
                List.of("Array(Int32)", "Array(Nullable(String))", "Array(Array(String))"),
                List.of(row("[1,2]", "[null,\"x\"]", "[[\"a\"],[]]"), row("[]", "null", null),
                    row("[3]", "[\"y\"]", "[[\"b\",\"c\"]]"))));
    }

    @Test
    void shouldWriteTupleElementsAndFixedStrings()
    {
        assertEquals("0203027475145475706c6528496e7433322c20537472696e672901000000020000000300000001780179000266730e"
            + "4669786564537472696e67283229616261000000",
            block(List.of("tu", "fs"), List.of("Tuple(Int32, String)", "FixedString(2)"),
                List.of(row("[1,\"x\"]", "\"ab\""), row("[2,\"y\"]", "\"a\""), row("[3,\"\"]", "\"\""))));
    }

    @Test
    void shouldWriteDecimalUuidEnumDateAndDateTime()
    {
        assertEquals("0503036465630d446563696d616c28392c2032297d0000009cffffff000000000475756964045555494400000000"
            + "000000000100000000000000e711b35c04c4f061a0dbd36a00a67b90ffffffffffffffffffffffffffffffff02656e174"
            + "56e756d3828276127203d20312c20276227203d203229010201016404446174657f4e000008c20174084461746554696d"
            + "6569db7c67000000007fddceff",
            block(List.of("dec", "uuid", "en", "d", "t"),
                List.of("Decimal(9, 2)", "UUID", "Enum8('a' = 1, 'b' = 2)", "Date", "DateTime"),
                List.of(row("1.25", "\"00000000-0000-0000-0000-000000000001\"", "\"a\"", "\"2025-01-07\"",
                    "\"2025-01-07 07:44:41\""),
                    row("-1", "\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\"", "\"b\"", "\"1970-01-01\"",
                        "\"1970-01-01 00:00:00\""),
                    row("0", "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"", "\"a\"", "\"2105-12-31\"",
                        "\"2105-12-31 23:59:59\""))));
    }

    @Test
    void shouldWriteLowCardinalityAsADictionaryWithOneKeyPerRow()
    {
        // version 1; flags UInt8 indexes | HasAdditionalKeys | NeedUpdateDictionary; keys: default "", x, y, x;
        // 3 indexes 1 2 3
        assertEquals("0103" + "0173" + "164c6f7743617264696e616c69747928537472696e6729"
            + "0100000000000000" + "0006000000000000" + "0400000000000000" + "00" + "0178" + "0179" + "0178"
            + "0300000000000000" + "010203",
            block(List.of("s"), List.of("LowCardinality(String)"),
                List.of(row("\"x\""), row("\"y\""), row("\"x\""))));
        // nullable: keys NULL placeholder, default, then the values; a NULL row is index 0
        assertEquals("0102" + "0173" + "204c6f7743617264696e616c697479284e756c6c61626c6528537472696e672929"
            + "0100000000000000" + "0006000000000000" + "0300000000000000" + "00" + "00" + "0178"
            + "0200000000000000" + "0200",
            block(List.of("s"), List.of("LowCardinality(Nullable(String))"), List.of(row("\"x\""), row("null"))));
        // fixed-width keys
        assertEquals("0102" + "0175" + "164c6f7743617264696e616c6974792855496e74333229"
            + "0100000000000000" + "0006000000000000" + "0300000000000000" + "00000000" + "07000000" + "08000000"
            + "0200000000000000" + "0102",
            block(List.of("u"), List.of("LowCardinality(UInt32)"), List.of(row("7"), row("8"))));
    }

    @Test
    void shouldWidenLowCardinalityIndexesWithTheKeyCount()
    {
        final List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            rows.add(row("\"k" + i + "\""));
        }
        final String hex = block(List.of("s"), List.of("LowCardinality(String)"), rows);
        final String flags = hex.substring(hex.indexOf("0100000000000000") + 16).substring(0, 16);
        assertEquals("0106000000000000", flags, "301 keys need UInt16 indexes (type 1)");
        assertEquals("2c01", hex.substring(hex.length() - 4), "the last row's index, 300, little endian");
    }

    @Test
    void shouldPutLowCardinalityKeyVersionsBeforeAllDataOfAnArrayOrTuple()
    {
        // Array(LowCardinality(String)): [version][offsets][flags][keys][indexes]
        assertEquals("0101" + "0161" + "1d4172726179284c6f7743617264696e616c69747928537472696e672929"
            + "0100000000000000" + "0200000000000000" + "0006000000000000" + "0300000000000000" + "00" + "0161"
            + "0162" + "0200000000000000" + "0102",
            block(List.of("a"), List.of("Array(LowCardinality(String))"), List.of(row("[\"a\",\"b\"]"))));
    }

    @Test
    void shouldWriteMapsAsArraysOfKeyValueTuples()
    {
        // current releases serialize Map(K, V) as Array(Tuple(K, V)): offsets, keys column, values column
        assertEquals("0102" + "016d" + "124d617028537472696e672c2055496e743829" + "0200000000000000"
            + "0200000000000000" + "016b" + "016c" + "0102",
            block(List.of("m"), List.of("Map(String, UInt8)"), List.of(row("{\"k\":1,\"l\":2}"), row("{}"))));
    }

    @Test
    void shouldWriteTypesThatOnlyCurrentReleasesHave()
    {
        // fixed-width like their RowBinary values (RowBinaryGoldenTest): DateTime64(3) ticks, Bool, Date32 days
        assertEquals("0301" + "0174" + "0d4461746554696d653634283329" + "4614b93f94010000" + "0162"
            + "04426f6f6c" + "01" + "0164" + "06446174653332" + "219cffff",
            block(List.of("t", "b", "d"), List.of("DateTime64(3)", "Bool", "Date32"),
                List.of(row("\"2025-01-07T07:44:41.542Z\"", "true", "\"1900-01-01\""))));
    }

    /** A value's bytes: two's complement in {@code bytes} bytes, little endian, as hex (computed independently). */
    private static String wide(final String value, final int bytes)
    {
        return WideIntegerTest.expected(new BigInteger(value), bytes).replace(" ", "");
    }

    private static String text(final String s)
    {
        return HexFormat.of().formatHex(new byte[]{(byte)s.length()}) + HexFormat.of().formatHex(
            s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldWriteWideIntegersAsFixedWidthValuesInEveryWrapper()
    {
        // the Native format holds a fixed-width column's values one after another, each as RowBinary writes it:
        // Int128/UInt128 16 bytes, Int256/UInt256 32 bytes, little endian, two's complement (ClickHouse docs, Native
        // and RowBinary format pages)
        final String int128Min = "-170141183460469231731687303715884105728";
        final String uint256Max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assertEquals("0202" + text("a") + text("Int128") + wide(int128Min, 16) + wide("-1", 16)
            + text("b") + text("UInt256") + wide(uint256Max, 32) + wide("18446744073709551616", 32),
            block(List.of("a", "b"), List.of("Int128", "UInt256"),
                List.of(row(int128Min, "\"" + uint256Max + "\""), row("-1", "18446744073709551616"))));
        // Nullable: null map, then the values with zeros under the NULL
        assertEquals("0102" + text("n") + text("Nullable(Int256)") + "0100" + wide("0", 32) + wide("-2", 32),
            block(List.of("n"), List.of("Nullable(Int256)"), List.of(row("null"), row("-2"))));
        // Array: cumulative offsets as UInt64, then the elements
        assertEquals("0102" + text("r") + text("Array(UInt128)") + "0200000000000000" + "0200000000000000"
            + wide("1", 16) + wide("2", 16),
            block(List.of("r"), List.of("Array(UInt128)"), List.of(row("[1,2]"), row("[]"))));
        // Map(UInt128, Int128) as Array(Tuple(K, V)): offsets, the keys' column, the values' column
        assertEquals("0101" + text("m") + text("Map(UInt128, Int128)") + "0200000000000000" + wide("7", 16)
            + wide("8", 16) + wide("-7", 16) + wide("-8", 16),
            block(List.of("m"), List.of("Map(UInt128, Int128)"), List.of(row("{\"7\":-7,\"8\":-8}"))));
        // LowCardinality: version, flags (UInt8 indexes | 0x600), 3 keys (the default first), 2 indexes
        assertEquals("0102" + text("l") + text("LowCardinality(Int128)") + "0100000000000000" + "0006000000000000"
            + "0300000000000000" + wide("0", 16) + wide("5", 16) + wide("-5", 16) + "0200000000000000" + "0102",
            block(List.of("l"), List.of("LowCardinality(Int128)"), List.of(row("5"), row("-5"))));
    }

    @Test
    void shouldRefuseRowsThatDoNotMatchTheColumns()
    {
        final Bytes<?> rows = Bytes.allocateElasticOnHeap(16);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(16);
        try (NativeBlockWriter writer = new NativeBlockWriter(List.of("a", "s"), List.of("Int32", "String")))
        {
            rows.write(new byte[]{1, 0, 0, 0, 5, 'a'});
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> writer.writeBlock(rows, 0, rows.writePosition(), 1, out));
            assertEquals("row 0 column s: the RowBinary bytes end early or are not String", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> writer.writeBlock(rows, 0, 4, 2, out));
            assertThrows(IllegalArgumentException.class, () -> writer.writeBlock(rows, 0, 6, 0, out));
        }
        finally
        {
            rows.releaseLast();
            out.releaseLast();
        }
        assertThrows(IllegalArgumentException.class, () -> new NativeBlockWriter(List.of("a"), List.of()));
    }
}
