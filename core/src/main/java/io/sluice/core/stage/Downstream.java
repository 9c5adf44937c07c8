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
