package io.sluice.core.ack;

/**
 * What a failed offset waits for, when its failure is a wait ({@link AckTracker#CODE_AWAITING}), not an error: for
 * example the setup of the record's new table, running on another thread. The source holds the partition (reads
 * nothing of it) until {@link #ended()} says the work is over, done or failed, and then reads it again from the
 * failed offset, once; it does not read it again on a timer while the work runs (a safety re-read after
 * {@code retry_backoff_max_ms} still happens, so a lost signal cannot hang a partition).
 *
 * <p>Thread-safety: {@link #ended()} is called by the source thread, any number of times, while another thread
 * ends the work; implementations publish the end through a volatile write (or stronger) and never block. It is read
 * once per source duty cycle per held partition, never per record.
 */
@FunctionalInterface
public interface Awaited
{
    /** @return true once the awaited work is over (done or failed); never false again after that */
    boolean ended();

    /**
     * Whether the work has begun (left its queue). The source's safety re-read counts its time from here: work that
     * waits in a queue behind other work cannot have lost its signal yet. The default: it has.
     *
     * @return true once the work has begun; never false again after that
     */
    default boolean begun()
    {
        return true;
    }
}
