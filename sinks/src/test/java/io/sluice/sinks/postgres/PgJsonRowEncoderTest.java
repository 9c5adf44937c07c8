package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgScratch;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.DestinationCatalog;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The PostgreSQL row encoder without a server: golden bytes written as PostgreSQL's "Binary Format" of COPY lays
 * them out (big-endian int16 field count, per field a big-endian int32 length or -1 for NULL and the type's send
 * format), preceded by the little-endian 64-bit omission mask when the table has server-evaluated defaults; record
 * refusals and bind refusals with their messages; and zero allocation per record in steady state.
 */
class PgJsonRowEncoderTest
{
    private static final long OFFSET = 1_234_567_890_123L;
    /** 2025-01-07T07:44:41.542Z. */
    private static final long TIMESTAMP = 1_736_235_881_542L;
    /** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

    private final PathRegistry paths = new PathRegistry(64);
    private final JsonRecord record = new JsonRecord(paths);
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
    private final Bytes<Void> out = Bytes.allocateElasticDirect(256);
    private final Catalog catalog = new Catalog(Map.of("'x'::text", "\"x\"", "42", "42"));

    PgJsonRowEncoderTest()
    {
        final TopicRegistry topics = new TopicRegistry();
        topics.idOf("orders.eu");
        record.topics(topics);
    }

    /** A catalog that never connects: constant defaults from a table, names quoted as PostgreSQL does. */
    private static final class Catalog implements DestinationCatalog
    {
        private final Map<String, String> defaults;

        Catalog(final Map<String, String> defaults)
        {
            this.defaults = defaults;
        }

        @Override
        public TableSchema describe(final String database, final String table)
        {
            return null;
        }

        @Override
        public void create(final String database, final String table)
        {
        }

        @Override
        public String evaluateDefault(final ColumnSpec column)
        {
            return "DEFAULT".equals(column.defaultKind()) ? defaults.get(column.defaultExpression()) : null;
        }

        @Override
        public String qualifiedName(final String database, final String table)
        {
            return PostgresIdentifiers.qualified(database, table);
        }

        @Override
        public String quoteColumn(final String column)
        {
            return PostgresIdentifiers.quote(column);
        }
    }

    private static PostgresColumn col(final String name, final String type, final boolean notNull)
    {
        return new PostgresColumn(name, type, type, "b", "", List.of(), notNull, PostgresColumn.DefaultClass.NONE,
            "");
    }

    private static PostgresColumn col(final String name, final String type, final PostgresColumn.DefaultClass cls,
        final String expression)
    {
        return new PostgresColumn(name, type, type, "b", "", List.of(), false, cls, expression);
    }

    private RowEncoder.Bound<JsonRecord> bind(final Map<String, String> mapping, final boolean nullAsDefault,
        final boolean failOnUnknown, final PostgresColumn... columns) throws Exception
    {
        final List<ColumnSpec> specs = new ArrayList<>();
        for (final PostgresColumn c : columns)
        {
            specs.add(new ColumnSpec(c.name(), c.type(), PostgresCatalog.defaultKind(c.defaultClass()),
                c.defaultExpression()));
        }
        final PgJsonRowEncoder encoder = new PgJsonRowEncoder("b", mapping, record.scope(), nullAsDefault,
            failOnUnknown, new PgScratch(1 << 12));
        return encoder.bind(new TableSchema("s", "t", specs), List.of(columns), catalog);
    }

    private RowEncoder.Bound<JsonRecord> bind(final PostgresColumn... columns) throws Exception
    {
        return bind(Map.of(), false, false, columns);
    }

