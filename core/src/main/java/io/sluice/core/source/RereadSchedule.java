package io.sluice.core.source;

import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.Awaited;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.PipelineControl;

/**
 * When to read a partition again after one of its records failed (its tracker is failed): fail → hold → back off →
 * re-read → settled. One schedule per partition (a Kafka partition, or the lines of a file source), driven by
 * {@link #poll} on the source thread:
 * <ol>
 * <li>the tracker fails: {@link #HOLD}, once; the source stops publishing the partition (pauses it, drops what it
 * kept of it). The backoff is {@code backoffMs} for the first failure and doubles, up to {@code backoffMaxMs}, for
 * every failure before the partition has moved past the failed offset;</li>
 * <li>{@link #HOLDING} until the backoff has passed and every record published from the partition has settled
 * downstream ({@link Downstream#settledThrough}). A failure that is a wait carrying what it waits for
 * ({@link AckTracker#failureAwaited()}: a record whose new table is being set up) is not re-read on a timer: it is
 * held until that work has ended ({@link Awaited#ended()}, done or failed), then read again once, as soon as the
 * route stage has taken what was published of the partition when nothing of it can be in a batch (the watermark is
 * at the failed offset), without waiting for other tables' inserts. A safety re-read
 * {@code backoffMaxMs} after the work has begun ({@link Awaited#begun()}: a setup queued behind others is not
 * counted), doubling while the same work is still under way at the next hold, up to a quarter of
 * {@code checkpoint.stalled_fail_after_ms}, keeps a lost signal from holding a partition for good;</li>
 * <li>{@link #REREAD}: the source seeks the partition back to its watermark and resets its tracker (a new
 * generation), then calls {@link #rereading(long)};</li>
 * <li>{@link #RUNNING} again; once the watermark passes the failed offset the failure is settled (logged) and the
 * next failure starts over at {@code backoffMs}.</li>
 * </ol>
 * The failure's start ({@link #failSinceNanos()}) survives re-reads, so {@link StallWatch} can end the run when a
 * partition keeps failing for {@code checkpoint.stalled_fail_after_ms}.
 *
 * <p>It logs: the first failure (warn), each failure again at the same offset (info), the settling (info), each
 * re-read (debug); a failure seen while the pipeline stops is logged at debug only, the stop names it.
 *
 * <p>Times are nanoseconds of the caller's clock. Thread-safety: the source thread only; the {@link Awaited} it polls
 * is ended by another thread (a volatile read per duty cycle of a held partition, nothing per record). Allocates
 * only when a partition fails or settles (its log lines).
 */
public final class RereadSchedule
{
    /** {@link #poll}: nothing to do; the partition is published as usual. */
    public static final int RUNNING = 0;
    /** {@link #poll}: the partition just failed: stop publishing it (pause it, drop what is kept of it). */
    public static final int HOLD = 1;
    /** {@link #poll}: still waiting for the backoff or for records in flight; publish nothing of it. */
    public static final int HOLDING = 2;
    /** {@link #poll}: read it again from its watermark now, then call {@link #rereading(long)}. */
    public static final int REREAD = 3;

    /** {@link #cause()}: the backoff of a failure passed (a failure that waits for nothing, or a wait without a handle). */
    public static final int CAUSE_BACKOFF = 0;
    /** {@link #cause()}: the work the record waited for ended (its new table is set up, or its setup failed). */
    public static final int CAUSE_ENDED = 1;
    /** {@link #cause()}: the safety re-read of a record whose awaited work had not ended. */
    public static final int CAUSE_SAFETY = 2;

    /** {@link #failSinceNanos()} when there is no failure. */
    public static final long NO_FAILURE = Long.MIN_VALUE;

    private static final Logger LOG = LoggerFactory.getLogger(RereadSchedule.class);

    /**
     * How a source's positions are named in its messages.
     *
     * @param unit        the position's name: {@code offset}, {@code line}
     * @param base        added to a 0-based position for messages: 0 for offsets, 1 for lines
     * @param noun        one re-read: {@code re-read}, {@code replay}
     * @param gerund      re-reading: {@code re-reading}, {@code replaying}
     * @param stallPrefix put before the subject in the stall message: {@code "partition "}, or empty
     */
    public record Words(String unit, long base, String noun, String gerund, String stallPrefix)
    {
        /** Kafka partitions: offsets, re-read. */
        public static final Words OFFSETS = new Words("offset", 0, "re-read", "re-reading", "partition ");
        /** Lines of a file or stdin: 1-based lines, replayed. */
        public static final Words LINES = new Words("line", 1, "replay", "replaying", "");
    }

