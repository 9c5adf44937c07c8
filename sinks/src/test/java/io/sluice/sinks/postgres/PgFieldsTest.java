package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
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

    /** The JSON encoder's bytes for the value, or its negative code as a one-element marker. */
    private String jsonOutcome(final String type, final String json)
    {
        final byte[] b = ("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer slot = new UnsafeBuffer(ByteBuffer.allocateDirect(b.length + 128));
        slot.putBytes(64, b);
        assertEquals(JsonError.NONE, scanner.scan(slot, 64, b.length));
        scanner.value(0, value);
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        final int code = PgColumnEncoder.forType(type, true).encode(value, out, scratch);
        return code == ConversionError.NONE ? java.util.HexFormat.of().formatHex(out.toByteArray()) : "code " + code;
    }

    private static String fieldsOutcome(final Consumer<Bytes<?>> write, final int[] code)
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        write.accept(out);
        return code[0] == ConversionError.NONE
            ? java.util.HexFormat.of().formatHex(out.toByteArray())
            : "code " + code[0] + (out.writePosition() == 0 ? "" : " with bytes written");
    }

    /** Both numeric forms against the JSON encoder of the column type, for one value and one column. */
    private void assertNumericAgrees(final String type, final int precision, final int scale, final BigDecimal v)
    {
        final String expected = jsonOutcome(type, v.toPlainString());
        assertEquals(expected, jsonOutcome(type, v.toString()), "plain and exponent JSON agree: " + v);
        final int[] code = new int[1];
        assertEquals(expected,
            fieldsOutcome(o -> code[0] = PgFields.writeNumeric(o, v, precision, scale), code), type + " " + v);
        if (v.unscaledValue().bitLength() < 64)
        {
            final long u = v.unscaledValue().longValueExact();
            assertEquals(expected, fieldsOutcome(o -> code[0] = PgFields.writeNumeric(o, u, v.scale(), precision,
                scale), code), type + " " + u + " at scale " + v.scale());
            if (precision == io.sluice.codecs.pgcopy.PgType.NONE)
            {
                assertEquals(expected, fieldsOutcome(o -> code[0] = PgFields.writeNumeric(o, u, v.scale()), code));
            }
        }
        else if (precision == io.sluice.codecs.pgcopy.PgType.NONE)
        {
            assertEquals(expected, fieldsOutcome(o -> code[0] = PgFields.writeNumeric(o, v), code));
        }
    }

    @Test
    void shouldWriteNumericAsTheJsonEncoderDoes()
    {
        final String[] types = {"numeric", "numeric(10,2)", "numeric(18,0)", "numeric(5,-2)", "numeric(38,10)",
            "numeric(4,4)", "numeric(1000,30)"};
        final int[][] mods = {{-1, 0}, {10, 2}, {18, 0}, {5, -2}, {38, 10}, {4, 4}, {1000, 30}};
        final List<BigDecimal> values = new java.util.ArrayList<>();
        for (final String s : new String[]{"0", "0.00", "-0.000", "1", "-1", "1.50", "0.005", "-0.005", "0.0049",
            "9999", "10000", "99999999.995", "99999999.994", "-99999999.995", "0.0001", "12345678.9", "1E+7",
            "1.5E+3", "12.3456789", "0.99995", "100000000"})
        {
            values.add(new BigDecimal(s));
        }
        for (final long u : new long[]{Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 10_000_000_000_000_000L,
            -9_999_999_999_999_999L})
        {
            for (final int sc : new int[]{-3, 0, 1, 2, 4, 5, 18, 19, 20, 25})
            {
                values.add(BigDecimal.valueOf(u, sc));
            }
        }
        final Random random = new Random(22);
        for (int i = 0; i < 500; i++)
        {
            final long u = switch (i % 3)
            {
                case 0 -> random.nextLong();
                case 1 -> random.nextInt(1_000_000) - 500_000;
                default -> random.nextLong() / (1L << random.nextInt(63));
            };
            values.add(BigDecimal.valueOf(u, random.nextInt(31) - 5));
            // beyond a long: the BigDecimal form's own path
            final BigInteger big = new BigInteger(64 + random.nextInt(100), random);
            values.add(new BigDecimal(random.nextBoolean() ? big : big.negate(), random.nextInt(60) - 10));
        }
        for (int t = 0; t < types.length; t++)
        {
            for (final BigDecimal v : values)
            {
                assertNumericAgrees(types[t], mods[t][0], mods[t][1], v);
            }
        }
    }

    @Test
    void shouldRefuseNumericsPostgresCannotHoldAndWriteNothing()
    {
        final Bytes<?> out = Bytes.allocateElasticOnHeap(64);
        assertEquals(PgCopyError.NUMERIC_OVERFLOW, PgFields.writeNumeric(out, 100_000_000_00L, 2, 10, 2));
        assertEquals(PgCopyError.NUMERIC_OVERFLOW, PgFields.writeNumeric(out, 9_999_999_999_5L, 3, 10, 2),
            "rounds up to 100000000.00, over 8 integer digits");
        assertEquals(PgCopyError.NUMERIC_FORMAT_OVERFLOW, PgFields.writeNumeric(out, 1, 16_384));
        assertEquals(PgCopyError.NUMERIC_FORMAT_OVERFLOW, PgFields.writeNumeric(out, 1, -131_072));
        assertEquals(PgCopyError.NUMERIC_FORMAT_OVERFLOW, PgFields.writeNumeric(out, new BigDecimal("1E+131072")));
        assertEquals(0, out.writePosition());
        assertEquals(ConversionError.NONE, PgFields.writeNumeric(out, 1, -131_071));
        assertEquals(ConversionError.NONE, PgFields.writeNumeric(out, 1, 16_383));
        assertEquals(ConversionError.NONE, PgFields.writeNumeric(out, 9_999_999_999_4L, 3, 10, 2));
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
            PgFields.beginRow(out, 8);
            PgFields.writeInt8(out, i);
            PgFields.writeText(out, text);
            PgFields.writeJsonb(out, text);
            PgFields.writeTimestamp(out, i * 1_000_000L);
            PgFields.writeDate(out, i);
            PgFields.writeNull(out);
            PgFields.writeNumeric(out, i * 1_234_567L - 5_000, i % 7);
            PgFields.writeNumeric(out, -i * 98_765L, 4, 12, 2);
        }
        final long allocated = threads.getThreadAllocatedBytes(id) - before;
        // a few hundred bytes at most over the whole loop (the JIT's, the bean's), never some per row
        assertTrue((double)allocated / rows < 0.05, "allocated " + allocated + " bytes over " + rows + " rows");
        out.releaseLast();
    }
}
