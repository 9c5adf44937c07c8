package io.sluice.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.hash.Murmur2;
import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.json.RoutingValues;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;
import io.sluice.codecs.testing.TestData;

/**
 * Measures (does not time) the bytes the calling thread allocates while scanning, deriving, hashing and encoding
 * 100,000 real GitHub events after warm-up: it must be about zero per record.
 */
class ZeroAllocationTest
{
    private static final List<String> PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at",
        "payload.size", "payload.action", "payload", "actor");
    private static final String[] TYPES = {"UInt64", "LowCardinality(String)", "String", "String", "DateTime",
        "Nullable(UInt32)", "Nullable(String)", "String", "Map(String, String)"};
    private static final int RECORDS = 100_000;

    @Test
    void shouldAllocateNothingPerRecordAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "allocation measurement supported");
        threads.setThreadAllocatedMemoryEnabled(true);

        final List<byte[]> events = TestData.githubEvents();
        int total = 0;
        for (final byte[] event : events)
        {
            total += event.length;
        }
        final UnsafeBuffer slab = new UnsafeBuffer(ByteBuffer.allocateDirect(total));
        final int[] offsets = new int[events.size()];
        final int[] lengths = new int[events.size()];
        int at = 0;
        for (int i = 0; i < events.size(); i++)
        {
            slab.putBytes(at, events.get(i));
            offsets[i] = at;
            lengths[i] = events.get(i).length;
            at += lengths[i];
        }

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

        final long before = threads.getCurrentThreadAllocatedBytes();
        run(RECORDS, scanner, encoders, scratch, value, routing, out, slab, offsets, lengths, checksum);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
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
}
