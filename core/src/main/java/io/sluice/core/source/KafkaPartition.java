package io.sluice.core.source;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.stage.PaddedAtomicLong;

/**
 * What a {@link KafkaSource} keeps of one assigned partition: its topic id, tracker, re-read schedule, committed
 * offset, and the ring sequence of the last record it published. Source thread only.
 */
final class KafkaPartition
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSource.class);

    final TopicPartition tp;
    /** The pipeline's name, for the log. */
    final String pipeline;
    final int topicId;
    final int trackerId;
    final AckTracker tracker;
    /** When to read it again after a failure; null when the source does not re-read. */
    final RereadSchedule reread;
    long committed;
    /**
     * The consumer's position after the last poll that returned this partition, once every record of it was
     * registered, while the tracker could not take it yet (its window was full); -1 when there is none.
     */
    long pendingSkip = -1;
    /**
     * The ring sequence of the flush published when the partition was held for a re-read: once the stages after the
     * ring settled everything up to it, every record published from the partition has been written or failed.
     * -1 while none is published (the ring was full: published on a later duty cycle).
     */
    long settleSequence = -1;
    /**
     * The consumer's position as the source last saw it: at the assignment, after a poll that returned the partition
     * (its next offset), or after the re-read's seek. A position above it that no poll returned is the consumer's own
     * jump ({@link #skipOffsetsNeverReturned}).
     */
    long fetched = -1;
    /** The offsets a re-read need not send again; null until the first re-read. */
    RereadFilter filter;
    /** Reads what the exactly-once tables hold of it again after a reset. */
    PositionLoader positions = PositionLoader.NONE;

    KafkaPartition(final String pipeline, final TopicPartition tp, final int topicId, final int trackerId,
        final AckTracker tracker, final long committed, final RereadSchedule reread)
    {
        this.pipeline = pipeline;
        this.tp = tp;
        this.topicId = topicId;
        this.trackerId = trackerId;
        this.tracker = tracker;
        this.committed = committed;
        this.reread = reread;
    }

    /**
     * Declares that no record below {@code position} is still to come beyond those registered: trailing transaction
     * markers and records of aborted transactions (which {@code read_committed} filters out) are gaps, so the
     * watermark can reach the consumer's position. Kept for a later {@link #retrySkip()} while the window is full.
     *
     * @param position the consumer's position for this partition after a poll whose records are all registered
     */
    void skipTo(final long position)
    {
        if (position > pendingSkip)
        {
            pendingSkip = position;
        }
        retrySkip();
    }

    /** Applies a kept {@link #skipTo} once the tracker's window has room. */
    void retrySkip()
    {
        final long to = pendingSkip;
        if (to < 0)
        {
            return;
        }
        if (to <= tracker.registeredEnd() || tracker.trySkipTo(to) == AckTracker.REGISTERED)
        {
            pendingSkip = -1;
        }
    }

    /**
     * A consumer whose position was out of range (the records were deleted by retention, or the log was truncated)
     * resets by {@code auto.offset.reset} and moves past offsets it never returns: without this the watermark would
     * wait for them for ever (no record, no failure, no commit). Acts only when every record a poll returned is
     * registered ({@link #fetched} at or below the registered end: records polled but dropped, at a stop or a
     * re-read, are never skipped) and the position is above what any poll or seek left ({@link #fetched}). Once per
     * commit interval.
     *
     * @param consumer        the source's consumer (source thread)
     * @param pipeline        the pipeline's name, for the log
     * @param autoOffsetReset the consumer's {@code auto.offset.reset}, for the log
     */
    void skipOffsetsNeverReturned(final Consumer<?, ?> consumer, final String pipeline, final String autoOffsetReset)
    {
        if (holding() || pendingSkip >= 0)
        {
            return;
        }
        final long position;
        try
        {
            position = consumer.position(tp, Duration.ZERO);
        }
        catch (final TimeoutException e)
        {
            return; // the position is being reset or validated: the next interval sees it
        }
        final long end = tracker.registeredEnd();
        if (fetched >= 0 && end >= fetched && position > fetched)
        {
            LOG.warn("{}: {} moved from offset {} to {} without returning the {} record(s) between: its offset was "
                + "out of range (records deleted by retention or truncated before they were read) and "
                + "auto.offset.reset = {} {}; the watermark goes past them", pipeline, tp, end, position,
                position - end, autoOffsetReset, "latest".equals(autoOffsetReset)
                    ? "moved it to the log end, past any records still in Kafka as well"
                    : "moved it to the log start");
            fetched = position;
            skipTo(position);
        }
    }

    /**
     * The first record a poll returned for the partition. Below the registered end it means the consumer went back
     * on its own: its offset was out of range above the log end (the topic re-created, or the log truncated) and
     * {@code auto.offset.reset} moved it to the log start or end. The tracker starts over there (a new generation:
     * acknowledgements still in flight for the old offsets are ignored) and the next commit writes the lower offset;
     * without this the record would be refused as "not above the last registered offset" on every start.
     *
     * @param first the offset of the first record returned (source thread, partition not held for a re-read)
     */
    void firstReturned(final long first)
    {
        final long end = tracker.registeredEnd();
        if (first >= end)
        {
            return;
        }
        LOG.warn("{}: {} returned offset {} below offset {} it had reached: its offset was out of range above the "
            + "log end (the topic re-created or its log truncated) and the consumer reset; reading from {} on (what "
            + "was registered above it is forgotten)", pipeline, tp, first, end, first);
        tracker.reset(first);
        positions.load(List.of(this));
        committed = first;
        pendingSkip = -1;
        if (filter != null)
        {
            filter.clear();
        }
    }

    /** @return the partition's re-read filter, created on first use */
    RereadFilter filter()
    {
        if (filter == null)
        {
            filter = new RereadFilter();
        }
        return filter;
    }

    /** @return whether it failed and waits to be read again */
    boolean holding()
    {
        return reread != null && reread.holding();
    }

    long failSinceNanos()
    {
        return reread == null ? RereadSchedule.NO_FAILURE : reread.failSinceNanos();
    }

    /**
     * Reads the partition again from its watermark ({@link RereadSchedule#REREAD}): the offsets above it written
     * already are kept out of the re-read ({@link RereadFilter}), the consumer seeks back, the tracker starts a new
     * generation, and the exactly-once tables' positions are read again. Source thread; allocates only its log line,
     * when some offsets are written already.
     *
     * @param consumer the source's consumer
     * @param loader   the source's reader of stored positions
     * @param rereads  the pipeline's re-read counters, by {@link RereadSchedule#cause()}
     */
    void rereadFromWatermark(final Consumer<?, ?> consumer, final PositionLoader loader,
        final PaddedAtomicLong[] rereads)
    {
        final long wm = tracker.watermark();
        final long written = filter().capture(tracker, wm);
        consumer.seek(tp, wm);
        fetched = wm;
        tracker.reset(wm);
        loader.load(List.of(this));
        settleSequence = -1;
        pendingSkip = -1;
        reread.rereading(wm);
        final PaddedAtomicLong count = rereads[reread.cause()];
        count.lazySet(count.get() + 1);
        if (written > 0)
        {
            LOG.atInfo().addKeyValue("topic", tp.topic()).addKeyValue("partition", tp.partition())
                .addKeyValue("offset", wm).log("{}: {} re-reading from offset {}: {} of the {} offsets up to {} are "
                    + "written already and are not sent again", pipeline, tp, wm, written, filter.capturedEnd() - wm,
                    filter.capturedEnd());
        }
    }

    /** @return {@link RereadSchedule#stallClockFloorNanos()}, or {@link RereadSchedule#NO_FAILURE} */
    long stallClockFloorNanos()
    {
        return reread == null ? RereadSchedule.NO_FAILURE : reread.stallClockFloorNanos();
    }
}