    private void fill(final RecordEvent e, final String json, final byte[] key, final String... headers)
    {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        e.beginRecord(null, b.length + 512, 0, 3, OFFSET, TIMESTAMP, 0, 1);
        e.timestampType(RecordEvent.CREATE_TIME);
        e.putValue(b);
        e.putKey(key);
        for (int i = 0; i < headers.length; i += 2)
        {
            e.putHeader(headers[i], headers[i + 1] == null ? null : headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
    }

    private String encode(final RowEncoder.Bound<JsonRecord> bound, final String json)
    {
        fill(event, json, null);
        return encodeEvent(bound, event);
    }

    private String encodeEvent(final RowEncoder.Bound<JsonRecord> bound, final RecordEvent e)
    {
        out.clear();
        final JsonRecord r = record.decode(e);
        return r == null ? record.error() : bound.encode(r, out);
    }

    private byte[] row()
    {
        final byte[] bytes = new byte[(int)out.writePosition()];
        out.read(bytes);
        return bytes;
    }

    /** Expected bytes as the binary COPY format lays them out. */
    private static final class Expected
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Expected mask(final long mask)
        {
            bytes.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(mask).array());
            return this;
        }

        Expected int16(final int v)
        {
            bytes.writeBytes(ByteBuffer.allocate(2).putShort((short)v).array());
            return this;
        }

        Expected int32(final int v)
        {
            bytes.writeBytes(ByteBuffer.allocate(4).putInt(v).array());
            return this;
        }

        Expected int64(final long v)
        {
            bytes.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
            return this;
        }

        /** A field of 4 bytes: an int4. */
        Expected int4Field(final int v)
        {
            return int32(4).int32(v);
        }

        Expected int8Field(final long v)
        {
            return int32(8).int64(v);
        }

        Expected textField(final String s)
        {
            final byte[] b = s.getBytes(StandardCharsets.UTF_8);
            int32(b.length);
            bytes.writeBytes(b);
            return this;
        }

        Expected jsonbField(final String s)
        {
            final byte[] b = s.getBytes(StandardCharsets.UTF_8);
            int32(b.length + 1);
            bytes.write(1);
            bytes.writeBytes(b);
            return this;
        }

        Expected nullField()
        {
            return int32(-1);
        }

        Expected timestampField(final String instant)
        {
            final Instant i = Instant.parse(instant);
            return int8Field(i.getEpochSecond() * 1_000_000 + i.getNano() / 1_000 - PG_EPOCH_MICROS);
        }

        byte[] array()
        {
            return bytes.toByteArray();
        }
    }

    private static PostgresColumn[] goldenTable()
    {
        return new PostgresColumn[]{col("id", "integer", true), col("s", "text", false),
            col("n", "numeric(10,2)", false), col("doc", "jsonb", false), col("at", "timestamp with time zone", false),
            col("note", "text", false),
            col("created", "timestamp with time zone", PostgresColumn.DefaultClass.EXPRESSION, "now()"),
            new PostgresColumn("seq", "bigint", "bigint", "b", "", List.of(), true,
                PostgresColumn.DefaultClass.EXPRESSION, "GENERATED BY DEFAULT AS IDENTITY"),
            col("k", "text", PostgresColumn.DefaultClass.CONSTANT, "'x'::text")};
    }

    @Test
    void shouldWriteGoldenTuplesWithTheOmissionMaskOfServerDefaults() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(goldenTable());
        assertEquals(List.of("id", "s", "n", "doc", "at", "note", "created", "seq", "k"), bound.columns());
        assertArrayEquals(new int[]{6, 7}, bound.omittableColumns());

        final String doc = "{\"b\": 1.10, \"a\":[1,2], \"big\": 12345678901234567890.5}";
        assertNull(encode(bound, "{\"id\":7,\"s\":\"h\\u00e9llo\",\"n\":\"12.345\",\"doc\":" + doc
            + ",\"at\":\"2024-03-10T12:00:00+02:00\"}"));
        // created (bit 0) and seq (bit 1) are left to the server; k takes its constant 'x'
        final Expected e = new Expected().mask(0b11).int16(7).int4Field(7).textField("héllo")
            // 12.345 rounds half away from zero to 12.35: ndigits 2, weight 0, sign +, dscale 2, digits 12 3500
            .int32(12).int16(2).int16(0).int16(0).int16(2).int16(12).int16(3500)
            .jsonbField(doc).timestampField("2024-03-10T10:00:00Z").nullField().textField("x");
        assertArrayEquals(e.array(), row());

