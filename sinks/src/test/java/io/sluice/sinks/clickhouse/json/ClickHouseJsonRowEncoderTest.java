package io.sluice.sinks.clickhouse.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;

/**
 * Columns from the table: an omitted value takes the column's DEFAULT (a constant's bytes, or left out of the row
 * for the server to evaluate), then NULL when Nullable, else the record fails naming column and path; and the
 * {@code unknown_fields = "fail"} switch, which names the first top-level key no column reads and allocates nothing
 * while records pass.
 */
class ClickHouseJsonRowEncoderTest
{
    /** Constant defaults as ClickHouse's toString would answer them; a server time zone far from UTC. */
    private static final Map<String, String> DEFAULTS = Map.of("CAST(5, 'Nullable(UInt8)')", "\"5\"", "'x'", "\"x\"",
        "CAST(NULL, 'Nullable(String)')", "null");

    private static StubCatalog catalog(final boolean legacyDates)
    {
        return new StubCatalog(DEFAULTS, "Pacific/Kiritimati", legacyDates);
    }

    // first: the unknown-field records below repeat id as "\u0069d", which duplicate_keys = "fail" would refuse
    private final PathRegistry paths = new PathRegistry(64, DuplicateKeys.FIRST);
    private final JsonRecord record = new JsonRecord(paths);
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
    private final Bytes<Void> out = Bytes.allocateElasticDirect(256);

    private RowEncoder.Bound<JsonRecord> bind(final boolean failOnUnknown, final boolean nullAsDefault,
        final Map<String, String> paths, final ColumnSpec... columns) throws Exception
    {
        final ClickHouseJsonRowEncoder encoder = new ClickHouseJsonRowEncoder("b", paths, record.scope(),
            EncoderOptions.DEFAULTS.withNullAsDefault(nullAsDefault), new EncodeScratch(1 << 12), failOnUnknown);
        return encoder.bind(new TableSchema("db", "t", List.of(columns)), catalog(false));
    }

    /**
     * A ClickHouse 18.x server stores a Date or DateTime past 2105-12-31 but reads it back wrong (day 65535 as
     * 1970-01-01): against such a destination the encoders refuse those values, naming the column; against a current
     * one the same values are written (found by a hostile-input trial: dates past 2105 landed as wrong rows).
     */
    @Test
    void shouldRefuseDatesPast2105OnlyWhereTheServerReadsThemBackWrong() throws Exception
    {
        final ColumnSpec[] columns = {column("d", "Date"), column("dt", "DateTime")};
        final ClickHouseJsonRowEncoder encoder = new ClickHouseJsonRowEncoder("b", Map.of(), record.scope(),
            EncoderOptions.DEFAULTS,
            new EncodeScratch(1 << 12), false);
        final RowEncoder.Bound<JsonRecord> old = encoder.bind(new TableSchema("db", "t", List.of(columns)),
            catalog(true));
        assertNull(encode(old, "{\"d\":\"2105-12-31\",\"dt\":\"2105-12-31 23:59:59\"}"));
        final String date = encode(old, "{\"d\":\"2106-01-01\",\"dt\":0}");
        assertTrue(date != null && date.contains("column d (Date)") && date.contains("out of range"), date);
        final String time = encode(old, "{\"d\":0,\"dt\":4291747200}");
        assertTrue(time != null && time.contains("column dt (DateTime)"), time);
        final RowEncoder.Bound<JsonRecord> current = encoder.bind(new TableSchema("db", "t", List.of(columns)),
            catalog(false));
        assertNull(encode(current, "{\"d\":\"2149-06-06\",\"dt\":4291747200}"));
    }

    /** Encodes one record; returns the error, or null with the row in {@link #out}. */
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

    private byte[] row()
    {
        final byte[] bytes = new byte[(int)out.writePosition()];
        out.read(bytes);
        return bytes;
    }

    private static ColumnSpec column(final String name, final String type)
    {
        return new ColumnSpec(name, type, "", "");
    }

    private static ColumnSpec withDefault(final String name, final String type, final String expression)
    {
        return new ColumnSpec(name, type, "DEFAULT", expression);
    }

