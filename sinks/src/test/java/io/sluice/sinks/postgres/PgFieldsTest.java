package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.pgcopy.PgColumnEncoder;
import io.sluice.codecs.pgcopy.PgCopyError;
import io.sluice.codecs.pgcopy.PgScratch;
import io.sluice.codecs.rowbinary.ConversionError;

/**
 * {@link PgFields} writes the same bytes as the JSON path's column encoders for the same value (so the reader of
 * {@code explain} and the server read them alike), refuses what the server would refuse without writing anything, and
 * allocates nothing per field.
 */
class PgFieldsTest
{
    private final PgScratch scratch = new PgScratch(1 << 12);
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("v")), 64);
    private final JsonValueView value = new JsonValueView();

    private byte[] fromJson(final String type, final String json)
    {
        final byte[] b = ("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer slot = new UnsafeBuffer(ByteBuffer.allocateDirect(b.length + 128));
        slot.putBytes(64, b);
        assertEquals(JsonError.NONE, scanner.scan(slot, 64, b.length));
        scanner.value(0, value);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        assertEquals(ConversionError.NONE, PgColumnEncoder.forType(type, true).encode(value, out, scratch), json);
        return out.toByteArray();
    }

    private static byte[] written(final Consumer<Bytes<?>> write)
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        write.accept(out);
        return out.toByteArray();
    }

    @Test
    void shouldWriteWhatTheJsonEncodersWrite()
    {
        assertArrayEquals(fromJson("boolean", "true"), written(o -> PgFields.writeBool(o, true)));
        assertArrayEquals(fromJson("smallint", "-2"), written(o -> PgFields.writeInt2(o, (short)-2)));
        assertArrayEquals(fromJson("integer", "-2147483648"), written(o -> PgFields.writeInt4(o, Integer.MIN_VALUE)));
        assertArrayEquals(fromJson("bigint", "9223372036854775807"), written(o -> PgFields.writeInt8(o,
            Long.MAX_VALUE)));
        assertArrayEquals(fromJson("real", "0.1"), written(o -> PgFields.writeFloat4(o, 0.1f)));
        assertArrayEquals(fromJson("double precision", "-1e300"), written(o -> PgFields.writeFloat8(o, -1e300)));
        assertArrayEquals(fromJson("text", "\"é 日本 🎉\""), written(o -> PgFields.writeText(o, "é 日本 🎉")));
        final byte[] utf8 = "Zoë".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(fromJson("text", "\"Zoë\""),
            written(o -> PgFields.writeUtf8(o, new UnsafeBuffer(utf8), 0, utf8.length)));
        assertArrayEquals(fromJson("jsonb", "{\"a\": [1, \"é\"]}"),
            written(o -> PgFields.writeJsonb(o, new StringBuilder("{\"a\": [1, \"é\"]}"))));
        assertArrayEquals(fromJson("json", "{\"a\":1}"), written(o -> PgFields.writeJson(o, "{\"a\":1}")));
        final UUID u = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        assertArrayEquals(fromJson("uuid", "\"" + u + "\""),
            written(o -> PgFields.writeUuid(o, u.getMostSignificantBits(), u.getLeastSignificantBits())));
        final Instant at = Instant.parse("2022-08-01T20:35:57.403862Z");
        assertArrayEquals(fromJson("timestamptz", "\"2022-08-01T20:35:57.403862Z\""),
            written(o -> PgFields.writeTimestamp(o, ChronoUnit.MICROS.between(Instant.EPOCH, at))));
        assertArrayEquals(fromJson("timestamptz", "-62135596800"),
            written(o -> PgFields.writeTimestamp(o, -62_135_596_800_000_000L)));
        assertArrayEquals(fromJson("date", "\"0001-01-01\""),
            written(o -> PgFields.writeDate(o, LocalDate.of(1, 1, 1).toEpochDay())));
        assertArrayEquals(fromJson("date", "\"2024-02-29\""),
            written(o -> PgFields.writeDate(o, LocalDate.of(2024, 2, 29).toEpochDay())));
        assertArrayEquals(fromJson("text", "null"), written(PgFields::writeNull));
    }

    @Test
    void shouldRefuseWhatTheServerRefusesAndWriteNothing()
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        PgFields.writeInt4(out, 7);
        final long before = out.writePosition();
        assertEquals(PgCopyError.NUL_CHARACTER, PgFields.writeText(out, "a\u0000b"));
        assertEquals(PgCopyError.UNPAIRED_SURROGATE, PgFields.writeText(out, "a\ud800"));
        assertEquals(PgCopyError.UNPAIRED_SURROGATE, PgFields.writeJsonb(out, "\"\udc00x\""));
        assertEquals(PgCopyError.NUL_CHARACTER, PgFields.writeJson(out, "\"\u0000\""));
        assertEquals(PgCopyError.NUL_CHARACTER, PgFields.writeUtf8(out, new UnsafeBuffer(new byte[]{'a', 0}), 0, 2));
        assertEquals(PgCopyError.DATE_OUT_OF_RANGE, PgFields.writeTimestamp(out, Long.MIN_VALUE));
        // 4714-11-24 00:00:00 BC is the first timestamp, in Unix microseconds
        final long first = -211_813_488_000_000_000L + 946_684_800_000_000L;
        assertEquals(PgCopyError.DATE_OUT_OF_RANGE, PgFields.writeTimestamp(out, first - 1));
        assertEquals(PgCopyError.DATE_OUT_OF_RANGE, PgFields.writeDate(out, Long.MAX_VALUE / 2));
        assertEquals(PgCopyError.DATE_OUT_OF_RANGE, PgFields.writeDate(out, 2_145_031_948L + 10_957 + 1));
        assertEquals(PgCopyError.DATE_OUT_OF_RANGE, PgFields.writeDate(out, -2_451_545 + 10_957 - 1));
        assertEquals(before, out.writePosition(), "nothing written by a refusal");
        assertEquals(ConversionError.NONE, PgFields.writeDate(out, -2_451_545 + 10_957));
        assertEquals(ConversionError.NONE, PgFields.writeTimestamp(out, first));
        assertEquals(ConversionError.NONE, PgFields.writeTimestamp(out, Long.MAX_VALUE));
        assertEquals(before + 8 + 12 + 12, out.writePosition(), "the three in range were written");
    }

    @Test
    void shouldWriteATupleTheReaderReadsBack()
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        PgFields.beginRow(out, 4);
        PgFields.writeInt8(out, 42);
        PgFields.writeText(out, "so so");
        PgFields.writeNull(out);
        PgFields.writeTimestamp(out, 1_710_064_800_000_000L);
        final PgCopyText t = new PgCopyText(out.toByteArray());
        assertEquals("42", t.next("bigint"));
        assertEquals("so so", t.next("text"));
        assertEquals("\\N", t.next("uuid"));
        assertEquals("2024-03-10 10:00:00+00", t.next("timestamptz"));
        assertEquals(0, t.remaining());
    }

    @Test
    void shouldAllocateNothingPerField()
    {
        final Bytes<?> out = Bytes.allocateElasticDirect(1 << 20);
        final StringBuilder text = new StringBuilder("row é 🎉");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory
            .getThreadMXBean();
        final long id = Thread.currentThread().getId();
        final int rows = 100_000;
        long before = 0;
        for (int i = 0; i < 2 * rows; i++)
        {
            if (i == rows)
            {
                before = threads.getThreadAllocatedBytes(id);
            }
            out.clear();
            PgFields.beginRow(out, 6);
            PgFields.writeInt8(out, i);
            PgFields.writeText(out, text);
            PgFields.writeJsonb(out, text);
            PgFields.writeTimestamp(out, i * 1_000_000L);
            PgFields.writeDate(out, i);
            PgFields.writeNull(out);
        }
        final long allocated = threads.getThreadAllocatedBytes(id) - before;
        // a few hundred bytes at most over the whole loop (the JIT's, the bean's), never some per row
        assertTrue((double)allocated / rows < 0.05, "allocated " + allocated + " bytes over " + rows + " rows");
        out.releaseLast();
    }
}
