package io.sluice.sinks.clickhouse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;

/**
 * The Nested rules of the JSON encoder (issue 25 item 1): what ClickHouse refuses for a whole block
 * (SIZES_OF_ARRAYS_DOESNT_MATCH) is found per record, a member without a value is filled to its siblings' length,
 * and a Nested value is read from keys with dots or from the members of an object, never silently as empty arrays.
 */
class NestedColumnsTest
{
    private final PathRegistry paths = new PathRegistry(64, DuplicateKeys.FAIL);
    private final JsonRecord record = new JsonRecord(paths);
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
    private final Bytes<Void> out = Bytes.allocateElasticDirect(256);

    private RowEncoder.Bound<JsonRecord> bind(final Map<String, String> mapped, final ColumnSpec... columns)
        throws Exception
    {
        final ClickHouseJsonRowEncoder encoder = new ClickHouseJsonRowEncoder("b", mapped, record.scope(),
            EncoderOptions.DEFAULTS,
            new EncodeScratch(1 << 12), false);
        return encoder.bind(new TableSchema("db", "t", List.of(columns)),
            new StubCatalog(Map.of("[7, 8]", "[7,8]", "0", "0"), "UTC", false));
    }

    /** The table of the issue: {@code t(id UInt32, n Nested(a UInt8, b String))} as DESCRIBE shows it. */
    private RowEncoder.Bound<JsonRecord> issueTable() throws Exception
    {
        return bind(Map.of(), column("id", "UInt32"), column("n.a", "Array(UInt8)"), column("n.b", "Array(String)"));
    }

    private String encode(final RowEncoder.Bound<JsonRecord> bound, final String json)
    {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        event.beginRecord(null, b.length + 64, 0, 0, 0L, 0L, 0, 1);
        event.putValue(b);
        event.putKey((byte[])null);
        out.clear();
        final JsonRecord r = record.decode(event);
        return r == null ? record.error() : bound.encode(r, out);
    }

    private String hex()
    {
        final byte[] bytes = new byte[(int)out.writePosition()];
        out.read(bytes);
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }

    private static ColumnSpec column(final String name, final String type)
    {
        return new ColumnSpec(name, type, "", "");
    }