    /**
     * Case T5 and its kind: a DEFAULT only the server can evaluate ({@code cityHash64(id)}, {@code now()},
     * {@code today()}, {@code concat(...)}) is never written here; a record without the value sets the column's bit
     * in the row's omission mask (8 bytes, little endian, before the values) and writes nothing for it, so the
     * Native block the row goes into leaves the column out and the server evaluates the DEFAULT. Never NULL for a
     * Nullable one; a constant DEFAULT keeps its bytes; an explicit value or null is written as before.
     */
    @Test
    void shouldLeaveADefaultOnlyTheServerCanEvaluateOutOfTheRow() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(false, false, Map.of(), column("id", "UInt8"),
            withDefault("ts", "DateTime", "now()"), withDefault("h", "UInt64", "cityHash64(id)"),
            withDefault("hn", "Nullable(UInt64)", "CAST(cityHash64(id), 'Nullable(UInt64)')"),
            withDefault("s", "String", "'x'"), withDefault("d", "Date", "today()"));
        assertArrayEquals(new int[]{1, 2, 3, 5}, bound.omittableColumns(), "ts, h, hn, d: in column order");

        assertNull(encode(bound, "{\"id\":1}"));
        ByteBuffer row = ByteBuffer.wrap(row()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0b1111L, row.getLong(), "every server default left out");
        assertEquals(1, row.get());
        assertEquals(1, row.get(), "s: the constant DEFAULT 'x' is written");
        assertEquals('x', row.get());
        assertEquals(0, row.remaining(), "nothing written for ts, h, hn, d");

        assertNull(encode(bound, "{\"id\":2,\"ts\":\"2020-01-02 03:04:05\",\"h\":7,\"hn\":null,\"s\":\"y\","
            + "\"d\":3}"));
        row = ByteBuffer.wrap(row()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0L, row.getLong(), "nothing left out");
        assertEquals(2, row.get());
        assertEquals(1577934245L, Integer.toUnsignedLong(row.getInt()), "a value that is there is used");
        assertEquals(7L, row.getLong());
        assertEquals(1, row.get(), "an explicit null into a Nullable column is NULL, not the DEFAULT");
        assertEquals(1, row.get());
        assertEquals('y', row.get());
        assertEquals(3, row.getShort());
        assertEquals(0, row.remaining());

        assertNull(encode(bound, "{\"id\":3,\"h\":1,\"hn\":4}"));
        row = ByteBuffer.wrap(row()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0b1001L, row.getLong(), "ts and d left out, h and hn given");
        assertEquals(3, row.get());
        assertEquals(1L, row.getLong());
        assertEquals(0, row.get(), "hn: not null");
        assertEquals(4L, row.getLong());

