package io.sluice.core.gather.batch;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Recycles {@link BatchBuffer}s: the route stage takes, insert workers give back. The pool creates a buffer only
 * when none is free and fewer than {@code maxBuffers} exist; at the limit {@link #tryAcquire()} returns {@code null}
 * and the route stage waits (back-pressure), so memory stays bounded by {@code maxBuffers} batches.
 *
 * <p>Thread-safety: {@link #tryAcquire()} from one thread (the route stage); {@link #release(BatchBuffer)} from any.
 */
public final class BatchPool
{
    private final ManyToOneConcurrentArrayQueue<BatchBuffer> free;
    private final int maxBuffers;
    private final long initialBytes;
    private final int initialRows;
    private final int maxRows;
    private int created;
    private volatile BatchBuffer[] all = new BatchBuffer[0];

    /**
     * @param maxBuffers   most buffers that may exist
     * @param initialBytes initial row-buffer capacity of a new buffer, bytes
     * @param initialRows  initial coordinate capacity of a new buffer, rows
     */
    public BatchPool(final int maxBuffers, final long initialBytes, final int initialRows)
    {
        this(maxBuffers, initialBytes, initialRows, 0);
    }

    /**
     * @param maxBuffers   most buffers that may exist
     * @param initialBytes initial row-buffer capacity of a new buffer, bytes
     * @param initialRows  initial coordinate capacity of a new buffer, rows
     * @param maxRows      the rows at which a batch seals ({@code max_rows}): a buffer that outgrows
     *                     {@code initialRows} grows straight to it, one copy instead of a doubling series whose
     *                     garbage a long warm-up of a large pool spreads over the first minutes; 0 for doubling only
     */
    public BatchPool(final int maxBuffers, final long initialBytes, final int initialRows, final int maxRows)
    {
        if (maxBuffers < 1)
        {
            throw new IllegalArgumentException("maxBuffers must be >= 1: " + maxBuffers);
        }
        this.maxBuffers = maxBuffers;
        this.initialBytes = initialBytes;
        this.initialRows = initialRows;
        this.maxRows = maxRows;
        this.free = new ManyToOneConcurrentArrayQueue<>(Math.max(2, maxBuffers));
    }

    /** @return a free buffer, a new one while under the limit, or {@code null} at the limit */
    public BatchBuffer tryAcquire()
    {
        final BatchBuffer b = free.poll();
        if (b != null)
        {
            return b;
        }
        if (this.created < maxBuffers)
        {
            this.created++;
            final BatchBuffer created = new BatchBuffer(initialBytes, initialRows, maxRows, this);
            final BatchBuffer[] grown = java.util.Arrays.copyOf(all, all.length + 1);
            grown[grown.length - 1] = created;
            all = grown;
            return created;
        }
        return null;
    }

    /**
     * Creates every buffer up to the limit now (route stage thread, before records flow), so later acquisitions never
     * allocate; without it buffers are created on first need, which keeps memory low when few are needed.
     */
    public void prefill()
    {
        final java.util.List<BatchBuffer> taken = new java.util.ArrayList<>();
        BatchBuffer b;
        while ((b = tryAcquire()) != null)
        {
            taken.add(b);
        }
        for (final BatchBuffer t : taken)
        {
            release(t);
        }
    }

    void release(final BatchBuffer buffer)
    {
        if (!free.offer(buffer))
        {
            throw new IllegalStateException("batch pool over-released");
        }
    }

    /** @return every buffer created so far, in use or free (any thread; for diagnostics) */
    public BatchBuffer[] buffers()
    {
        return all.clone();
    }

    /** @return buffers created so far */
    public int created()
    {
        return created;
    }

    /** @return the limit */
    public int maxBuffers()
    {
        return maxBuffers;
    }

    /** Frees every buffer currently in the pool (at shutdown). */
    public void close()
    {
        BatchBuffer b;
        while ((b = free.poll()) != null)
        {
            b.free();
        }
    }
}
