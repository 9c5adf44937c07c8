package io.sluice.sinks.clickhouse.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.json.PathRegistry;

/**
 * Kafka metadata as columns, checked byte for byte against ClickHouse's RowBinary layout (the format's documentation:
 * integers little-endian, String as a LEB128 length then the bytes, Nullable as a 0/1 byte before the value, Array
 * as a LEB128 count then the elements, Map(K, V) as Array(Tuple(K, V)), DateTime64(3) as Int64 milliseconds), so that
 * the types ClickHouse 18.16 lacks (Map, DateTime64) are pinned without a server. The record: topic
 * {@code orders.eu}, partition 3, offset 1234567890123, CreateTime 1736235881542 (2025-01-07T07:44:41.542Z, case
 * V1), key {@code k-1}, headers {@code trace: t1} and {@code n: null}.
 */
class MetadataColumnTest
{
    private static final long OFFSET = 1_234_567_890_123L;
    private static final long TIMESTAMP = 1_736_235_881_542L;

    private final PathRegistry paths = new PathRegistry(64);
    private final JsonRecord record = new JsonRecord(paths);
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
    private final Bytes<Void> out = Bytes.allocateElasticDirect(256);

    MetadataColumnTest()
    {
        final TopicRegistry topics = new TopicRegistry();
        topics.idOf("orders.eu");
        record.topics(topics);
    }

    private RowEncoder.Bound<JsonRecord> bind(final Map<String, String> mapping, final ColumnSpec... columns)
        throws Exception
    {
        final ClickHouseJsonRowEncoder encoder = new ClickHouseJsonRowEncoder("b", mapping, record.scope(),
            EncoderOptions.DEFAULTS,
            new EncodeScratch(1 << 12));
        return encoder.bind(new TableSchema("db", "t", List.of(columns)),
            new StubCatalog(Map.of("'none'", "\"none\""), "UTC", false));
    }

    private void fill(final String json, final byte[] key, final String... headers)
    {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        event.beginRecord(null, b.length + 512, 0, 3, OFFSET, TIMESTAMP, 0, 1);
        event.timestampType(RecordEvent.CREATE_TIME);
        event.putValue(b);
        event.putKey(key);
        for (int i = 0; i < headers.length; i += 2)
        {
            event.putHeader(headers[i],
                headers[i + 1] == null ? null : headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
    }

    private String encode(final RowEncoder.Bound<JsonRecord> bound)
    {
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

    /** The expected bytes, written as the RowBinary documentation lays them out. */
    private static final class Expected
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Expected string(final String s)
        {
            final byte[] b = s.getBytes(StandardCharsets.UTF_8);
            bytes.write(b.length);
            bytes.writeBytes(b);
            return this;
        }

        Expected le(final long v, final int width)
        {
            bytes.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(), 0, width);
            return this;
        }

        Expected b(final int... values)
        {
            for (final int v : values)
            {
                bytes.write(v);
            }
            return this;
        }
    }

    @Test
    void shouldFillTheKafkaEnginesVirtualColumnsWithoutAMapping() throws Exception
    {
        final RowEncoder.Bound<JsonRecord> bound = bind(Map.of(), column("id", "UInt8"),
            column("_topic", "LowCardinality(String)"), column("_partition", "UInt64"), column("_offset", "UInt64"),
            column("_timestamp", "Nullable(DateTime)"), column("_timestamp_ms", "DateTime64(3)"),
            column("_key", "String"), column("_headers.name", "Array(String)"),
            column("_headers.value", "Array(String)"));
        fill("{\"id\":7,\"_offset\":99}", "k-1".getBytes(StandardCharsets.UTF_8), "trace", "t1", "n", null);
        assertNull(encode(bound));
        final Expected e = new Expected().b(7).string("orders.eu").le(3, 8).le(OFFSET, 8).b(0)
            .le(TIMESTAMP / 1000, 4).le(TIMESTAMP, 8).string("k-1").b(2).string("trace").string("n").b(2).string("t1")
            .string("");
        assertArrayEquals(e.bytes.toByteArray(), row(), "a JSON field named like a virtual column is not read");
        assertTrue(bound.readsKeyAndHeaders());
    }

    @Test
    void shouldWriteHeadersAsMapOrArrayOfTuplesWithTheSameBytes() throws Exception
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("as_map", "$headers");
        m.put("as_tuples", "$headers");
        m.put("nullable", "$headers");
        final RowEncoder.Bound<JsonRecord> bound = bind(m, column("as_map", "Map(String, String)"),
            column("as_tuples", "Array(Tuple(String, String))"),
            column("nullable", "Map(LowCardinality(String), Nullable(String))"));
        fill("{}", null, "trace", "t1", "n", null);
        assertNull(encode(bound));
        final Expected pairs = new Expected().b(2).string("trace").string("t1").string("n").string("");
        final Expected nullable = new Expected().b(2).string("trace").b(0).string("t1").string("n").b(1);
        final byte[] expected = new Expected().b(2).string("trace").string("t1").string("n").string("").b(2)
            .string("trace").string("t1").string("n").string("").b(2).string("trace").b(0).string("t1").string("n")
            .b(1).bytes.toByteArray();
        assertEquals(pairs.bytes.size() * 2 + nullable.bytes.size(), expected.length);
        assertArrayEquals(expected, row(), "Map(K, V) is Array(Tuple(K, V)) in RowBinary; a null value is NULL only"
            + " where the type is Nullable");
        fill("{}", null);
        assertNull(encode(bound));
        assertArrayEquals(new byte[]{0, 0, 0}, row(), "no headers: three empty lists");
    }

