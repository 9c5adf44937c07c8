package io.sluice.core.deadletter;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records that are to become dead letters when they are read again: a stage that decides a record's fate after
 * its bytes are gone from the ring (an insert worker whose batch ClickHouse refused for its data, a producer whose
 * broker refused a record for good) marks each of its records here with the reason and fails its offset; the
 * partition is re-read from its watermark (the source's re-read), and the stage that sees the record first
 * ({@link #take}) makes it a dead letter instead of routing it again. A mark is taken once; marks of a partition
 * that this process no longer reads stay until the process ends (at most {@value #MAX_MARKS}; beyond it a
 * failure is not marked, and its partition stops as under {@code fail}).
 *
 * <p>Thread-safety: {@link #mark} from any thread, {@link #take} from the route stage; {@link #take} costs one
 * volatile read while there are no marks.
 */
public final class DeadLetterMarks
{
    /** Most marks held at once. */
    public static final int MAX_MARKS = 1_000_000;

    private record Key(int trackerId, long offset)
    {
    }

    private final ConcurrentHashMap<Key, DeadLetter.Why> marks = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();

    /**
     * Marks a record (allocates).
     *
     * @param trackerId its partition's tracker id
     * @param offset    its offset
     * @param why       why it is a dead letter
     * @return false when {@value #MAX_MARKS} marks are held already (nothing was marked)
     */
    public boolean mark(final int trackerId, final long offset, final DeadLetter.Why why)
    {
        if (size.get() >= MAX_MARKS)
        {
            return false;
        }
        if (marks.put(new Key(trackerId, offset), why) == null)
        {
            size.incrementAndGet();
        }
        return true;
    }

    /**
     * Takes the mark of a record, if it has one.
     *
     * @param trackerId its partition's tracker id
     * @param offset    its offset
     * @return why it is a dead letter, or null when it is not marked
     */
    public DeadLetter.Why take(final int trackerId, final long offset)
    {
        if (size.get() == 0)
        {
            return null;
        }
        final DeadLetter.Why why = marks.remove(new Key(trackerId, offset));
        if (why != null)
        {
            size.decrementAndGet();
        }
        return why;
    }

    /** @return marks held */
    public int size()
    {
        return size.get();
    }
}