    private final String source;
    private final Object subject;
    private final Words words;
    private final long backoffNanos;
    private final long backoffMaxNanos;
    private final long stalledFailAfterMs;
    private final long safetyMaxNanos;
    private final PipelineControl control;
    private final String firstFailure;
    private final String stillFailing;
    private final String movedPast;
    private final String rereadFrom;
    private final String firstWait;
    private final String stillWaiting;

    private boolean holding;
    private long failSinceNanos = NO_FAILURE;
    /** The last time the partition was seen waiting for work still queued behind other work, or NO_FAILURE. */
    private long queuedSeenNanos = NO_FAILURE;
    private long failOffset = -1;
    private String failReason;
    private long currentBackoffNanos;
    private long rereadAtNanos;
    private int rereads;
    /**
     * What the held (or last held) failure waits for, or null: the hold ends when it has ended (or at the safety
     * re-read); kept after the re-read so that the next hold knows whether the same work is still under way.
     */
    private Awaited awaited;
    /** The safety re-read's interval of the current wait, ns (0: no wait held yet). */
    private long safetyNanos;
    private int cause = CAUSE_BACKOFF;

    /** The first wait before re-reading a record that waits for its new table ({@link AckTracker#CODE_AWAITING}). */
    static final long AWAITING_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * @param source             the source's name, for logs
     * @param subject            what is re-read, for logs (a {@code TopicPartition}, {@code file x.jsonl})
     * @param words              how its positions are named
     * @param backoffMs          the first wait before a re-read, ms ({@code >= 1})
     * @param backoffMaxMs       the longest wait, ms
     * @param stalledFailAfterMs {@code checkpoint.stalled_fail_after_ms}, for messages
     * @param control            the pipeline's run state (a failure while it stops is not announced)
     */
    public RereadSchedule(final String source, final Object subject, final Words words, final long backoffMs,
        final long backoffMaxMs, final long stalledFailAfterMs, final PipelineControl control)
    {
        this.source = source;
        this.subject = subject;
        this.words = words;
        this.backoffNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, backoffMs));
        this.backoffMaxNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(backoffMs, backoffMaxMs));
        this.stalledFailAfterMs = stalledFailAfterMs;
        this.safetyMaxNanos = Math.max(backoffMaxNanos, TimeUnit.MILLISECONDS.toNanos(stalledFailAfterMs) / 4);
        this.control = control;
        final boolean lines = words.base() != 0;
        this.firstFailure = "{}: {} nacked at " + words.unit() + " {}: {}; "
            + (lines
                ? "the source does not advance: replaying from line {} in {} ms"
                : "nothing past offset {} is committed; re-reading in {} ms")
            + " once its records in flight have settled (the run ends if it still fails after "
            + "checkpoint.stalled_fail_after_ms = {})";
        this.stillFailing = "{}: {} still failing at " + words.unit() + " {} after {} " + words.noun() + "(s); "
            + words.gerund() + " in {} ms (failing for {} ms of checkpoint.stalled_fail_after_ms = {})";
        this.movedPast = "{}: {} moved past " + words.unit() + " {} after {} " + words.noun() + "(s)";
        this.rereadFrom = "{}: {} " + words.gerund() + " from " + words.unit() + " {} (" + words.noun() + " {})";
        this.firstWait = "{}: {} nacked at " + words.unit() + " {}: {}; "
            + (lines
                ? "the source does not advance: replaying from line {}"
                : "nothing past offset {} is committed; "
                    + "re-reading")
            + " once that has ended (at most {} ms) and its records in flight have settled (the run ends if it still "
            + "waits after checkpoint.stalled_fail_after_ms = {})";
        this.stillWaiting = "{}: {} still waiting at " + words.unit() + " {} after {} " + words.noun() + "(s); "
            + words.gerund() + " once that has ended (at most {} ms; waiting for {} ms of "
            + "checkpoint.stalled_fail_after_ms = {})";
    }

    /**
     * Advances the schedule (source thread, on each duty cycle).
     *
     * @param nowNanos     the clock's time now
     * @param tracker      the partition's tracker
     * @param downstream   the stages after the ring
     * @param lastSequence the ring sequence of the last record published from the partition (-1: none)
     * @return {@link #RUNNING}, {@link #HOLD}, {@link #HOLDING} or {@link #REREAD}
     */
    public int poll(final long nowNanos, final AckTracker tracker, final Downstream downstream, final long lastSequence)
    {
        if (!holding)
        {
            if (!tracker.failed())
            {
                if (failSinceNanos != NO_FAILURE && tracker.watermark() > failOffset)
                {
                    LOG.info(movedPast, source, subject, failOffset + words.base(), rereads);
                    failSinceNanos = NO_FAILURE;
                    queuedSeenNanos = NO_FAILURE;
                    failReason = null;
                    currentBackoffNanos = 0;
                    safetyNanos = 0;
                    awaited = null;
                    rereads = 0;
                }
                return RUNNING;
            }
            hold(nowNanos, tracker);
            return HOLD;
        }
        final Awaited waitingFor = awaited;
        if (waitingFor == null)
        {
            if (nowNanos - rereadAtNanos >= 0 && downstream.settledThrough(lastSequence))
            {
                cause = CAUSE_BACKOFF;
                return REREAD;
            }
            return HOLDING;
        }
        final boolean ended = waitingFor.ended();
        if (!ended && !waitingFor.begun())
        {
            // still queued behind other work: its signal cannot be lost yet, the safety clock starts when it begins,
            // and so does the stall clock (stallClockFloorNanos)
            rereadAtNanos = nowNanos + safetyNanos;
            queuedSeenNanos = nowNanos;
            return HOLDING;
        }
        if ((ended || nowNanos - rereadAtNanos >= 0) && quiet(tracker, downstream, lastSequence))
        {
            cause = ended ? CAUSE_ENDED : CAUSE_SAFETY;
            return REREAD;
        }
        return HOLDING;
    }

    /**
     * Whether the current hold waits for work under way on another thread ({@link Awaited}: a record whose new table
     * is being set up). Such a hold needs no flush: {@link #poll}'s {@code lastSequence} may be the ring's cursor at
     * the hold (the partition's last record published), so the hold seals no other table's open batch; the records
     * of the partition before the waiting one, if any are still in a batch, are written when that batch seals on its
     * own rule ({@code linger_ms} at the latest). Any other hold gets a flush, so that its re-read need not wait
     * {@code linger_ms} for the batches that carry its records.
     *
     * @return true while holding for work
     */
    public boolean holdsForWork()
    {
        return holding && awaited != null;
    }

    /**
     * Whether nothing of a partition held for a wait is in flight any more. The waiting record failed on the route
     * stage, in offset order, so every record of the partition after it that the route stage took was dropped, not
     * batched; once the route stage has taken everything published before the hold and the watermark has reached
     * the failed offset (every record before it written), no batch holds a record of the partition and the re-read
     * need not wait for the inserts of other tables' batches. Otherwise it waits for them ({@link
     * Downstream#settledThrough}).
     */
    private boolean quiet(final AckTracker tracker, final Downstream downstream, final long lastSequence)
    {
        return downstream.routedThrough(lastSequence) && tracker.watermark() >= failOffset
            || downstream.settledThrough(lastSequence);
    }

    private void hold(final long nowNanos, final AckTracker tracker)
    {
        final long failed = tracker.failedOffset();
        holding = true;
        final boolean again = failSinceNanos != NO_FAILURE && failed == failOffset;
        if (failSinceNanos == NO_FAILURE)
        {
            failSinceNanos = nowNanos;
        }
        failOffset = failed;
        failReason = tracker.failureReason();
        final Awaited waitFor = tracker.failureCode() == AckTracker.CODE_AWAITING ? tracker.failureAwaited() : null;
        if (waitFor != null)
        {
            holdForWork(nowNanos, failed, tracker.watermark(), again, waitFor);
            return;
        }
        awaited = null;
        safetyNanos = 0;
        // a record waiting for its new table without a handle is read again soon: the wait ends when it is set up
        currentBackoffNanos = currentBackoffNanos == 0
            ? tracker.failureCode() == AckTracker.CODE_AWAITING
                ? Math.min(backoffNanos, AWAITING_BACKOFF_NANOS)
                : backoffNanos
            : Math.min(currentBackoffNanos * 2, backoffMaxNanos);
        rereadAtNanos = nowNanos + currentBackoffNanos;
        if (control.failed())
        {
            LOG.debug("{}: {} nacked at {} {} while the pipeline stops: {}", source, subject, words.unit(),
                failed + words.base(), failReason);
            return;
        }
        if (again)
        {
            fields(LOG.atInfo(), failed).log(stillFailing, source, subject, failed + words.base(), rereads,
                TimeUnit.NANOSECONDS.toMillis(currentBackoffNanos),
                TimeUnit.NANOSECONDS.toMillis(nowNanos - failSinceNanos), stalledFailAfterMs);
            return;
        }
        // a record that waits for its new table is no error: INFO
        fields(tracker.failureCode() == AckTracker.CODE_AWAITING ? LOG.atInfo() : LOG.atWarn(), failed).log(
            firstFailure, source, subject, failed + words.base(), failReason,
            tracker.watermark() + words.base(), TimeUnit.NANOSECONDS.toMillis(currentBackoffNanos), stalledFailAfterMs);
    }

    /**
     * Holds a partition whose record waits for work under way on another thread: read again once it has ended; a
     * safety re-read after {@code backoffMaxMs}, doubling while the same work is still under way, up to a quarter of
     * the stall limit (the work is queued or running: a re-read would find it so again, at the cost of reading the
     * partition's records once more).
     */
    private void holdForWork(final long nowNanos, final long failed, final long watermark, final boolean again,
        final Awaited waitFor)
    {
        safetyNanos = again && waitFor == awaited && safetyNanos > 0
            ? Math.min(safetyNanos * 2, safetyMaxNanos)
            : backoffMaxNanos;
        awaited = waitFor;
        rereadAtNanos = nowNanos + safetyNanos;
        if (control.failed())
        {
            LOG.debug("{}: {} nacked at {} {} while the pipeline stops: {}", source, subject, words.unit(),
                failed + words.base(), failReason);
            return;
        }
        if (again)
        {
            fields(LOG.atInfo(), failed).log(stillWaiting, source, subject, failed + words.base(), rereads,
                TimeUnit.NANOSECONDS.toMillis(safetyNanos), TimeUnit.NANOSECONDS.toMillis(nowNanos - failSinceNanos),
                stalledFailAfterMs);
            return;
        }
        fields(LOG.atInfo(), failed).log(firstWait, source, subject, failed + words.base(), failReason,
            watermark + words.base(), TimeUnit.NANOSECONDS.toMillis(safetyNanos), stalledFailAfterMs);
    }

    /** The structured fields of a log event about a Kafka partition (topic, partition, offset; --log-format json). */
    private LoggingEventBuilder fields(final LoggingEventBuilder event, final long offset)
    {
        if (subject instanceof TopicPartition tp)
        {
            return event.addKeyValue("topic", tp.topic()).addKeyValue("partition", tp.partition())
                .addKeyValue("offset", offset);
        }
        return event;
    }

    /**
     * The source has sought the partition back to its watermark and reset its tracker: publishing resumes.
     *
     * @param watermark the position it reads from now
     */
    public void rereading(final long watermark)
    {
        holding = false;
        rereads++;
        LOG.debug(rereadFrom, source, subject, watermark + words.base(), rereads);
    }

    /** @return whether the partition is held (failed, waiting to be re-read) */
    public boolean holding()
    {
        return holding;
    }

    /** @return when the unsettled failure was first seen, clock nanoseconds, or {@link #NO_FAILURE} */
    public long failSinceNanos()
    {
        return failSinceNanos;
    }

    /**
     * The stall clock's floor: the last time the partition was seen held for work that was still queued behind other
     * work ({@link Awaited#begun()} false: a new table's setup waiting for a setup thread). Time before it does not
     * count toward {@code checkpoint.stalled_fail_after_ms} ({@link StallWatch}): a burst of new tables queues their
     * setups, and a setup's wait for its turn is the pool's progress on the others, not a stall. From the moment the
     * work begins the clock runs, so work that does not end still ends the run.
     *
     * @return clock nanoseconds, or {@link #NO_FAILURE} when the partition never waited in a queue since its failure
     */
    public long stallClockFloorNanos()
    {
        return queuedSeenNanos;
    }

    /** @return the offset that failed, while a failure is unsettled */
    public long failOffset()
    {
        return failOffset;
    }

    /** @return why it failed, while a failure is unsettled, or {@code null} */
    public String failReason()
    {
        return failReason;
    }

    /** @return the backoff of the current (or last) hold, ns; 0 when no failure is unsettled */
    public long backoffNanos()
    {
        return currentBackoffNanos;
    }

    /** @return whether the partition is held for work under way ({@link Awaited}), not on a backoff */
    public boolean awaiting()
    {
        return holding && awaited != null;
    }

    /** @return when a held partition is read again at the latest (the backoff or the safety re-read), clock ns */
    public long rereadAtNanos()
    {
        return rereadAtNanos;
    }

    /**
     * @return why the last {@link #REREAD} came: {@link #CAUSE_BACKOFF}, {@link #CAUSE_ENDED} or
     *     {@link #CAUSE_SAFETY}
     */
    public int cause()
    {
        return cause;
    }

    /** @return re-reads since the unsettled failure was first seen */
    public int rereads()
    {
        return rereads;
    }
}