        assertArrayEquals(new int[0], bind(false, false, Map.of(), column("id", "UInt8"),
            withDefault("s", "String", "'x'")).omittableColumns(), "constant defaults only: rows carry no mask");
    }

    /** More than 64 server-evaluated defaults cannot be told apart in one mask: refused at bind, naming the 65th. */
    @Test
    void shouldRefuseMoreThan64ServerDefaultsAtBindNamingTheColumn()
    {
        final ColumnSpec[] columns = new ColumnSpec[66];
        columns[0] = column("id", "UInt8");
        for (int i = 1; i < columns.length; i++)
        {
            columns[i] = withDefault("h" + i, "UInt64", "cityHash64(id, " + i + ")");
        }
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> bind(false, false, Map.of(), columns));
        assertTrue(e.getMessage().contains("db.t") && e.getMessage().contains("column h65")
            && e.getMessage().contains("cityHash64(id, 65)"), e.getMessage());
    }

    @Test
    void shouldPreferTheDefaultToNullThenNullThenFailNamingColumnAndPath() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(false, false, Map.of("name", "user.name"),
            withDefault("n", "Nullable(UInt8)", "CAST(5, 'Nullable(UInt8)')"), withDefault("s", "String", "'x'"),
            withDefault("ns", "Nullable(String)", "CAST(NULL, 'Nullable(String)')"),
            column("maybe", "Nullable(String)"),
            column("name", "String"));
        assertNull(encode(bound, "{\"user\":{\"name\":\"a\"}}"));
        assertArrayEquals(new byte[]{0, 5, 1, 'x', 1, 1, 1, 'a'}, row(),
            "DEFAULT 5, DEFAULT 'x', DEFAULT NULL, NULL, a");
        assertNull(encode(bound, "{\"n\":null,\"s\":\"y\",\"user\":{\"name\":\"b\"}}"));
        assertArrayEquals(new byte[]{1, 1, 'y', 1, 1, 1, 'b'}, row(), "an explicit null stays NULL");
        assertEquals("column name (String) from path user.name: " + ConversionError.describe(
            ConversionError.MISSING_NOT_ALLOWED), encode(bound, "{\"n\":1}"));
    }

    @Test
    void shouldNameTheValueAColumnCannotTake() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(false, false, Map.of(), column("n", "UInt8"),
            column("t", "DateTime"));
        assertEquals("column n (UInt8) from path n: value out of range for the column type (value -5)",
            encode(bound, "{\"n\":-5,\"t\":0}"));
        assertEquals("column t (DateTime) from path t: "
            + "not a valid date-time (ISO-8601, YYYY-MM-DD hh:mm:ss or an epoch number) (value \"yesterday\")",
            encode(bound, "{\"n\":1,\"t\":\"yesterday\"}"));
        final String long100 = "9".repeat(100);
        assertEquals("column n (UInt8) from path n: value out of range for the column type (value " + "9".repeat(96)
            + "...)", encode(bound, "{\"n\":" + long100 + ",\"t\":0}"), "at most 96 bytes of the value");
    }

    @Test
    void shouldWriteTheDefaultForANullOnlyWithNullAsDefaultAndOnlyWhereNullCannotBeStored() throws Exception
    {
        final ColumnSpec s = withDefault("s", "String", "'x'");
        final ColumnSpec n = withDefault("n", "Nullable(UInt8)", "CAST(5, 'Nullable(UInt8)')");
        assertTrue(
            encode(bind(false, false, Map.of(), s), "{\"s\":null}").startsWith("column s (String) from path s: "));
        assertNull(encode(bind(false, true, Map.of(), s, n), "{\"s\":null,\"n\":null}"));
        assertArrayEquals(new byte[]{1, 'x', 1}, row(), "the String takes its DEFAULT, the Nullable stays NULL");
    }

    @Test
    void shouldIgnoreUnknownFieldsByDefaultAndNameTheFirstOneWhenAskedTo() throws Exception
    {
        final ColumnSpec[] columns = {column("id", "UInt8"), column("user_id", "String"), column("a.b", "String"),
            new ColumnSpec("m", "String", "MATERIALIZED", "'z'")};
        final Map<String, String> mapped = Map.of("user_id", "user.id");
        final String record = "{\"id\":1,\"user\":{\"id\":\"u\",\"extra\":true},\"a.b\":\"c\",\"\\u0069d\":2}";
        assertNull(encode(bind(false, false, mapped, columns), record + " "));
        assertNull(
            encode(bind(false, false, mapped, columns), "{\"id\":1,\"user\":{\"id\":\"u\"},\"a.b\":\"c\",\"x\":[1]}"));

        final RowEncoder.Bound<JsonRecord> strict = bind(true, false, mapped, columns);
        assertNull(encode(strict, " " + record + "\n"),
            "escaped keys and keys with dots are compared decoded; nested are not checked");
        assertEquals("unknown field \"x\": no column of the table reads it (unknown_fields = \"fail\")",
            encode(strict, "{\"id\":1,\"user\":{\"id\":\"u\"},\"a.b\":\"c\",\"x\":[1]}"));
        assertEquals("unknown field \"m\": no column of the table reads it (unknown_fields = \"fail\")",
            encode(strict, "{\"id\":1,\"user\":{\"id\":\"u\"},\"a.b\":\"c\",\"m\":\"set\"}"),
            "a MATERIALIZED column takes no input");
        assertEquals("unknown field \"\\u00e9\": no column of the table reads it (unknown_fields = \"fail\")",
            encode(strict, "{\"id\":1,\"user\":{\"id\":\"u\"},\"a.b\":\"c\",\"\\u00e9\":0}"));
    }

    @Test
    void shouldCheckUnknownFieldsWithoutAllocating() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> strict = bind(true, false, Map.of("user_id", "user.id"),
            column("id", "UInt8"),
            column("user_id", "String"), withDefault("ts", "DateTime", "now()"), withDefault("d", "Date", "today()"));
        final String json = "{\"id\":1,\"user\":{\"id\":\"u\"},\"\\u0069d\":2}";
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        for (int i = 0; i < 20_000; i++)
        {
            assertNull(encode(strict, json));
        }
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        final long start = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++)
        {
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
