package io.sluice.ringbuffers;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One off-heap slab cut into equal, cache-line aligned slots; slot {@code i} backs ring event {@code i}.
 *
 * <p>The slab is allocated once at start ({@code slotCount * slotBytes} bytes of direct memory) and never grows; its
 * size is part of the memory budget the engine prints at start. Thread-safety: the slab itself is immutable after
 * construction; each slot belongs to whichever thread owns the ring sequence of its event.
 */
public final class RecordSlab
{
    /** Alignment of every slot, in bytes (one cache line). */
    public static final int SLOT_ALIGNMENT = 64;

    private final ByteBuffer memory;
    private final int slotBytes;
    private final int slotCount;

    /**
     * @param slotCount number of slots, at least 1
     * @param slotBytes bytes per slot, a positive multiple of {@link #SLOT_ALIGNMENT}
     * @throws IllegalArgumentException if a size is out of range or the slab would exceed 2 GiB
     */
    public RecordSlab(final int slotCount, final int slotBytes)
    {
        if (slotCount < 1)
        {
            throw new IllegalArgumentException("slotCount must be >= 1: " + slotCount);
        }
        if (slotBytes < SLOT_ALIGNMENT || (slotBytes % SLOT_ALIGNMENT) != 0)
        {
            throw new IllegalArgumentException(
                "slotBytes must be a positive multiple of " + SLOT_ALIGNMENT + ": " + slotBytes);
        }
        final long total = (long)slotCount * slotBytes;
        if (total > Integer.MAX_VALUE - SLOT_ALIGNMENT)
        {
            throw new IllegalArgumentException("slab of " + slotCount + " x " + slotBytes + " bytes exceeds 2 GiB");
        }
        this.memory = BufferUtil.allocateDirectAligned((int)total, SLOT_ALIGNMENT);
        this.slotBytes = slotBytes;
        this.slotCount = slotCount;
    }

    /**
     * Wraps slot {@code index} with a new buffer; called once per slot while the ring is pre-allocated.
     *
     * @param index slot index in {@code [0, slotCount)}
     * @return a buffer of exactly {@link #slotBytes()} bytes over the slot
     */
    public UnsafeBuffer slot(final int index)
    {
        if (index < 0 || index >= slotCount)
        {
            throw new IndexOutOfBoundsException("slot " + index + " of " + slotCount);
        }
        return new UnsafeBuffer(memory, index * slotBytes, slotBytes);
    }

    /** @return bytes per slot */
    public int slotBytes()
    {
        return slotBytes;
    }

    /** @return number of slots */
    public int slotCount()
    {
        return slotCount;
    }

    /** @return total bytes of direct memory held by the slab */
    public long capacityBytes()
    {
        return (long)slotBytes * slotCount;
    }
}
