package io.sluice.core.engine;

import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.stage.PipelineStats;

/**
 * The summary a gather pipeline logs when a run ends (and on SIGUSR1): records in, rows written and deleted, drops,
 * dead letters and inserts, rows per table, and the latency percentiles. Stateless; reads the pipeline's counters, which
 * any thread may do.
 */
final class RunSummary
{
    private RunSummary()
    {
    }

    /**
     * @param p       the pipeline
     * @param seconds the run's length so far, in seconds (over 0)
     * @return the summary, several lines without a trailing line break
     */
    static String text(final GatherPipeline<?> p, final double seconds)
    {
        final PipelineStats s = p.stats();
        final Map<String, Long> perTable = new TreeMap<>();
        final Map<String, Long> deletedPerTable = new TreeMap<>();
        for (final Destination d : p.destinations())
        {
            perTable.merge(d.sqlTable(), d.rowsWritten(), Long::sum);
            deletedPerTable.merge(d.sqlTable(), d.rowsDeleted(), Long::sum);
        }
        final Histogram[] h = s.totals();
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format("%s: summary: %d records in, %d rows written%s in %.1f s (%.0f records/s); "
            + "dropped unrouted=%d invalid=%d tombstone=%d; dead letters=%d; inserts=%d (failed attempts %d)%n",
            p.name(), s.recordsIn.get(), s.rowsWritten.get(),
            s.rowsDeleted.get() == 0 ? "" : ", " + s.rowsDeleted.get() + " rows deleted", seconds,
            s.recordsIn.get() / seconds,
            s.droppedUnrouted.get(), s.droppedInvalid.get() + s.droppedRefused.get(), s.droppedTombstone.get(),
            deadLetters(p),
            s.inserts.get(), s.insertFailures.get()));
        for (final Map.Entry<String, Long> e : perTable.entrySet())
        {
            final long deleted = deletedPerTable.get(e.getKey());
            sb.append(String.format("  %-40s %d rows%s%n", e.getKey(), e.getValue(),
                deleted == 0 ? "" : ", " + deleted + " deleted"));
        }
        sb.append(String.format(
            "  latency end-to-end (Kafka timestamp -> the database's ack; includes any wait in Kafka before this run): "
                + "p50=%s p99=%s p99.9=%s max=%s%n",
            ms(h[0], 50), ms(h[0], 99), ms(h[0], 99.9), ms(h[0], 100)));
        sb.append(String.format(
            "  stage hops: source->route (ring) p50=%d ns p99=%d ns; sealed->insert (queue) p50=%s p99=%s; "
                + "insert p50=%s p99=%s",
            h[1].getValueAtPercentile(50), h[1].getValueAtPercentile(99), ms(h[3], 50), ms(h[3], 99), ms(h[2], 50),
            ms(h[2], 99)));
        return sb.toString();
    }

    /** @return the dead letters the broker acknowledged for a gather pipeline, over every reason */
    private static long deadLetters(final GatherPipeline<?> p)
    {
        final DeadLetters d = p.deadLetters();
        long n = 0;
        for (int i = 0; d != null && i < DeadLetterReason.values().length; i++)
        {
            n += d.written(DeadLetterReason.values()[i]);
        }
        return n;
    }

    private static String ms(final Histogram micros, final double percentile)
    {
        if (micros.getTotalCount() == 0)
        {
            return "n/a";
        }
        return String.format("%.1f ms", micros.getValueAtPercentile(percentile) / 1000.0);
    }
}
