package io.sluice.core.source;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.NanoClock;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;

import io.sluice.core.ack.AckTracker;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * How every source puts a record into its ring: claim a slot, write the record into the claimed event (a flyweight
 * over the slot, or over a borrowed overflow buffer for a record larger than the slot), then commit it (publish) or
 * abort it. The shape of Aeron's {@code ExclusivePublication.tryClaim} with its {@code BufferClaim}: one exit, and
 * an outcome code for everything expected, so the hot path neither throws nor waits:
 * <ul>
 * <li>{@link #OFFERED}: the claim holds a slot; write, then {@link RecordClaim#commit()} or
 * {@link RecordClaim#abort()};</li>
 * <li>{@link #BACK_PRESSURED}: no free slot, or no free overflow buffer for a large record; nothing was taken;</li>
 * <li>{@link #WINDOW_FULL}: the partition's {@link AckTracker} window is full; nothing was taken;</li>
 * <li>{@link #TOO_LARGE}: the record is larger than {@code engine.max_record_bytes}; nothing was taken (a source
 * that reports such records downstream claims a slot of 0 bytes and marks it,
 * {@link RecordEvent#markTooLarge(int)});</li>
 * <li>{@link #CLOSED}: the publisher was closed; nothing was taken.</li>
 * </ul>
 *
 * <p>On a single-producer ring (a source thread) the slot is checked for before anything is taken, so a claim with
 * a tracker registers the offset only when the slot is there. On a multi-producer ring (the embedded API's host
 * threads) the slot is claimed last, and claims carry no tracker: a registered offset cannot be taken back.
 * {@link RecordClaim#abort()} publishes the slot as a {@link RecordEvent#KIND_NOOP} event that every stage skips
 * (a claimed sequence must be published, or the stages after the ring would wait for it forever).
 *
 * <p>Thread-safety: on a single-producer ring, one thread; on a multi-producer ring, any number of threads, each with
 * its own {@link RecordClaim}. Nothing here allocates.
 */
public final class RingPublisher
{
    /** The claim holds a slot. */
    public static final int OFFERED = 0;
    /** No room now (ring, or overflow pool for a large record); nothing was taken. */
    public static final int BACK_PRESSURED = -1;
    /** The publisher is closed; nothing was taken. */
    public static final int CLOSED = -2;
    /** The record is larger than {@code engine.max_record_bytes}; nothing was taken. */
    public static final int TOO_LARGE = -3;
    /** The partition's ack window is full; nothing was taken. */
    public static final int WINDOW_FULL = -4;

    private final RingBuffer<RecordEvent> ring;
    private final OverflowPool overflow;
    private final NanoClock clock;
    private final int slotCapacity;
    private final int maxRecordBytes;
    private final boolean multiProducer;
    private volatile boolean closed;

    /**
     * @param ring           the ring
     * @param multiProducer  whether several threads publish (the ring was built multi-producer)
     * @param overflow       buffers for records larger than a slot
     * @param maxRecordBytes {@code engine.max_record_bytes}: larger records are {@link #TOO_LARGE}
     * @param clock          stamps each record at commit ({@link RecordEvent#publishNanos()}, the ring hop latency)
     */
    public RingPublisher(final RingBuffer<RecordEvent> ring, final boolean multiProducer, final OverflowPool overflow,
        final int maxRecordBytes, final NanoClock clock)
    {
        this.ring = ring;
        this.multiProducer = multiProducer;
        this.overflow = overflow;
        this.maxRecordBytes = maxRecordBytes;
        this.clock = clock;
        this.slotCapacity = ring.get(0).slotCapacity();
    }

    /**
     * Claims a slot for a record that no ack tracker follows (the embedded API).
     *
     * @param requiredBytes the record's bytes ({@link RecordEvent#requiredBytes})
     * @param claim         the caller's claim, filled on {@link #OFFERED}
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED}, {@link #TOO_LARGE} or {@link #CLOSED}
     */
    public int tryClaim(final int requiredBytes, final RecordClaim claim)
    {
        return tryClaim(requiredBytes, null, 0, claim);
    }

    /**
     * Claims a slot and registers the record's offset with its partition's tracker.
     *
     * @param requiredBytes the record's bytes ({@link RecordEvent#requiredBytes})
     * @param tracker       the partition's tracker, or {@code null}; only on a single-producer ring
     * @param offset        the record's offset (a Kafka offset, a line index)
     * @param claim         the caller's claim, filled on {@link #OFFERED}
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED}, {@link #WINDOW_FULL}, {@link #TOO_LARGE} or {@link #CLOSED}
     * @throws IllegalArgumentException from {@link AckTracker#tryRegister} for an offset that does not increase
     */
    public int tryClaim(final int requiredBytes, final AckTracker tracker, final long offset, final RecordClaim claim)
    {
        if (closed)
        {
            return CLOSED;
        }
        if (requiredBytes > maxRecordBytes)
        {
            return TOO_LARGE;
        }
        if (!multiProducer && !ring.hasAvailableCapacity(1))
        {
            return BACK_PRESSURED;
        }
        ExpandableDirectByteBuffer buffer = null;
        if (requiredBytes > slotCapacity)
        {
            buffer = overflow.tryAcquire();
            if (buffer == null)
            {
                return BACK_PRESSURED;
            }
        }
        if (tracker != null && register(tracker, offset, buffer) != AckTracker.REGISTERED)
        {
            return WINDOW_FULL;
        }
        final long sequence;
        if (multiProducer)
        {
            try
            {
                sequence = ring.tryNext();
            }
            catch (final InsufficientCapacityException e)
            {
                overflow.release(buffer);
                return BACK_PRESSURED;
            }
        }
        else
        {
            sequence = ring.next();
        }
        claim.wrap(this, sequence, ring.get(sequence), buffer, requiredBytes);
        return OFFERED;
    }

    private int register(final AckTracker tracker, final long offset, final ExpandableDirectByteBuffer buffer)
    {
        final int rc;
        try
        {
            rc = tracker.tryRegister(offset);
        }
        catch (final RuntimeException e)
        {
            overflow.release(buffer);
            throw e;
        }
        if (rc != AckTracker.REGISTERED)
        {
            overflow.release(buffer);
        }
        return rc;
    }

    /**
     * Publishes a control event (single-producer ring; waits for a slot).
     *
     * @param kind  {@link RecordEvent#KIND_FLUSH} or {@link RecordEvent#KIND_NOOP}
     * @param token carried to the stages
     * @return the event's ring sequence
     */
    public long publishControl(final int kind, final long token)
    {
        final long sequence = ring.next();
        ring.get(sequence).beginControl(kind, token);
        ring.publish(sequence);
        return sequence;
    }

    /**
     * Publishes a control event if the ring has a free slot now (never waits: in the fused layout the stages that
     * free slots run on the caller's thread).
     *
     * @param kind  {@link RecordEvent#KIND_FLUSH} or {@link RecordEvent#KIND_NOOP}
     * @param token carried to the stages
     * @return the event's ring sequence, or -1 when the ring is full (nothing was published)
     */
    public long tryPublishControl(final int kind, final long token)
    {
        final long sequence;
        try
        {
            sequence = ring.tryNext();
        }
        catch (final InsufficientCapacityException e)
        {
            return -1;
        }
        ring.get(sequence).beginControl(kind, token);
        ring.publish(sequence);
        return sequence;
    }

    /** Refuses every later claim ({@link #CLOSED}); claims already made may still be committed. */
    public void close()
    {
        closed = true;
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed()
    {
        return closed;
    }

    /** @return bytes a record may take in a slot itself; larger ones borrow an overflow buffer */
    public int slotCapacity()
    {
        return slotCapacity;
    }

    /** @return the ring's last published sequence */
    public long cursor()
    {
        return ring.getCursor();
    }

    void commit(final RecordEvent event, final long sequence)
    {
        event.publishNanos(clock.nanoTime());
        ring.publish(sequence);
    }

    void abort(final RecordEvent event, final long sequence, final ExpandableDirectByteBuffer unused)
    {
        overflow.release(unused);
        overflow.release(event.takeOverflow());
        event.beginControl(RecordEvent.KIND_NOOP, 0);
        ring.publish(sequence);
    }
}
