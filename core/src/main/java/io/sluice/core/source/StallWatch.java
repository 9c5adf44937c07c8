package io.sluice.core.source;

import java.util.concurrent.TimeUnit;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.stage.Downstream;

/**
 * The {@code checkpoint.stalled_fail_after_ms} rule of a source: a partition stalls when its watermark has not moved
 * for that long while records are in flight (registered beyond the watermark), or when a failure has not been
 * settled for that long, however often it was re-read (a re-read restarts the tracker's clock, the failure keeps
 * its own, {@link RereadSchedule#failSinceNanos()}). A stalled partition ends the run; the message names the
 * partition, the limit, the position it is stuck at, and why: the tracker's failure, the schedule's last failure,
 * or what the stages after the ring wait on ({@link Downstream#describeStall()}).
 *
 * <p>Times are nanoseconds of the tracker's clock. Thread-safety: the source thread only; stateless apart from the
 * limit. Allocates only the message of a stall.
 */
public final class StallWatch
{
    private final long limitMs;
    private final long limitNanos;
    private final RereadSchedule.Words words;

    /**
     * @param stalledFailAfterMs {@code checkpoint.stalled_fail_after_ms}
     * @param words              how the source's positions are named
     */
    public StallWatch(final long stalledFailAfterMs, final RereadSchedule.Words words)
    {
        this.limitMs = stalledFailAfterMs;
        this.limitNanos = TimeUnit.MILLISECONDS.toNanos(stalledFailAfterMs);
        this.words = words;
    }

    /**
     * Whether a partition has stalled.
     *
     * @param nowNanos       the time now, on the tracker's clock
     * @param tracker        the partition's tracker
     * @param failSinceNanos when its unsettled failure was first seen, or {@link RereadSchedule#NO_FAILURE}
     * @return true when it made no progress for longer than the limit
     */
    public boolean stalled(final long nowNanos, final AckTracker tracker, final long failSinceNanos)
    {
        return stalled(nowNanos, tracker, failSinceNanos, RereadSchedule.NO_FAILURE);
    }

    /**
     * Whether a partition has stalled, not counting the time before {@code floorNanos}
     * ({@link RereadSchedule#stallClockFloorNanos()}: while the partition waited for work queued behind other work).
     *
     * @param nowNanos       the time now, on the tracker's clock
     * @param tracker        the partition's tracker
     * @param failSinceNanos when its unsettled failure was first seen, or {@link RereadSchedule#NO_FAILURE}
     * @param floorNanos     time before it does not count, or {@link RereadSchedule#NO_FAILURE} for none
     * @return true when it made no progress for longer than the limit
     */
    public boolean stalled(final long nowNanos, final AckTracker tracker, final long failSinceNanos,
        final long floorNanos)
    {
        final boolean floored = floorNanos != RereadSchedule.NO_FAILURE;
        final boolean failedTooLong = failSinceNanos != RereadSchedule.NO_FAILURE
            && nowNanos - (floored ? later(failSinceNanos, floorNanos) : failSinceNanos) > limitNanos;
        final long progress = floored ? later(tracker.lastProgressNanos(), floorNanos) : tracker.lastProgressNanos();
        return failedTooLong || tracker.registeredEnd() > tracker.watermark() && nowNanos - progress > limitNanos;
    }

    /** The later of two clock readings (nanoTime values compare by their difference). */
    private static long later(final long a, final long b)
    {
        return a - b >= 0 ? a : b;
    }

    /**
     * The message that ends the run for a stalled partition (allocates).
     *
     * @param subject    the partition, e.g. a {@code TopicPartition} or {@code file x.jsonl}
     * @param tracker    its tracker
     * @param failReason the schedule's unsettled failure, or {@code null}
     * @param downstream the stages after the ring
     * @return e.g. {@code partition t-0 made no progress for 300000 ms (checkpoint.stalled_fail_after_ms) at offset
     *         5: record t-0@5: ...}
     */
    public String message(final Object subject, final AckTracker tracker, final String failReason,
        final Downstream downstream)
    {
        final String why = tracker.failed()
            ? tracker.failureReason()
            : failReason != null
                ? failReason
                : downstream.describeStall();
        return words.stallPrefix() + subject + " made no progress for " + limitMs
            + " ms (checkpoint.stalled_fail_after_ms) at " + words.unit() + " " + (tracker.watermark() + words.base())
            + ": " + (why == null || why.isEmpty() ? "records are still in flight" : why);
    }

    /** @return the limit, ms */
    public long limitMs()
    {
        return limitMs;
    }
}
