package io.sluice.codecs.pgcopy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.testing.TestData;

/**
 * Measures (does not time) the bytes the calling thread allocates while scanning real GitHub events and encoding
 * them as binary COPY tuples into one reused off-heap batch buffer, after warm-up: it must be about zero per
 * record, as for the RowBinary encoders (codecs' ZeroAllocationTest). The columns cover the text, number, numeric
 * (rounded), timestamp, json, jsonb and array encoders, and NULLs (columns absent from most events); refused
 * values (a numeric overflow, a too long varchar) are measured too, as they are expected outcomes, not exceptions.
 */
class PgCopyZeroAllocationTest
{
    private static final List<String> PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at",
        "payload.size", "payload.action", "payload", "actor", "actor.id", "payload.commits", "repo.id");
    private static final String[] TYPES = {"bigint", "text", "character varying(12)", "text",
        "timestamp with time zone", "integer", "varchar(20)", "jsonb", "json", "numeric(9,2)", "jsonb[]",
        "numeric"};
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
        for (final byte[] e : events)
        {
            total += e.length;
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
        final PgColumnEncoder[] encoders = new PgColumnEncoder[TYPES.length];
        for (int c = 0; c < TYPES.length; c++)
        {
            encoders[c] = PgColumnEncoder.forType(TYPES[c], c != 0);
        }
        final PgScratch scratch = new PgScratch(1 << 20);
        final JsonValueView value = new JsonValueView();
        final Bytes<?> out = Bytes.allocateElasticDirect(64 << 20);
        final long[] counts = new long[3];
        final Runnable warm = () -> run(events.size() * 3, scanner, encoders, scratch, value, out, slab, offsets,
            lengths, counts);
        warm.run();
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            run(RECORDS, scanner, encoders, scratch, value, out, slab, offsets, lengths, counts);
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        out.releaseLast();
        assertTrue(counts[0] > 0, "tuples were written");
        assertTrue(counts[1] > 0 && counts[1] < counts[0],
            "some values were refused (numeric overflow, too long varchar): " + counts[1] + " of "
                + (counts[0] + counts[1]));
        assertTrue(counts[2] > 0, "some fields were NULL");
        final double perRecord = (double)least / RECORDS;
        assertTrue(perRecord < 0.05, "allocated " + least + " bytes for " + RECORDS + " records (" + perRecord +
            " B/record)");
    }

    private static void run(final int records, final JsonScanner scanner, final PgColumnEncoder[] encoders,
        final PgScratch scratch, final JsonValueView value, final Bytes<?> out, final UnsafeBuffer slab,
        final int[] offsets, final int[] lengths, final long[] counts)
    {
        out.clear();
        PgCopy.writeHeader(out);
        for (int r = 0; r < records; r++)
        {
            if (out.writePosition() > (32 << 20))
            {
                PgCopy.writeTrailer(out);
                out.clear();
                PgCopy.writeHeader(out);
            }
            final int i = r % offsets.length;
            assertEquals(JsonError.NONE, scanner.scan(slab, offsets[i], lengths[i]));
            final long tupleStart = out.writePosition();
            PgCopy.beginTuple(out, encoders.length);
            boolean written = true;
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                if (value.isMissing())
                {
                    counts[2]++;
                }
                final int code = encoders[c].encode(value, out, scratch);
                if (code != ConversionError.NONE)
                {
                    out.writePosition(tupleStart);
                    counts[1]++;
                    written = false;
                    break;
                }
            }
            if (written)
            {
                counts[0]++;
            }
        }
        PgCopy.writeTrailer(out);
    }
}
