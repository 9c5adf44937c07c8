package io.sluice.core.source;

import org.apache.kafka.common.TopicPartition;

import io.sluice.core.ack.AckTracker;

/**
 * What a {@link KafkaSource} keeps of one assigned partition: its topic id, tracker, re-read schedule, committed
 * offset, and the ring sequence of the last record it published. Source thread only.
 */
final class KafkaPartition
{
    final TopicPartition tp;
    final int topicId;
    final int trackerId;
    final AckTracker tracker;
    /** When to read it again after a failure; null when the source does not re-read. */
    final RereadSchedule reread;
    long committed;
    /** Ring sequence of the last record published from this partition. */
    long lastSequence = -1;

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
