package io.sluice.core.gather.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The kind-neutral half of the metadata columns and of {@code unknown_fields = "fail"}, as any kind's encoder sees
 * them: each {@code $} source as a JSON view (or the key's and a header's bytes as they are), without a column type.
 * The typed half (which ClickHouse types take which source, and the bytes) is tested with ClickHouse's encoder in
 * sinks/. The record: topic {@code orders.eu}, partition 3, offset 1234567890123, CreateTime 1736235881542.
 */
class MetadataColumnViewTest
{
    private static final long OFFSET = 1_234_567_890_123L;
    private static final long TIMESTAMP = 1_736_235_881_542L;

    private final JsonRecord record = new JsonRecord(new PathRegistry(16));
    private final RecordEvent event = new RecordEvent(new UnsafeBuffer(new byte[1 << 12]));
    private final JsonValueView view = new JsonValueView();

    MetadataColumnViewTest()
    {
        final TopicRegistry topics = new TopicRegistry();
        topics.idOf("orders.eu");
        record.topics(topics);
    }

    private JsonRecord fill(final String json, final long timestamp, final byte[] key, final String... headers)
    {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        event.beginRecord(null, b.length + 512, 0, 3, OFFSET, timestamp, 0, 1);
        event.timestampType(RecordEvent.CREATE_TIME);
        event.putValue(b);
        event.putKey(key);
        for (int i = 0; i < headers.length; i += 2)
        {
            event.putHeader(headers[i],
                headers[i + 1] == null ? null : headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return record.decode(event);
    }

    private String text(final String spec, final boolean numeric, final JsonRecord row)
    {
        final MetadataColumn c = MetadataColumn.bind("c", spec, numeric);
        assertEquals(MetadataColumn.VIEW, c.view(row, view), spec);
        if (view.kind() == JsonKind.MISSING)
        {
            return "MISSING";
        }
        final byte[] b = new byte[view.length()];
        view.buffer().getBytes(view.offset(), b);
        return JsonKind.name(view.kind()) + ":" + new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void shouldGiveEachScalarSourceAsAJsonView()
    {
        final JsonRecord row = fill("{}", TIMESTAMP, "k-1".getBytes(StandardCharsets.UTF_8), "trace", "{\"a\":1}",
            "n", "42", "s", "\"quoted\"");
        final String number = JsonKind.name(JsonKind.NUMBER);
        final String string = JsonKind.name(JsonKind.STRING);
        assertEquals(string + ":orders.eu", text("$topic", false, row));
        assertEquals(number + ":3", text("$partition", false, row));
        assertEquals(number + ":" + OFFSET, text("$offset", false, row));
        assertEquals(number + ":" + TIMESTAMP, text("$timestamp", false, row));
        assertEquals(string + ":CreateTime", text("$timestamp_type", false, row));
        assertEquals(number + ":0", text("$timestamp_type", true, row), "Kafka's id for a column that takes a number");
        // a key or header that is JSON is that value; anything else is a JSON string
        assertEquals(string + ":k-1", text("$key", false, row));
        assertEquals(JsonKind.name(JsonKind.OBJECT) + ":{\"a\":1}", text("$header.trace", false, row));
        assertEquals(number + ":42", text("$header.n", false, row));
        assertEquals(string + ":quoted", text("$header.s", false, row));
        assertEquals("MISSING", text("$header.absent", false, row));
    }

    @Test
    void shouldGiveAMissingTimestampAndANullKeyAsMissing()
    {
        final JsonRecord row = fill("{}", -1, null);
        assertEquals("MISSING", text("$timestamp", false, row));
        assertEquals("MISSING", text("$key", false, row));
        assertNull(MetadataColumn.bind("c", "$key", false).bytes(row));
    }

    @Test
    void shouldHandTheKeyAndHeaderBytesAsTheyAreAndRefuseInvalidUtf8AsAView()
    {
        final byte[] key = {'a', (byte)0xC3, (byte)0x28}; // an invalid two-byte sequence
        final JsonRecord row = fill("{}", TIMESTAMP, key, "h", "x y");
        final MetadataColumn k = MetadataColumn.bind("c", "$key", false);
        final DirectBuffer raw = k.bytes(row);
        assertEquals(3, raw.capacity());
        assertEquals((byte)0xC3, raw.getByte(1));
        assertEquals(ConversionError.INVALID_STRING, k.view(row, view));
        assertEquals("x y", MetadataColumn.bind("c", "$header.h", false).bytes(row).getStringWithoutLengthUtf8(0, 3));
        assertNull(MetadataColumn.bind("c", "$offset", false).bytes(row), "no bytes for a source that is no key");
    }

    @Test
    void shouldLeaveTheHeaderListsToTheKind()
    {
        final JsonRecord row = fill("{}", TIMESTAMP, null, "a", "1");
        for (final String spec : new String[]{"$headers", "$header_names", "$header_values"})
        {
            final MetadataColumn c = MetadataColumn.bind("c", spec, false);
            assertTrue(c.source().list(), spec);
            assertTrue(c.readsKeyAndHeaders(), spec);
            assertEquals(ConversionError.WRONG_KIND, c.view(row, view), spec);
        }
        assertFalse(MetadataColumn.bind("c", "$offset", false).readsKeyAndHeaders());
    }

    @Test
    void shouldParseSpecsAndNameTheSourcesOfAnUnknownOne()
    {
        assertEquals("$offset", MetadataColumn.specOf("src", "$offset"));
        assertNull(MetadataColumn.specOf("src", "payload.id"), "a JSON path");
        assertNull(MetadataColumn.specOf("src", "\\$id"), "a JSON path whose first key starts with $");
        assertEquals("$id", MetadataColumn.jsonPath("\\$id"));
        assertEquals("$topic", MetadataColumn.specOf("_topic", null), "a Kafka engine virtual column");
        assertEquals("$timestamp", MetadataColumn.specOf("_timestamp_ms", null));
        assertNull(MetadataColumn.specOf("_topic", "t"), "a mapping wins over the virtual name");
        assertEquals(MetadataColumn.Source.HEADER, MetadataColumn.sourceOf("c", "$header.x"));
        assertFalse(MetadataColumn.knownSource("$header."), "a header needs a name");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MetadataColumn.bind("src", "$ofset", false));
        assertEquals("column src maps $ofset, which is no Kafka metadata source: " + MetadataColumn.SOURCES
            + " (a JSON path starting with $ is written \\$...)", e.getMessage());
        assertEquals("a\\.b", ColumnMappings.escapeName("a.b"));
        assertEquals("a\\\\b", ColumnMappings.escapeName("a\\b"));
        assertEquals("x.y", ColumnMappings.jsonPath("c", "x.y"));
        assertEquals("c\\.d", ColumnMappings.jsonPath("c.d", null));
    }

    @Test
    void shouldFailARecordWithATopLevelKeyNoColumnReads()
    {
        final KnownFields known = new KnownFields(Set.of("id", "user", "na\u00efve"));
        assertNull(known.check(fill("{\"id\":1,\"user\":{\"x\":2},\"na\u00efve\":3}", TIMESTAMP, null), view));
        assertNull(known.check(fill("{\"na\\u00efve\":3}", TIMESTAMP, null), view), "an escaped key is unescaped");
        assertEquals("unknown field \"extra\": no column of the table reads it (unknown_fields = \"fail\")",
            known.check(fill("{\"id\":1,\"extra\":true}", TIMESTAMP, null), view));
    }
}