    @Test
    void shouldConvertEachSourceToTheColumnsType() throws Exception
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("ts_ms", "$timestamp");
        m.put("ts_text", "$timestamp");
        m.put("ts_type", "$timestamp_type");
        m.put("ts_type_id", "$timestamp_type");
        m.put("ts_enum", "$timestamp_type");
        m.put("part", "$partition");
        m.put("off_text", "$offset");
        m.put("topic", "$topic");
        m.put("trace", "$header.trace");
        m.put("absent", "$header.nope");
        m.put("fallback", "$header.nope");
        m.put("key_number", "$key");
        m.put("dollar", "\\$id");
        final RowEncoder.Bound<JsonRecord> bound = bind(m, column("ts_ms", "UInt64"), column("ts_text", "String"),
            column("ts_type", "String"), column("ts_type_id", "Int8"),
            column("ts_enum", "Enum8('NoTimestampType' = -1, 'CreateTime' = 0, 'LogAppendTime' = 1)"),
            column("part", "Int32"), column("off_text", "String"),
            column("topic", "FixedString(12)"), column("trace", "Nullable(String)"),
            column("absent", "Nullable(String)"), new ColumnSpec("fallback", "String", "DEFAULT", "'none'"),
            column("key_number", "UInt32"), column("dollar", "String"));
        fill("{\"$id\":\"d\"}", "42".getBytes(StandardCharsets.UTF_8), "trace", "t1");
        assertNull(encode(bound));
        final Expected e = new Expected().le(TIMESTAMP, 8).string(Long.toString(TIMESTAMP)).string("CreateTime").b(0)
            .b(0).le(3, 4).string(Long.toString(OFFSET)).b('o', 'r', 'd', 'e', 'r', 's', '.', 'e', 'u', 0, 0, 0)
            .b(0).string("t1").b(1).string("none").le(42, 4).string("d");
        assertArrayEquals(e.bytes.toByteArray(), row(),
            "a JSON path whose first key starts with $ is written \\$; an absent header is NULL or the DEFAULT");
        assertFalse(bind(Map.of("o", "$offset"), column("o", "UInt64")).readsKeyAndHeaders(),
            "the offset needs no key: the source need not copy keys and headers");
    }

    @Test
    void shouldTakeKeyAndHeaderBytesAsTheyAreIntoStringAndAsJsonIntoOtherTypes() throws Exception
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("raw", "$key");
        m.put("fixed", "$key");
        m.put("parsed", "$key");
        final RowEncoder.Bound<JsonRecord> bound = bind(m, column("raw", "String"), column("fixed", "FixedString(4)"),
            column("parsed", "Map(String, UInt8)"));
        final byte[] key = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        fill("{}", new byte[]{(byte)0xff, 0, 'x'}, "h", "v");
        final String binary = encode(bound);
        assertTrue(binary != null && binary.startsWith("column parsed (Map(String, UInt8)) from path $key: "),
            "binary is fine for String and FixedString, not for a type that reads text: " + binary);
        final RowEncoder.Bound<JsonRecord> text = bind(m, column("raw", "String"), column("fixed", "FixedString(8)"),
            column("parsed", "Map(String, UInt8)"));
        fill("{}", key);
        assertNull(encode(text));
        assertArrayEquals(new Expected().string("{\"a\":1}").b('{', '"', 'a', '"', ':', '1', '}', 0).b(1).string("a")
            .b(1).bytes.toByteArray(), row(), "the key's JSON object into a Map");
        fill("{}", null);
        assertNull(encode(text));
        assertArrayEquals(new Expected().b(0).b(0, 0, 0, 0, 0, 0, 0, 0).b(0).bytes.toByteArray(), row(),
            "a null key is the type's zero, as the Kafka engine's _key of an unkeyed record");
    }

    @Test
    void shouldWriteOffsetAndPartitionIntoTheWideIntegersAsIntoTheOtherIntegers() throws Exception
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("off", "$offset");
        m.put("part", "$partition");
        final RowEncoder.Bound<JsonRecord> bound = bind(m, column("off", "UInt256"), column("part", "Int128"));
        fill("{}", null);
        assertNull(encode(bound));
        // little endian, zero-extended to 32 and 16 bytes
        assertArrayEquals(new Expected().le(OFFSET, 8).le(0, 8).le(0, 8).le(0, 8).le(3, 8).le(0, 8).bytes
            .toByteArray(), row());
    }

    @Test
    void shouldRefuseATypeASourceCannotFillNamingColumnSourceAndTypes()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("o", "$offset"), column("o", "Array(String)")));
        assertEquals("column o (Array(String)) cannot take $offset: it takes an integer, Float, Decimal or String type",
            e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("h", "$headers"), column("h", "Map(String, UInt8)"))).getMessage()
            .endsWith("it takes Map(String, String) or Array(Tuple(String, String))"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> bind(Map.of("x", "$ofset"), column("x", "UInt64"))).getMessage()
            .startsWith("column x maps $ofset, which is no Kafka metadata source"));
    }

    @Test
    void shouldEncodeMetadataWithoutAllocating() throws Exception
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("trace", "$header.trace");
        m.put("hs", "$headers");
        final RowEncoder.Bound<JsonRecord> bound = bind(m, column("id", "UInt8"), column("_topic", "String"),
            column("_offset", "UInt64"), column("_timestamp_ms", "DateTime64(3)"), column("_key", "String"),
            column("trace", "String"), column("hs", "Array(Tuple(String, String))"));
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        fill("{\"id\":1}", "k".getBytes(StandardCharsets.UTF_8), "trace", "t");
        for (int i = 0; i < 20_000; i++)
        {
            assertNull(encode(bound));
        }
        final long start = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++)
        {
            out.clear();
            if (bound.encode(record.decode(event), out) != null)
            {
                throw new AssertionError("failed");
            }
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - start;
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for 100,000 records");
    }
}
