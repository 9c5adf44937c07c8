package io.sluice.ringbuffers;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;

/**
 * Builds the ingest ring: a single-producer Disruptor {@link RingBuffer} whose events are {@link RecordEvent}s, each
 * owning one slot of an off-heap {@link RecordSlab}. Everything is allocated here, once.
 */
public final class RecordRing
{
    private final RingBuffer<RecordEvent> ringBuffer;
    private final RecordSlab slab;

    /**
     * @param ringSize     number of events, a power of two
     * @param slotBytes    bytes per slot, a positive multiple of {@link RecordSlab#SLOT_ALIGNMENT}
     * @param waitStrategy how consumers wait for the producer
     * @throws IllegalArgumentException if {@code ringSize} is not a power of two or the sizes are out of range
     */
    public RecordRing(final int ringSize, final int slotBytes, final WaitStrategy waitStrategy)
    {
        if (ringSize < 2 || Integer.bitCount(ringSize) != 1)
        {
            throw new IllegalArgumentException("ring size must be a power of two >= 2: " + ringSize);
        }
        this.slab = new RecordSlab(ringSize, slotBytes);
        final int[] next = {0};
        this.ringBuffer = RingBuffer.createSingleProducer(() -> new RecordEvent(slab.slot(next[0]++)), ringSize,
            waitStrategy);
    }

    /** @return the Disruptor ring (single producer: only the source thread may claim sequences) */
    public RingBuffer<RecordEvent> ringBuffer()
    {
        return ringBuffer;
    }

    /** @return the slab behind the slots */
    public RecordSlab slab()
    {
        return slab;
    }

    /** @return direct memory held by the ring's slots, in bytes */
    public long capacityBytes()
    {
        return slab.capacityBytes();
    }
}
