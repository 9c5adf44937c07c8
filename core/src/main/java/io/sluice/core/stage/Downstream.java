package io.sluice.core.stage;

/**
 * What a source needs to know about the stages after it: whether what it published has settled, and how to run
 * fused stages on its own thread. Implemented by each pipeline (gather, scatter) and called on the source thread.
 */
public interface Downstream
{
    /**
     * Whether every record published at or before a ring sequence has been acknowledged or failed downstream,
     * so that re-reading its partition cannot race with it. The default waits for {@link #idle()}.
     *
     * @param sequence a ring sequence this source published
     * @return true when nothing published at or before it is still in flight
     */
    default boolean settledThrough(final long sequence)
    {
        return idle();
    }

    /**
     * Whether the first stage after the ring (the route stage) has taken every record published at or before a ring
     * sequence: routed into a batch, dropped, or failed. Weaker than {@link #settledThrough}: batches with those
     * records may still be waiting for their insert. A source re-reads a partition on it alone only when nothing of
     * that partition can be in a batch (its watermark has reached its failed offset and the failure was recorded on
     * the route stage, in offset order). The default is {@link #settledThrough}.
     *
     * @param sequence a ring sequence this source published
     * @return true when the first stage has taken everything published at or before it
     */
    default boolean routedThrough(final long sequence)
    {
        return settledThrough(sequence);
    }

    /** @return true when every published record has been consumed by every stage and nothing is in flight */
    boolean idle();

    /** Called when waiting for the downstream takes too long: stop retrying, keep offsets unacknowledged. */
    void abandon();

    /** @return one line naming what the downstream is waiting on (for stall messages), or empty */
    String describeStall();

    /**
     * Runs the stages fused onto the source thread over what has been published (the fused layout), and lets
     * them seal lingering batches; a no-op when every stage has its own thread.
     */
    default void pump()
    {
    }
}
