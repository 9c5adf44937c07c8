package io.sluice.ringbuffers;

import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * A bounded pool of large off-heap buffers for records that do not fit in a ring slot.
 *
 * <p>A record larger than its slot borrows one buffer from here on the source thread and returns it once the record
 * has been consumed by the last stage. Buffers grow on demand up to {@code maxRecordBytes} and keep their capacity, so
 * a steady stream of large records does not churn memory; the pool never holds more than
 * {@code buffers * maxRecordBytes} bytes. An empty pool is back-pressure: {@link #tryAcquire()} returns {@code null}
 * and the caller pauses its source until a buffer comes back.
 *
 * <p>Thread-safety: {@link #tryAcquire()} and {@link #release(ExpandableDirectByteBuffer)} may be called from any
 * threads concurrently (the queue is many-to-many); a borrowed buffer is owned by one thread at a time.
 */
public final class OverflowPool
{
    private final ManyToManyConcurrentArrayQueue<ExpandableDirectByteBuffer> free;
    private final int buffers;
    private final int maxRecordBytes;

    /**
     * @param buffers        number of overflow buffers (0 disables the overflow path)
     * @param initialBytes   initial capacity of each buffer, in bytes
     * @param maxRecordBytes largest record accepted, in bytes
     */
    public OverflowPool(final int buffers, final int initialBytes, final int maxRecordBytes)
    {
        if (buffers < 0 || initialBytes < 1 || maxRecordBytes < 1)
        {
            throw new IllegalArgumentException("overflow pool: buffers=" + buffers + " initialBytes=" + initialBytes
                + " maxRecordBytes=" + maxRecordBytes);
        }
        this.buffers = buffers;
        this.maxRecordBytes = maxRecordBytes;
        this.free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, buffers));
        for (int i = 0; i < buffers; i++)
        {
            free.offer(new ExpandableDirectByteBuffer(Math.min(initialBytes, maxRecordBytes)));
        }
    }

    /** @return a free buffer, or {@code null} when every buffer is in use (back-pressure) */
    public ExpandableDirectByteBuffer tryAcquire()
    {
        return free.poll();
    }

    /**
     * Returns a buffer taken with {@link #tryAcquire()}.
     *
     * @param buffer the buffer; {@code null} is ignored
     */
    public void release(final ExpandableDirectByteBuffer buffer)
    {
        if (buffer != null && !free.offer(buffer))
        {
            throw new IllegalStateException("overflow pool over-released");
        }
    }

    /** @return number of buffers in the pool */
    public int buffers()
    {
        return buffers;
    }

    /** @return largest record size accepted, in bytes */
    public int maxRecordBytes()
    {
        return maxRecordBytes;
    }

    /** @return the most direct memory the pool can hold, in bytes */
    public long maxCapacityBytes()
    {
        return (long)buffers * maxRecordBytes;
    }
}
