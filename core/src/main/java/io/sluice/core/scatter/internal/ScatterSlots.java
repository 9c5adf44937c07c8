package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.DeliveryListener;

/**
 * Per-ring-slot values that travel with a record between the stages of a scatter pipeline without widening the shared
 * {@code RecordEvent}: the route stage's result (a topic id, or {@link #SKIPPED}, {@link #FAILED}, {@link #CONTROL})
 * and, for the embedded API, the caller's listener. Indexed by {@code sequence & mask}; the Disruptor's sequences
 * order the writes (the writer publishes its sequence after writing, the reader reads after the barrier).
 */
public final class ScatterSlots
{
    /** Route result: the record was not produced because its partition failed or is being re-read. */
    static final int SKIPPED = -1;
    /** Route result: the record failed (already reported). */
    static final int FAILED = -2;
    /** Route result: a control event. */
    static final int CONTROL = -3;
    /** Route result: the record went to the dead-letter topic (its dead letter acknowledges it). */
    static final int DEAD_LETTER = -4;

    final int mask;
    final int[] topicIds;
    final DeliveryListener[] listeners;

    ScatterSlots(final int ringSize)
    {
        this.mask = ringSize - 1;
        this.topicIds = new int[ringSize];
        this.listeners = new DeliveryListener[ringSize];
    }

    /**
     * Sets the embedded caller's listener of the record at a ring sequence; called by the publisher before it
     * publishes the sequence.
     *
     * @param sequence the claimed ring sequence
     * @param listener the caller's listener, or null
     */
    public void listener(final long sequence, final DeliveryListener listener)
    {
        listeners[(int)sequence & mask] = listener;
    }
}