    @Test
    void shouldRefuseARecordWhoseNestedArraysDifferInLengthNamingGroupColumnsAndLengths() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = issueTable();
        final String e = encode(t, "{\"id\":1,\"n.a\":[1,2],\"n.b\":[\"x\"]}");
        assertTrue(e != null && e.startsWith("column n.b (Array(String)) from path n\\.b: Nested n: n.b has 1 "
            + "element(s) but n.a has 2;") && e.contains("190"), e);
        final String longer = encode(t, "{\"id\":1,\"n.a\":[],\"n.b\":[\"x\",\"y\",\"z\"]}");
        assertTrue(longer != null && longer.contains("n.b has 3 element(s) but n.a has 0"), longer);
        // equal lengths of several sizes, empty on both sides
        for (int size = 0; size <= 5; size++)
        {
            final StringBuilder a = new StringBuilder();
            final StringBuilder b = new StringBuilder();
            for (int i = 0; i < size; i++)
            {
                a.append(i == 0 ? "" : ",").append(i);
                b.append(i == 0 ? "" : ",").append('"').append(i).append('"');
            }
            assertNull(encode(t, "{\"id\":1,\"n.a\":[" + a + "],\"n.b\":[" + b + "]}"), "size " + size);
        }
        assertNull(encode(t, "{\"id\":1,\"n.a\":[7],\"n.b\":[\"z\"]}"));
        assertEquals("01 00 00 00 01 07 01 01 7a", hex());
    }

    /** The rule for a missing sibling: the element type's default, as often as the sibling has elements. */
    @Test
    void shouldFillAMemberWithoutAValueToItsSiblingsLength() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = issueTable();
        assertNull(encode(t, "{\"id\":1,\"n.a\":[1,2]}"));
        assertEquals("01 00 00 00 02 01 02 02 00 00", hex(), "n.b = ['','']");
        // the first member missing: the length comes from the later one
        assertNull(encode(t, "{\"id\":1,\"n.b\":[\"x\",\"y\",\"z\"]}"));
        assertEquals("01 00 00 00 03 00 00 00 03 01 78 01 79 01 7a", hex(), "n.a = [0,0,0]");
        assertNull(encode(t, "{\"id\":1,\"n.a\":null,\"n.b\":[\"x\"]}"));
        assertEquals("01 00 00 00 01 00 01 01 78", hex(), "null is filled as absent");
        assertNull(encode(t, "{\"id\":1}"));
        assertEquals("01 00 00 00 00 00", hex(), "no member: both empty");
        // Nullable elements default to NULL; an Array element to the empty array
        final RowEncoder.Bound<JsonRecord> x = bind(Map.of(), column("x.p", "Array(Nullable(UInt8))"),
            column("x.q", "Array(Array(UInt8))"), column("x.r", "Array(LowCardinality(String))"));
        assertNull(encode(x, "{\"x.q\":[[1],[]]}"));
        assertEquals("02 01 01 02 01 01 00 02 00 00", hex());
    }

    @Test
    void shouldReadTheNestedObjectFormAsClickHouseDoesWithImportNestedJson() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = issueTable();
        assertNull(encode(t, "{\"id\":1,\"n\":{\"a\":[7],\"b\":[\"z\"]}}"));
        assertEquals("01 00 00 00 01 07 01 01 7a", hex(), "never a row of empty arrays");
        // mixed: one member as a key with a dot, the other in the object
        assertNull(encode(t, "{\"id\":1,\"n.a\":[7],\"n\":{\"b\":[\"z\"]}}"));
        assertEquals("01 00 00 00 01 07 01 01 7a", hex());
        // the object form is checked as the key form is
        final String mismatch = encode(t, "{\"id\":1,\"n\":{\"a\":[7,8],\"b\":[\"z\"]}}");
        assertTrue(mismatch != null && mismatch.contains("from path n.b: Nested n: n.b has 1 element(s) but n.a "
            + "has 2"), mismatch);
        assertNull(encode(t, "{\"id\":1,\"n\":{\"a\":[7,8]}}"));
        assertEquals("01 00 00 00 02 07 08 02 00 00", hex(), "a missing member of the object is filled too");
        final String twice = encode(t, "{\"id\":1,\"n.a\":[1],\"n\":{\"a\":[2]}}");
        assertTrue(twice != null && twice.contains("given twice, at n\\.a and at n.a"), twice);
        assertNull(encode(t, "{\"id\":1,\"n\":null}"));
        assertEquals("01 00 00 00 00 00", hex(), "a null object: its members are absent");
    }

    @Test
    void shouldRefuseAGroupKeyThatIsNoObjectRatherThanWriteEmptyArrays() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = issueTable();
        final String array = encode(t, "{\"id\":1,\"n\":[{\"a\":1,\"b\":\"x\"}]}");
        assertTrue(array != null && array.contains("\"n\": value is a JSON array, not an object")
            && array.contains("(n.a, n.b)") && array.startsWith("column n.a (Array(UInt8)) from path n: "), array);
        final String string = encode(t, "{\"id\":1,\"n\":\"x\"}");
        assertTrue(string != null && string.contains("JSON string"), string);
    }

    /** Scalar columns with dots: read from either form; a column named like the prefix keeps its key. */
    @Test
    void shouldReadAnyDottedColumnFromNestedObjectsUnlessThePrefixIsAColumn() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = bind(Map.of(), column("user.id", "UInt32"),
            column("a.b.c", "UInt8"));
        assertNull(encode(t, "{\"user\":{\"id\":5},\"a\":{\"b\":{\"c\":1}}}"));
        assertEquals("05 00 00 00 01", hex());
        assertNull(encode(t, "{\"user.id\":6,\"a.b\":{\"c\":2}}"));
        assertEquals("06 00 00 00 02", hex());
        assertNull(encode(t, "{\"user\":{\"id\":7},\"a\":{\"b.c\":3}}"));
        assertEquals("07 00 00 00 03", hex());
        final RowEncoder.Bound<JsonRecord> withPrefix = bind(Map.of(), column("n", "String"),
            column("n.a", "Nullable(UInt8)"));
        assertNull(encode(withPrefix, "{\"n\":{\"a\":1}}"));
        assertEquals("07 7b 22 61 22 3a 31 7d 01", hex(), "n.a is not read from the column n's object");
        final Set<String> top = new HashSet<>();
        assertEquals(List.of("a.b\\.c", "a\\.b.c", "a.b.c"), NestedColumns.otherForms("a.b.c", Set.of(), top));
        assertEquals(Set.of("a", "a.b"), top);
        assertEquals(List.of("a.b\\.c"), NestedColumns.otherForms("a.b.c", Set.of("a.b"), new HashSet<>()));
        assertEquals(List.of(), NestedColumns.otherForms("a.0", Set.of(), new HashSet<>()));
    }

    /**
     * Only {@code identifier.identifier} Array columns form groups (18.16's {@code Nested::splitName}): a name with
     * more dots, or a part that is no identifier, is neither checked against a sibling nor filled to its length, as
     * 18.16 stores it (table t8 of NestedAndRefusedRecordsIT); its other forms are still read.
     */
    @Test
    void shouldGroupOnlyIdentifierDotIdentifierNamesAsClickHouse1816Does() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = bind(Map.of(), column("id", "UInt32"),
            column("x.y.z", "Array(UInt8)"), column("x.y.w", "Array(String)"),
            new ColumnSpec("x.q", "UInt8", "DEFAULT", "0"),
            column("x.r", "Array(UInt8)"));
        assertNull(encode(t, "{\"id\":2,\"x.y.z\":[1,2],\"x.r\":[1]}"), "x.y.z is in no group");
        assertEquals("02 00 00 00 02 01 02 00 00 01 01", hex());
        assertNull(encode(t, "{\"id\":7,\"x.y.z\":[1],\"x.q\":5}"));
        assertEquals("07 00 00 00 01 01 00 05 00", hex(), "x.y.w = [] and x.r = [], not [''] and [0]");
        assertNull(encode(t, "{\"id\":8,\"x\":{\"y\":{\"z\":[3]}},\"x.r\":[4,5]}"), "the object form is read");
        assertEquals("08 00 00 00 01 03 00 00 02 04 05", hex());
        // x.r is still a group of one (x.r alone: filled to 0); two single-dot members are still checked
        final RowEncoder.Bound<JsonRecord> u = bind(Map.of(), column("x.y.z", "Array(UInt8)"),
            column("x.a", "Array(UInt8)"), column("x.b", "Array(UInt8)"), column("x.1c", "Array(UInt8)"),
            column("x-y.a", "Array(UInt8)"));
        final String e = encode(u, "{\"x.a\":[1,2],\"x.b\":[1]}");
        assertTrue(e != null && e.contains("Nested x: x.b has 1 element(s) but x.a has 2"), e);
        assertNull(encode(u, "{\"x.y.z\":[9,9,9],\"x.b\":[1],\"x.1c\":[1,2],\"x-y.a\":[1,2,3]}"));
        assertEquals("03 09 09 09 01 00 01 01 02 01 02 03 01 02 03", hex(), "x.a filled to x.b's length only");
        assertTrue(NestedColumns.groupable("n.a") && NestedColumns.groupable("_n.a_1"));
        for (final String name : List.of("x.y.z", "n.1a", "1n.a", "n-x.a", "n.", ".a", "n", "n.a b", "n.é"))
        {
            assertTrue(!NestedColumns.groupable(name), name);
        }
    }

    /** A mapped member reads its mapping only, and a constant DEFAULT is checked against its siblings too. */
    @Test
    void shouldCheckMappedMembersAndConstantDefaults() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> t = bind(Map.of("n.a", "items"), column("n.a", "Array(UInt8)"),
            new ColumnSpec("n.b", "Array(UInt8)", "DEFAULT", "[7, 8]"));
        assertNull(encode(t, "{\"items\":[1,2]}"));
        assertEquals("02 01 02 02 07 08", hex());
        final String e = encode(t, "{\"items\":[1]}");
        assertTrue(e != null && e.contains("n.b has 2 element(s) but n.a has 1"), e);
        assertNull(encode(t, "{\"n\":{\"a\":[1,2,3]},\"items\":[5,6]}"), "n.a is mapped: the object is not read");
    }

    /**
     * The rules cost no allocation per record (the route stage's hot path), in every form; with
     * {@code unknown_fields = "fail"} the object's key is a known field.
     */
    @Test
    void shouldApplyTheRulesWithoutAllocatingAndKnowTheObjectsKey() throws Exception
    {
        final ClickHouseJsonRowEncoder encoder = new ClickHouseJsonRowEncoder("b", Map.of(), record.scope(),
            EncoderOptions.DEFAULTS,
            new EncodeScratch(1 << 12), true);
        final RowEncoder.Bound<JsonRecord> strict = encoder.bind(new TableSchema("db", "t", List.of(column("id",
            "UInt32"), column("n.a", "Array(UInt8)"), column("n.b", "Array(String)"))), new StubCatalog(Map.of(),
                "UTC", false));
        final String[] forms = {"{\"id\":1,\"n.a\":[1,2],\"n.b\":[\"x\",\"y\"]}",
            "{\"id\":2,\"n\":{\"a\":[7],\"b\":[\"z\"]}}", "{\"id\":3,\"n.b\":[\"p\",\"q\",\"r\"]}"};
        final String unknown = encode(strict, "{\"id\":1,\"m\":{\"a\":[1]}}");
        assertTrue(unknown != null && unknown.startsWith("unknown field \"m\""), unknown);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        for (int i = 0; i < 30_000; i++)
        {
            assertNull(encode(strict, forms[i % 3]));
        }
        final byte[][] bytes = new byte[3][];
        for (int i = 0; i < 3; i++)
        {
            bytes[i] = forms[i].getBytes(StandardCharsets.UTF_8);
        }
        final long start = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++)
        {
            final byte[] b = bytes[i % 3];
            event.beginRecord(null, b.length + 64, 0, 0, 0L, 0L, 0, 1);
            event.putValue(b);
            event.putKey((byte[])null);
            out.clear();
            if (strict.encode(record.decode(event), out) != null)
            {
                throw new AssertionError("failed");
            }
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - start;
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for 100,000 records");
    }
}
