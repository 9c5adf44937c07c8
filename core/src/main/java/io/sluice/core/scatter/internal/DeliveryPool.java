package io.sluice.core.scatter.internal;

import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * The bounded set of {@link Delivery} objects of one pipeline: as many records can be in flight to the broker as
 * there are deliveries. An empty pool is back-pressure: {@link #tryAcquire()} returns null and the produce stage
 * waits for acknowledgements.
 *
 * <p>Threads: one thread acquires (the produce stage); any thread releases (the producer's I/O thread, or the produce
 * stage). {@link #inFlight()} and {@link #settledThrough(long)} may be called from any thread.
 */
public final class DeliveryPool
{
    private final Delivery[] all;
    private final ManyToOneConcurrentArrayQueue<Delivery> free;
    private final AtomicLong released = new AtomicLong();
    private volatile long acquired;

    /** @param capacity the most records in flight at once, {@code >= 1} */
    public DeliveryPool(final int capacity)
    {
        this.all = new Delivery[capacity];
        this.free = new ManyToOneConcurrentArrayQueue<>(Math.max(2, capacity));
        for (int i = 0; i < capacity; i++)
        {
            all[i] = new Delivery(this);
            free.offer(all[i]);
        }
    }

    /** @return a free delivery, or null when every one is in flight (acquiring thread only) */
    Delivery tryAcquire()
    {
        final Delivery d = free.poll();
        if (d != null)
        {
            acquired = acquired + 1;
        }
        return d;
    }

    void release(final Delivery d)
    {
        settled();
        reuse(d);
    }

    /** A send settled without its delivery coming back yet ({@link Delivery#sendThrew()}): no longer in flight. */
    void settled()
    {
        released.incrementAndGet();
    }

    /** A delivery {@link #settled()} earlier comes back to be reused. */
    void reuse(final Delivery d)
    {
        if (!free.offer(d))
        {
            throw new IllegalStateException("delivery pool over-released");
        }
    }

    /** @return the number of sends not yet completed */
    public long inFlight()
    {
        return Math.max(0, acquired - released.get());
    }

    /** @return the pool's capacity */
    public int capacity()
    {
        return all.length;
    }

    /**
     * @param sequence a ring sequence
     * @return true when no record at or before {@code sequence} is still in flight (scans every delivery: for the
     *     rare re-read decisions, not the hot path)
     */
    public boolean settledThrough(final long sequence)
    {
        for (final Delivery d : all)
        {
            final long s = d.inFlightSequence();
            if (s != Delivery.FREE && s <= sequence)
            {
                return false;
            }
        }
        return true;
    }
}
