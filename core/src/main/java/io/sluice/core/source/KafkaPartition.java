package io.sluice.core.source;

import java.time.Duration;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;

/**
 * What a {@link KafkaSource} keeps of one assigned partition: its topic id, tracker, re-read schedule, committed
 * offset, and the ring sequence of the last record it published. Source thread only.
 */
final class KafkaPartition
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSource.class);

    final TopicPartition tp;
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

    KafkaPartition(final TopicPartition tp, final int topicId, final int trackerId, final AckTracker tracker,
        final long committed, final RereadSchedule reread)
    {
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
            LOG.warn("{}: {} moved from offset {} to {} without returning the {} record(s) between (out of range: "
                + "deleted by retention or truncated before they were read; auto.offset.reset = {}); they are not in "
                + "Kafka any more and the watermark goes past them", pipeline, tp, end, position, position - end,
                autoOffsetReset);
            fetched = position;
            skipTo(position);
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
}