        assertNull(encode(bound, "{\"id\":-1,\"n\":-0.5,\"seq\":99,\"created\":\"2024-01-01 00:00:00\",\"k\":null,"
            + "\"at\":1700000000.25}"));
        final Expected f = new Expected().mask(0).int16(9).int4Field(-1).nullField()
            // -0.5: ndigits 1, weight -1, sign negative (0x4000), dscale 2, digit 5000
            .int32(10).int16(1).int16(-1).int16(0x4000).int16(2).int16(5000)
            .nullField().timestampField("2023-11-14T22:13:20.250Z").nullField()
            .timestampField("2024-01-01T00:00:00Z").int8Field(99).nullField();
        assertArrayEquals(f.array(), row());
    }

    @Test
    void shouldWriteATupleWithoutMaskWhenNothingIsLeftToTheServer() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(col("a.b", "text", false), col("x", "smallint", false),
            col("d", "integer", PostgresColumn.DefaultClass.CONSTANT, "42"));
        assertArrayEquals(new int[0], bound.omittableColumns());
        // a dotted column name is one key, never split
        assertNull(encode(bound, "{\"a\":{\"b\":\"nested\"},\"a.b\":\"flat\",\"x\":-2}"));
        assertArrayEquals(new Expected().int16(3).textField("flat").int32(2).int16(-2).int4Field(42).array(), row());
    }

    @Test
    void shouldRefusePerRecordWhatPostgresWouldRefuse() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(col("id", "integer", true), col("s", "text", false),
            col("i2", "smallint", false), col("v", "character varying(3)", false), col("n", "numeric(4,2)", false));
        assertEquals("column s (text) from path s: " + PgCopyError.describe(PgCopyError.NUL_CHARACTER)
            + " (value \"a\\u0000b\")", encode(bound, "{\"id\":1,\"s\":\"a\\u0000b\"}"));
        assertEquals("column i2 (smallint) from path i2: " + PgCopyError.describe(ConversionError.OUT_OF_RANGE)
            + " (value 70000)", encode(bound, "{\"id\":1,\"i2\":70000}"));
        assertEquals("column v (character varying(3)) from path v: "
            + PgCopyError.describe(PgCopyError.TOO_MANY_CHARACTERS) + " (value \"abcd\")",
            encode(bound, "{\"id\":1,\"v\":\"abcd\"}"));
        assertEquals("column n (numeric(4,2)) from path n: " + PgCopyError.describe(PgCopyError.NUMERIC_OVERFLOW)
            + " (value 100)", encode(bound, "{\"id\":1,\"n\":100}"));
        assertEquals("column id (integer) from path id: " + ConversionError.describe(
            ConversionError.MISSING_NOT_ALLOWED), encode(bound, "{\"s\":\"x\"}"));
        assertEquals("column id (integer) from path id: " + ConversionError.describe(
            ConversionError.NULL_NOT_ALLOWED) + " (value null)", encode(bound, "{\"id\":null}"));
        // the same encoder goes on with the next record
        assertNull(encode(bound, "{\"id\":2,\"v\":\"ab \"}"));
    }

    @Test
    void shouldApplyTheDefaultToANullOnlyWithNullAsDefault() throws Exception
    {
        final PostgresColumn d = new PostgresColumn("d", "integer", "integer", "b", "", List.of(), true,
            PostgresColumn.DefaultClass.CONSTANT, "42");
        final PostgresColumn at = new PostgresColumn("at", "timestamp with time zone", "timestamp with time zone",
            "b", "", List.of(), true, PostgresColumn.DefaultClass.EXPRESSION, "now()");
        final RowEncoder.Bound<JsonRecord> strict = bind(Map.of(), false, false, d, at);
        assertTrue(encode(strict, "{\"d\":null}").startsWith("column d (integer) from path d: "));
        final RowEncoder.Bound<JsonRecord> lenient = bind(Map.of(), true, false, d, at);
        assertNull(encode(lenient, "{\"d\":null,\"at\":null}"));
        assertArrayEquals(new Expected().mask(1).int16(1).int4Field(42).array(), row());
        // every column left to the server: a tuple of no field
        final RowEncoder.Bound<JsonRecord> onlyServer = bind(at);
        assertNull(encode(onlyServer, "{}"));
        assertArrayEquals(new Expected().mask(1).int16(0).array(), row());
    }

    @Test
    void shouldFillKafkaMetadataColumns() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(Map.of("topic", "$topic", "part", "$partition", "off",
            "$offset", "ts", "$timestamp", "ms", "$timestamp", "tt", "$timestamp_type", "key", "$key", "trace",
            "$header.trace", "payload", "$header.payload"), false, false, col("topic", "text", false),
            col("part", "integer", false), col("off", "bigint", false), col("ts", "timestamp without time zone", false),
            col("ms", "bigint", false), col("tt", "text", false), col("key", "text", false),
            col("trace", "character varying(10)", false), col("payload", "jsonb", false));
        assertTrue(bound.readsKeyAndHeaders());
        fill(event, "{}", "k-\"1\"".getBytes(StandardCharsets.UTF_8), "trace", "t1", "payload", " {\"a\": 1} ");
        assertNull(encodeEvent(bound, event));
        final Expected e = new Expected().int16(9).textField("orders.eu").int4Field(3).int8Field(OFFSET)
            .timestampField("2025-01-07T07:44:41.542Z").int8Field(TIMESTAMP).textField("CreateTime")
            .textField("k-\"1\"").textField("t1").jsonbField("{\"a\": 1}");
        assertArrayEquals(e.array(), row());

        // absent key and headers are NULL; a NUL byte in a raw key is refused like one in a JSON string
        fill(event, "{}", new byte[]{'a', 0, 'b'});
        assertEquals("column key (text) from path $key: " + PgCopyError.describe(PgCopyError.NUL_CHARACTER)
            + " (value \"a\\u0000b\")", encodeEvent(bound, event));
        fill(event, "{}", null);
        assertNull(encodeEvent(bound, event));
    }

    @Test
    void shouldFailOnUnknownFieldsWhenAsked() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(Map.of("y", "a.b"), false, true, col("x", "integer", false),
            col("y", "integer", false));
        assertNull(encode(bound, "{\"x\":1,\"a\":{\"b\":2,\"c\":3}}"));
        assertEquals("unknown field \"zzz\": no column of the table reads it (unknown_fields = \"fail\")",
            encode(bound, "{\"x\":1,\"zzz\":2}"));
    }

    @Test
    void shouldRefuseAtBindWhatItCannotWrite() throws Exception
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> bind(col("id", "integer", false), col("p", "point", false)));
        assertTrue(e.getMessage().startsWith("column p has type point which Sluice cannot write"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> bind(col("id", "integer", false),
            new PostgresColumn("r", "int4range", "int4range", "r", "", List.of(), false,
                PostgresColumn.DefaultClass.NONE, "")));
        assertTrue(e.getMessage().contains("column r has type int4range which Sluice cannot write: it is a range type"),
            e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("nope", "x"), false, false, col("id", "integer", false)));
        assertEquals("branch b maps column(s) [nope] that table \"s\".\"t\" does not have (its columns: [id])",
            e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("h", "$headers"), false, false, col("h", "text[]", false)));
        assertTrue(e.getMessage().contains("column h cannot take $headers"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("g", "x"), false, false, col("id", "integer", false),
                col("g", "integer", PostgresColumn.DefaultClass.GENERATED, "(id * 2)")));
        assertTrue(e.getMessage().contains("which is a generated column"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("id", "$nothing"), false, false, col("id", "integer", false)));
        assertTrue(e.getMessage().contains("which is no Kafka metadata source"), e.getMessage());
    }

    @Test
    void shouldBindDomainsAndEnumsByWhatTheCatalogRead() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(
            new PostgresColumn("m", "mood", "mood", "e", "", List.of("sad", "ok"), false,
                PostgresColumn.DefaultClass.NONE, ""),
            new PostgresColumn("p", "positive", "integer", "b", "", List.of(), true, PostgresColumn.DefaultClass.NONE,
                ""));
        assertNull(encode(bound, "{\"m\":\"ok\",\"p\":5}"));
        assertArrayEquals(new Expected().int16(2).textField("ok").int4Field(5).array(), row());
        assertEquals("column m (mood) from path m: " + PgCopyError.describe(PgCopyError.NOT_AN_ENUM_LABEL)
            + " (value \"happy\")", encode(bound, "{\"m\":\"happy\",\"p\":5}"));
        // the domain's NOT NULL holds
        assertTrue(encode(bound, "{\"m\":\"ok\"}").startsWith("column p (positive) from path p: "));
    }

    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();

    @Test
    void shouldAllocateNothingPerRecordInSteadyState() throws Exception
    {
        final PostgresColumn[] table = goldenTable();
        final PostgresColumn[] withMeta = java.util.Arrays.copyOf(table, table.length + 3);
        withMeta[table.length] = col("off", "bigint", false);
        withMeta[table.length + 1] = col("key", "text", false);
        withMeta[table.length + 2] = col("ts", "timestamp with time zone", false);
        final RowEncoder.Bound<JsonRecord> bound = bind(Map.of("off", "$offset", "key", "$key", "ts", "$timestamp"),
            false, true, withMeta);
        final String[] records = {
            "{\"id\":7,\"s\":\"h\\u00e9llo\",\"n\":\"12.345\",\"doc\":{\"b\":1.10,\"a\":[1,2]},"
                + "\"at\":\"2024-03-10T12:00:00+02:00\",\"note\":\"a note\"}",
            "{\"id\":8,\"seq\":99,\"created\":\"2024-01-01T00:00:00Z\",\"n\":-0.5,\"k\":\"y\"}",
            "{\"id\":9,\"s\":\"a\\u0000b\"}"};
        final RecordEvent[] events = new RecordEvent[records.length];
        for (int i = 0; i < records.length; i++)
        {
            events[i] = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
            fill(events[i], records[i], ("key-" + i).getBytes(StandardCharsets.UTF_8));
        }
        final int warmup = 100_000;
        final int measured = 300_000;
        long before = 0;
        int failed = 0;
        for (int i = 0; i < warmup + measured; i++)
        {
            if (i == warmup)
            {
                before = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
            }
            final RecordEvent e = events[i % events.length];
            out.clear();
            final JsonRecord r = record.decode(e);
            // the third record fails: only its message allocates, so it is measured apart
            if (i % events.length == 2)
            {
                continue;
            }
            if (bound.encode(r, out) != null)
            {
                failed++;
            }
        }
        final long allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertEquals(0, failed);
        final double perRecord = (double)allocated / measured;
        assertTrue(perRecord < 0.01, "allocated " + allocated + " bytes over " + measured + " records");
    }
}
