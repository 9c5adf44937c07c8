package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.ScatterStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.scatter.DeliveryListener;
import io.sluice.core.stage.PipelineControl;

/**
 * Reports a record that cannot be produced: a record from a source is failed in its partition's {@link AckTracker}
 * (worst-status merge: nothing at or after it is committed, and the source re-reads the batch), and the first failure
 * of a batch is logged naming the source, the record's position, the rule and why; a record offered through the
 * embedded API is reported to its {@link DeliveryListener}. A record the broker refuses for good and that has no
 * fallback ({@link #stop}) stops the pipeline at once instead. Nothing is ever dropped silently.
 *
 * <p>Thread-safe: called by the route stage, the produce stage and the producer's I/O thread.
 */
final class RecordFailures
{
    private static final Logger LOG = LoggerFactory.getLogger(RecordFailures.class);

    /** Names a record from its tracker and offset, for messages (allocates). */
    interface Positions
    {
        /**
         * @param trackerId the record's tracker
         * @param offset    its offset (a Kafka offset, or a line index)
         * @return e.g. {@code events-0@1234} or {@code file data.jsonl line 17}
         */
        String where(int trackerId, long offset);
    }

    /** Error code stored with a routing failure in the tracker. */
    static final int CODE_ROUTING = 1;
    /** Error code stored with a producer failure in the tracker. */
    static final int CODE_PRODUCE = 2;
    /** Error code stored with a record the broker refused for good (the pipeline stops). */
    static final int CODE_REFUSED = 3;

    private final String name;
    private final PartitionTrackers trackers;
    private final Positions positions;
    private final ScatterStats stats;
    private final PipelineControl control;

    RecordFailures(final String name, final PartitionTrackers trackers, final Positions positions,
        final ScatterStats stats, final PipelineControl control)
    {
        this.name = name;
        this.trackers = trackers;
        this.positions = positions;
        this.stats = stats;
        this.control = control;
    }

    /**
     * A record that can never be produced and has nowhere else to go: it is failed in its tracker (nothing at or
     * after it is committed) and the pipeline stops at once with exit 1, naming the record and why; a record of the
     * embedded API is reported to its listener instead, and the pipeline goes on (its host decides).
     *
     * @param trackerId  the record's tracker, or -1 for an embedded record
     * @param generation the tracker generation the record was registered under
     * @param offset     its offset (for an embedded record: the correlation id)
     * @param listener   the embedded caller's listener, or null
     * @param why        what the broker refused and why, naming the topic
     */
    void stop(final int trackerId, final int generation, final long offset, final DeliveryListener listener,
        final String why)
    {
        if (listener != null || trackerId < 0)
        {
            fail(trackerId, generation, offset, listener, CODE_REFUSED, why);
            return;
        }
        stats.failed.incrementAndGet();
        final String reason = "record " + positions.where(trackerId, offset) + ": " + why;
        trackers.get(trackerId).fail(offset, generation, CODE_REFUSED, reason);
        LOG.error("{}: {}; the pipeline stops", name, reason);
        control.fail(name + ": " + reason);
    }

    /**
     * @param trackerId the record's tracker, or -1
     * @param offset    its offset, or the embedded correlation id
     * @return the record's name for messages (allocates)
     */
    String where(final int trackerId, final long offset)
    {
        return trackerId < 0 ? "embedded record " + offset : "record " + positions.where(trackerId, offset);
    }

    /**
     * @param trackerId  the record's tracker, or -1 for an embedded record
     * @param generation the tracker generation the record was registered under
     * @param offset     its offset (for an embedded record: the correlation id)
     * @param listener   the embedded caller's listener, or null
     * @param code       {@link #CODE_ROUTING} or {@link #CODE_PRODUCE}
     * @param why        what went wrong, naming the rule, path or topic
     */
    void fail(final int trackerId, final int generation, final long offset, final DeliveryListener listener,
        final int code, final String why)
    {
        stats.failed.incrementAndGet();
        if (listener != null)
        {
            try
            {
                listener.onFailed(offset, why);
            }
            catch (final RuntimeException e)
            {
                LOG.warn("{}: delivery listener threw for record {}: {}", name, offset, e.toString());
            }
            return;
        }
        if (trackerId < 0)
        {
            LOG.error("{}: record {} failed and has nobody to tell: {}", name, offset, why);
            return;
        }
        final AckTracker tracker = trackers.get(trackerId);
        final String reason = "record " + positions.where(trackerId, offset) + ": " + why;
        if (tracker.fail(offset, generation, code, reason) == AckTracker.FAIL_RECORDED)
        {
            LOG.warn("{}: {}; the batch is nacked: nothing from there on is acknowledged, and the source re-reads it",
                name, reason);
        }
    }
}
