package io.sluice.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.hash.Murmur2;
import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.codecs.rowbinary.NativeBlockWriter;
import io.sluice.codecs.testing.TestData;

/**
 * Measures (does not time) the bytes the calling thread allocates while scanning, deriving, hashing and encoding
 * 100,000 real GitHub events after warm-up: it must be about zero per record. The same holds under every duplicate-key
 * policy (with and without duplicates in the records, including the failing scans) and when the records arrive as
 * the elements of top-level arrays, and for records of Int128, UInt128, Int256 and UInt256 values (numbers, numeric
 * strings, exponents, in Nullable, Array and Map).
 */
class ZeroAllocationTest
{
    private static final List<String> PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at",
        "payload.size", "payload.action", "payload", "actor");
    private static final String[] TYPES = {"UInt64", "LowCardinality(String)", "String", "String", "DateTime",
        "Nullable(UInt32)", "Nullable(String)", "String", "Map(String, String)"};
    private static final int RECORDS = 100_000;

    private static com.sun.management.ThreadMXBean threads()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "allocation measurement supported");
        threads.setThreadAllocatedMemoryEnabled(true);
        return threads;
    }

    /**
     * The fewest bytes the thread allocated in one of three runs of the work: a per-record allocation shows in
     * every run, whereas a one-time event of the JVM inside the window (seen about once in six runs, ~24 KB, also
     * before the duplicate-key work) does not repeat.
     */
    private static long leastAllocated(final com.sun.management.ThreadMXBean threads, final Runnable work)
    {
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            work.run();
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }

    /** Documents laid out one after another in one direct buffer, as record slots hold them. */
    private static final class Slab
    {
        final UnsafeBuffer buffer;
        final int[] offsets;
        final int[] lengths;

        Slab(final List<byte[]> documents)
        {
            int total = 0;
            for (final byte[] d : documents)
            {
                total += d.length;
            }
            buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(total));
            offsets = new int[documents.size()];
            lengths = new int[documents.size()];
            int at = 0;
            for (int i = 0; i < documents.size(); i++)
            {
                buffer.putBytes(at, documents.get(i));
                offsets[i] = at;
                lengths[i] = documents.get(i).length;
                at += lengths[i];
            }
        }
    }

    @Test
    void shouldAllocateNothingPerRecordAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads = threads();
        final List<byte[]> events = TestData.githubEvents();
        final Slab s = new Slab(events);
        final UnsafeBuffer slab = s.buffer;
        final int[] offsets = s.offsets;
        final int[] lengths = s.lengths;

        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
        final ColumnEncoder[] encoders = new ColumnEncoder[TYPES.length];
        for (int c = 0; c < TYPES.length; c++)
        {
            encoders[c] = ColumnEncoder.forType(TYPES[c], EncoderOptions.DEFAULTS);
        }
        final EncodeScratch scratch = new EncodeScratch(1 << 20);
        final JsonValueView value = new JsonValueView();
        final UnsafeBuffer routing = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final Bytes<?> out = Bytes.allocateElasticDirect(64 << 20);

        final long[] checksum = new long[1];
        run(events.size(), scanner, encoders, scratch, value, routing, out, slab, offsets, lengths, checksum);
        run(events.size() * 3, scanner, encoders, scratch, value, routing, out, slab, offsets, lengths, checksum);

        final long allocated = leastAllocated(threads,
            () -> run(RECORDS, scanner, encoders, scratch, value, routing, out, slab, offsets, lengths, checksum));
        out.releaseLast();

        assertTrue(checksum[0] != 0, "work was done");
        final double perRecord = (double)allocated / RECORDS;
        assertTrue(perRecord < 0.05, "allocated " + allocated + " bytes for " + RECORDS + " records (" + perRecord +
            " B/record)");
    }

    private static void run(final int records, final JsonScanner scanner, final ColumnEncoder[] encoders,
        final EncodeScratch scratch, final JsonValueView value, final UnsafeBuffer routing, final Bytes<?> out,
        final UnsafeBuffer slab, final int[] offsets, final int[] lengths, final long[] checksum)
    {
        long sum = checksum[0];
        for (int r = 0; r < records; r++)
        {
            if (out.writePosition() > (32 << 20))
            {
                out.clear();
            }
            final int i = r % offsets.length;
            assertEquals(JsonError.NONE, scanner.scan(slab, offsets[i], lengths[i]));
            scanner.value(3, value);
            final int n = RoutingValues.derive(value, routing, 0);
            sum += Murmur2.bucket(Murmur2.hash(routing, 0, n), 16);
            final long rowStart = out.writePosition();
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                final int code = encoders[c].encode(value, out, scratch);
                if (code != ConversionError.NONE)
                {
                    out.writePosition(rowStart);
                    throw new AssertionError(encoders[c].describeFailure(PATHS.get(c), code) + " in record " + i);
                }
            }
            sum += out.writePosition() - rowStart;
        }
        checksum[0] = sum;
    }

    @Test
    void shouldAllocateNothingUnderEveryDuplicateKeyPolicy()
    {
        final com.sun.management.ThreadMXBean threads = threads();
        final List<byte[]> events = TestData.githubEvents();
        // every event once as it is and once with a duplicated "type" key in front (its real value comes later)
        final List<byte[]> documents = new ArrayList<>();
        for (final byte[] e : events)
        {
            documents.add(e);
            final String text = new String(e, StandardCharsets.UTF_8);
            documents.add(("{\"type\":\"Dup\"," + text.substring(1)).getBytes(StandardCharsets.UTF_8));
        }
        final Slab slab = new Slab(documents);
        final JsonValueView value = new JsonValueView();
        for (final DuplicateKeys policy : DuplicateKeys.values())
        {
            final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH,
                policy);
            final long[] counts = new long[2];
            scanAll(slab, scanner, value, documents.size() * 2, policy, counts);
            final long allocated = leastAllocated(threads,
                () -> scanAll(slab, scanner, value, RECORDS, policy, counts));
            assertTrue(counts[0] > 0 && counts[1] > 0, policy + ": both kinds of records were scanned");
            final double perRecord = (double)allocated / RECORDS;
            assertTrue(perRecord < 0.05, policy + ": allocated " + allocated + " bytes for " + RECORDS +
                " records (" + perRecord + " B/record)");
        }
    }

    /** Scans records; counts[0] those without and counts[1] those with a duplicate, checking what each gives. */
    private static void scanAll(final Slab slab, final JsonScanner scanner, final JsonValueView value,
        final int records, final DuplicateKeys policy, final long[] counts)
    {
        for (int r = 0; r < records; r++)
        {
            final int i = r % slab.offsets.length;
            final int code = scanner.scan(slab.buffer, slab.offsets[i], slab.lengths[i]);
            final boolean duplicated = (i & 1) == 1;
            counts[duplicated ? 1 : 0]++;
            if (duplicated && policy == DuplicateKeys.FAIL)
            {
                assertEquals(JsonError.DUPLICATE_KEY, code);
                continue;
            }
            assertEquals(JsonError.NONE, code);
            scanner.value(1, value);
            // "Dup" is 3 bytes long; every real event type is longer
            final boolean dupWins = duplicated && policy == DuplicateKeys.FIRST;
            assertEquals(dupWins, value.length() == 3);
        }
    }

    @Test
    void shouldAllocateNothingWhileScanningTheElementsOfTopLevelArrays()
    {
        final com.sun.management.ThreadMXBean threads = threads();
        final List<byte[]> events = TestData.githubEvents();
        final List<byte[]> arrays = new ArrayList<>();
        for (int i = 0; i + 3 <= events.size(); i += 3)
        {
            final ByteArrayOutputStream a = new ByteArrayOutputStream();
            a.write('[');
            a.writeBytes(events.get(i));
            a.write(',');
            a.writeBytes(events.get(i + 1));
            a.writeBytes(",\n".getBytes(StandardCharsets.UTF_8));
            a.writeBytes(events.get(i + 2));
            a.write(']');
            arrays.add(a.toByteArray());
        }
        final Slab slab = new Slab(arrays);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH,
            DuplicateKeys.FAIL);
        final JsonScanner row = new JsonScanner(JsonPathSet.compile(List.of("id", "repo.name")),
            JsonScanner.DEFAULT_MAX_DEPTH, DuplicateKeys.FAIL);
        final JsonValueView value = new JsonValueView();
        final long[] sum = new long[1];
        elementsOf(slab, scanner, row, value, arrays.size() * 2, sum);
        final long allocated = leastAllocated(threads, () -> elementsOf(slab, scanner, row, value, RECORDS / 3, sum));
        assertTrue(sum[0] != 0, "work was done");
        final double perRecord = (double)allocated / RECORDS;
        assertTrue(perRecord < 0.05, "allocated " + allocated + " bytes for " + RECORDS + " elements (" + perRecord +
            " B/element)");
    }

    private static void elementsOf(final Slab slab, final JsonScanner scanner, final JsonScanner row,
        final JsonValueView value, final int documents, final long[] sum)
    {
        long s = sum[0];
        for (int r = 0; r < documents; r++)
        {
            final int i = r % slab.offsets.length;
            assertEquals(JsonKind.ARRAY, JsonScanner.topLevelKind(slab.buffer, slab.offsets[i], slab.lengths[i]));
            assertEquals(JsonError.NONE, scanner.beginElements(slab.buffer, slab.offsets[i], slab.lengths[i]));
            int index;
            while ((index = scanner.nextElement()) >= 0)
            {
                assertEquals(JsonKind.OBJECT, scanner.rootKind());
                scanner.value(3, value);
                s += value.length() + index;
                // a second scanner of the same record reads the element's range, as a branch's scope would
                assertEquals(JsonError.NONE, row.scan(slab.buffer, scanner.elementOffset(), scanner.elementLength()));
                row.value(1, value);
                s += value.length();
            }
            assertEquals(JsonScanner.NO_MORE_ELEMENTS, index);
        }
        sum[0] = s;
    }

    private static final List<String> WIDE_PATHS = List.of("a", "b", "c", "d", "n", "r", "m");
    private static final String[] WIDE_TYPES = {"Int128", "UInt128", "Int256", "UInt256", "Nullable(Int256)",
        "Array(UInt128)", "Map(UInt256, Int128)"};

    /**
     * Records whose values span the wide integers' ranges: random magnitudes of up to 127, 128, 255 and 256 bits,
     * as numbers and as numeric strings, with exponent spellings, nulls, arrays and maps of them.
     */
    private static List<byte[]> wideRecords()
    {
        final java.util.Random random = new java.util.Random(42);
        final List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < 4096; i++)
        {
            final java.math.BigInteger a = new java.math.BigInteger(random.nextInt(128), random);
            final java.math.BigInteger b = new java.math.BigInteger(128, random);
            final java.math.BigInteger c = new java.math.BigInteger(random.nextInt(255), random)
                .add(java.math.BigInteger.ONE);
            final java.math.BigInteger d = new java.math.BigInteger(256, random);
            final String record = "{\"a\":" + (random.nextBoolean() ? "-" : "") + a + ",\"b\":\"" + b
                + "\",\"c\":" + (random.nextBoolean() ? "-" + c : c + "000e-3") + ",\"d\":\"" + d
                + "\",\"n\":" + (i % 3 == 0 ? "null" : "-" + c) + ",\"r\":[" + a + ",\"" + b + "\",1e30]"
                + ",\"m\":{\"" + d + "\":-" + a + ",\"7\":true}}";
            records.add(record.getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }

    @Test
    void shouldAllocateNothingWhileEncodingWideIntegers()
    {
        final com.sun.management.ThreadMXBean threads = threads();
        final List<byte[]> records = wideRecords();
        final Slab s = new Slab(records);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(WIDE_PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
        final ColumnEncoder[] encoders = new ColumnEncoder[WIDE_TYPES.length];
        for (int c = 0; c < WIDE_TYPES.length; c++)
        {
            encoders[c] = ColumnEncoder.forType(WIDE_TYPES[c], EncoderOptions.DEFAULTS);
        }
        final EncodeScratch scratch = new EncodeScratch(1 << 16);
        final JsonValueView value = new JsonValueView();
        final Bytes<?> out = Bytes.allocateElasticDirect(64 << 20);
        final long[] written = new long[1];
        final Runnable work = () ->
        {
            long sum = written[0];
            for (int r = 0; r < RECORDS; r++)
            {
                if (out.writePosition() > (32 << 20))
                {
                    out.clear();
                }
                final int i = r % s.offsets.length;
                assertEquals(JsonError.NONE, scanner.scan(s.buffer, s.offsets[i], s.lengths[i]));
                final long rowStart = out.writePosition();
                for (int c = 0; c < encoders.length; c++)
                {
                    scanner.value(c, value);
                    final int code = encoders[c].encode(value, out, scratch);
                    if (code != ConversionError.NONE)
                    {
                        throw new AssertionError(encoders[c].describeFailure(WIDE_PATHS.get(c), code) + " in record "
                            + new String(records.get(i), StandardCharsets.UTF_8));
                    }
                }
                sum += out.writePosition() - rowStart;
            }
            written[0] = sum;
        };
        work.run();
        work.run();
        final long allocated = leastAllocated(threads, work);
        out.releaseLast();
        assertTrue(written[0] > (long)RECORDS * 16 * 6, "work was done: " + written[0] + " bytes");
        final double perRecord = (double)allocated / RECORDS;
        assertTrue(perRecord < 0.05, "allocated " + allocated + " bytes for " + RECORDS + " records (" + perRecord
            + " B/record)");
    }

    @Test
    void shouldAllocateNothingWhileRewritingBatchesIntoNativeBlocks()
    {
        final com.sun.management.ThreadMXBean threads = threads();
        final List<byte[]> events = TestData.githubEvents();
        final Slab slab = new Slab(events);
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH,
            DuplicateKeys.FAIL);
        final ColumnEncoder[] encoders = new ColumnEncoder[TYPES.length];
        for (int c = 0; c < TYPES.length; c++)
        {
            encoders[c] = ColumnEncoder.forType(TYPES[c], EncoderOptions.DEFAULTS);
        }
        final EncodeScratch scratch = new EncodeScratch(1 << 20);
        final JsonValueView value = new JsonValueView();
        final Bytes<?> rows = Bytes.allocateElasticDirect(64 << 20);
        final int batch = 2048;
        for (int r = 0; r < batch; r++)
        {
            final int i = r % slab.offsets.length;
            assertEquals(JsonError.NONE, scanner.scan(slab.buffer, slab.offsets[i], slab.lengths[i]));
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                assertEquals(ConversionError.NONE, encoders[c].encode(value, rows, scratch));
            }
        }
        final Bytes<?> out = Bytes.allocateElasticDirect(64 << 20);
        final NativeBlockWriter writer = new NativeBlockWriter(PATHS, List.of(TYPES));
        final long end = rows.writePosition();
        final Runnable blocks = () ->
        {
            for (int b = 0; b < 8; b++)
            {
                out.clear();
                writer.writeBlock(rows, 0, end, batch, out);
            }
        };
        blocks.run();
        blocks.run();
        final long allocated = leastAllocated(threads, blocks);
        writer.close();
        rows.releaseLast();
        out.releaseLast();
        final double perRow = (double)allocated / (8 * batch);
        assertTrue(perRow < 0.05, "allocated " + allocated + " bytes for " + 8 * batch + " rows (" + perRow +
            " B/row)");
    }
}
