package io.sluice.core.ack;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The ack trackers of one pipeline, by dense id. A partition keeps its id (and its tracker object) for the life of
 * the pipeline, across revocation and re-assignment; a re-assignment resets the tracker, which bumps its generation
 * so acknowledgements of records from before are ignored.
 *
 * <p>Thread-safety: {@link #trackerFor} and {@link #idOf} are called by the source thread only; {@link #get(int)} by
 * any thread (the array is published through a volatile field, copy-on-write).
 */
public final class PartitionTrackers
{
    private final Map<TopicPartition, Integer> ids = new HashMap<>();
    private final int windowCapacity;
    private volatile AckTracker[] trackers = new AckTracker[0];

    /** @param windowCapacity offsets a partition may have in flight (power of two) */
    public PartitionTrackers(final int windowCapacity)
    {
        this.windowCapacity = windowCapacity;
    }

    /**
     * Returns the partition's tracker, reset to start at {@code startOffset} (source thread, on assignment).
     *
     * @param tp          the partition
     * @param startOffset the position the consumer will read from
     * @return the tracker
     */
    public AckTracker trackerFor(final TopicPartition tp, final long startOffset)
    {
        final Integer id = ids.get(tp);
        if (id != null)
        {
            final AckTracker t = trackers[id];
            t.reset(startOffset);
            return t;
        }
        final int newId = trackers.length;
        final AckTracker t = new AckTracker(tp.topic(), tp.partition(), startOffset, windowCapacity);
        final AckTracker[] next = Arrays.copyOf(trackers, newId + 1);
        next[newId] = t;
        ids.put(tp, newId);
        trackers = next;
        return t;
    }

    /**
     * @param tp a partition
     * @return its id, or -1 if it never had a tracker
     */
    public int idOf(final TopicPartition tp)
    {
        final Integer id = ids.get(tp);
        return id == null ? -1 : id;
    }

    /**
     * @param id a tracker id
     * @return the tracker (any thread)
     */
    public AckTracker get(final int id)
    {
        return trackers[id];
    }

    /** @return number of trackers ever created */
    public int size()
    {
        return trackers.length;
    }
}
