package io.sluice.core.engine;

import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.scatter.ScatterStats;
import io.sluice.core.scatter.internal.ScatterPipeline;
import io.sluice.core.stage.PipelineStats;

/**
 * The engine's periodic status lines ({@code engine.status_interval_ms}), each also a structured event with one
 * key-value pair per number ({@code --log-format json}). Logged under the engine's logger. Stateless.
 */
final class StatusLines
{
    private static final Logger LOG = LoggerFactory.getLogger(SluiceEngine.class);

    private StatusLines()
    {
    }

    /** The status line of a gather pipeline, also as a structured event: one key-value pair per number. */
    static void log(final GatherPipeline<?> p, final double rowsPerSecond)
    {
        final PipelineStats s = p.stats();
        final PartitionTrackers t = p.trackers();
        long lag = 0;
        for (int i = 0; i < t.size(); i++)
        {
            lag += t.isLive(i) ? Math.max(0, t.get(i).inFlight()) : 0;
        }
        LOG.atInfo().setMessage(statusLine(p, rowsPerSecond)).addKeyValue("event", "status")
            .addKeyValue("pipeline", p.name()).addKeyValue("records_in", s.recordsIn.get())
            .addKeyValue("routed", s.recordsRouted.get()).addKeyValue("rows", s.rowsWritten.get())
            .addKeyValue("rows_per_second", Math.round(rowsPerSecond)).addKeyValue("inserts", s.inserts.get())
            .addKeyValue("failed_inserts", s.insertFailures.get())
            .addKeyValue("dropped_unrouted", s.droppedUnrouted.get())
            .addKeyValue("dropped_invalid", s.droppedInvalid.get() + s.droppedRefused.get())
            .addKeyValue("dropped_tombstone", s.droppedTombstone.get()).addKeyValue("checkpoint_lag_records", lag)
            .addKeyValue("partitions", t.live()).addKeyValue("backpressure_pauses", s.backpressurePauses.get())
            .log();
    }

    private static String statusLine(final GatherPipeline<?> p, final double rowsPerSecond)
    {
        final PipelineStats s = p.stats();
        long lag = 0;
        long worstLagMs = 0;
        String worst = "";
        final long now = System.nanoTime();
        final PartitionTrackers t = p.trackers();
        for (int i = 0; i < t.size(); i++)
        {
            if (!t.isLive(i))
            {
                continue;
            }
            final AckTracker tr = t.get(i);
            lag += Math.max(0, tr.inFlight());
            final long ms = TimeUnit.NANOSECONDS.toMillis(tr.stalledNanos(now));
            if (ms > worstLagMs)
            {
                final String holder = p.watermarkHolder(i);
                if (holder != null)
                {
                    worstLagMs = ms;
                    worst = String.format(" oldest: %s-%d %d ms held by %s", tr.topic(), tr.partition(), ms, holder);
                }
            }
        }
        return String.format(
            "%s: in=%d routed=%d rows=%d (%.0f rows/s) inserts=%d failed_inserts=%d "
                + "dropped{unrouted=%d,invalid=%d,tombstone=%d} checkpoint_lag=%d offsets over %d partitions%s; back-pressure pauses=%d",
            p.name(), s.recordsIn.get(), s.recordsRouted.get(), s.rowsWritten.get(), rowsPerSecond, s.inserts.get(),
            s.insertFailures.get(), s.droppedUnrouted.get(), s.droppedInvalid.get() + s.droppedRefused.get(),
            s.droppedTombstone.get(), lag,
            t.live(), worst,
            s.backpressurePauses.get());
    }

    /** The status line of a scatter pipeline, also as a structured event. */
    static void log(final ScatterPipeline p)
    {
        final ScatterStats st = p.stats();
        // the status line, also as a structured event (--log-format json: one field per counter)
        LOG.atInfo().setMessage(p.statusLine()).addKeyValue("event", "status")
            .addKeyValue("pipeline", p.name())
            .addKeyValue("records_in", p.sourceStats().recordsIn.get())
            .addKeyValue("routed", st.routed.get()).addKeyValue("fallback", st.fallbacks.get())
            .addKeyValue("failed", st.failed.get()).addKeyValue("sent", st.sent.get())
            .addKeyValue("produced", st.produced.get()).addKeyValue("produce_errors",
                st.produceErrors.get())
            .addKeyValue("in_flight", p.inFlight()).addKeyValue("topics", p.topics().size()).log();
    }
}
