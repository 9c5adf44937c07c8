package io.sluice.core.source;

import org.agrona.ExpandableDirectByteBuffer;

import io.sluice.ringbuffers.RecordEvent;

/**
 * A claimed ring slot, filled by {@link RingPublisher#tryClaim}: the caller starts the record with
 * {@link #record(int, int, long, long, int, int)}, writes its value, key and headers into the returned event, and
 * ends the claim with {@link #commit()} (the stages after the ring see the record) or {@link #abort()} (they see a
 * no-op). Exactly one of the two must follow every {@link RingPublisher#OFFERED}, also when writing throws.
 *
 * <p>A flyweight: one per publishing thread, reused for every record; not thread-safe.
 */
public final class RecordClaim
{
    private RingPublisher publisher;
    private RecordEvent event;
    private ExpandableDirectByteBuffer buffer;
    private long sequence = -1;
    private int requiredBytes;

    void wrap(final RingPublisher publisher, final long sequence, final RecordEvent event,
        final ExpandableDirectByteBuffer buffer, final int requiredBytes)
    {
        this.publisher = publisher;
        this.sequence = sequence;
        this.event = event;
        this.buffer = buffer;
        this.requiredBytes = requiredBytes;
    }

    /** @return the claimed ring sequence, or -1 when the claim holds no slot */
    public long sequence()
    {
        return sequence;
    }

    /**
     * Starts the record in the claimed slot (in the borrowed overflow buffer when it is larger than the slot).
     *
     * @param topicId     the record's topic id (0 when there is none)
     * @param partition   its partition (0 when there is none)
     * @param offset      its offset (a line index; for the embedded API, the caller's correlation id)
     * @param timestampMs its timestamp, epoch ms (0 when unknown)
     * @param trackerId   its tracker's id, -1 when none
     * @param generation  the tracker generation it was registered under
     * @return the event to write the value, key and headers into
     */
    public RecordEvent record(final int topicId, final int partition, final long offset, final long timestampMs,
        final int trackerId, final int generation)
    {
        final RecordEvent e = event;
        e.beginRecord(buffer, requiredBytes, topicId, partition, offset, timestampMs, trackerId, generation);
        buffer = null;
        return e;
    }

    /** Publishes the record. */
    public void commit()
    {
        final long s = sequence;
        sequence = -1;
        publisher.commit(event, s);
    }

    /** Publishes the slot as a no-op that every stage skips, and returns a borrowed overflow buffer. */
    public void abort()
    {
        final long s = sequence;
        if (s < 0)
        {
            return;
        }
        sequence = -1;
        final ExpandableDirectByteBuffer unused = buffer;
        buffer = null;
        publisher.abort(event, s, unused);
    }
}
