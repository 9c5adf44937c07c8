package io.sluice.core.gather;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.batch.PositionChain;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The fate of a record the route stage does not write as a row, decided in one place: the reason (no branch takes
 * it, it cannot be written, it is a tombstone) picks the policy ({@code unmatched}, {@code on_error},
 * {@code tombstones}) and the dropped counter; {@code skip} counts and acknowledges it, {@code fail} fails it in its
 * tracker and stops the pipeline, {@code dead_letter} hands it to the pipeline's {@link GatherDeadLetters}. Also the
 * re-reads the route stage asks for: a record whose partition already failed at an earlier offset, a record an insert
 * worker marked for its dead letter, a record published before its key and headers were copied.
 *
 * <p>Thread-safety: used by the route stage's thread only, except {@link #keysAndHeadersNeeded()} (any thread).
 */
final class RecordFates
{
    private static final Logger LOG = LoggerFactory.getLogger(RouteStage.class);

    /** Reason of a record that is no row: no branch takes it (the unmatched policy; dropped reason "unrouted"). */
    static final int UNROUTED = 0;
    /** Reason of a record that is no row: it cannot be written (on_error; dropped reason "invalid"). */
    static final int INVALID = 1;
    /** Reason of a record that is no row: its Kafka value is null (tombstones; dropped reason "tombstone"). */
    static final int TOMBSTONE = 2;

    private final String pipeline;
    private final PartitionTrackers trackers;
    private final TopicRegistry topics;
    private final PipelineControl control;
    /** Per reason ({@link #UNROUTED}, {@link #INVALID}, {@link #TOMBSTONE}): the policy that decides the record's fate. */
    private final ErrorPolicy[] policyOf;
    /** Per reason: the counter of records dropped under {@code skip}. */
    private final AtomicLong[] droppedOf;
    private long errorsLogged;
    private GatherDeadLetters deadLetters;
    private Runnable keysAndHeadersRequest = () ->
    {
    };
    private volatile boolean keysAndHeadersNeeded;
    private boolean keysAndHeadersRequested;

    RecordFates(final String pipeline, final PartitionTrackers trackers, final TopicRegistry topics,
        final PipelineControl control, final ErrorPolicy[] policyOf, final AtomicLong[] droppedOf)
    {
        this.pipeline = pipeline;
        this.trackers = trackers;
        this.topics = topics;
        this.control = control;
        this.policyOf = policyOf;
        this.droppedOf = droppedOf;
    }

    void deadLetters(final GatherDeadLetters d)
    {
        this.deadLetters = d;
    }

    void keysAndHeadersRequest(final Runnable request)
    {
        this.keysAndHeadersRequest = request;
        if (keysAndHeadersNeeded)
        {
            request.run();
        }
    }

    /** Asks for keys from the first record on, whatever the destinations read ({@code tombstones = "delete"}). */
    void needKeysAndHeaders()
    {
        keysAndHeadersNeeded = true;
    }

    boolean keysAndHeadersNeeded()
    {
        return keysAndHeadersNeeded;
    }

    /** @return whether to log this record error: the first ten, then one in 10,000 */
    boolean logNow()
    {
        return errorsLogged++ < 10 || errorsLogged % 10_000 == 0;
    }

    /**
     * A record an insert worker marked (its batch was refused for its data) becomes a dead letter now that the
     * re-read brought it back, instead of being written again; a record an insert worker marked written (a split wrote
     * it after a record of its partition that became a dead letter) is acknowledged, not written again.
     *
     * @return true when the record was marked
     */
    boolean redrive(final RecordEvent event)
    {
        if (deadLetters == null)
        {
            return false;
        }
        final AckTracker tracker = trackers.get(event.trackerId());
        if (deadLetters.takeWritten(event, tracker))
        {
            // a split of a refused batch wrote it after a record of its partition that became a dead letter
            tracker.ack(event.offset(), event.trackerGeneration());
            return true;
        }
        final DeadLetter.Why marked = deadLetters.marked(event);
        if (marked == null)
        {
            return false;
        }
        deadLetter(event, marked);
        return true;
    }

    String where(final RecordEvent event)
    {
        return "record " + topics.name(event.topicId()) + "-" + event.partition() + "@" + event.offset();
    }

    /** Why a record is a dead letter when user code (resolver, shard router, encoder) threw or answered wrongly. */
    static DeadLetter.Why thrown(final String stage, final String what, final RuntimeException ex,
        final String branch, final String table)
    {
        return new DeadLetter.Why(DeadLetterReason.INVALID, stage, what, ex == null ? null : ex.getClass().getName(),
            branch, table, null, null, 0);
    }

    void recordError(final RecordEvent event, final String what, final ErrorPolicy policy,
        final AtomicLong dropped, final DeadLetter.Why why)
    {
        switch (policy)
        {
            case SKIP -> skip(event, dropped, what);
            case FAIL -> stop(event, what);
            case DEAD_LETTER -> deadLetter(event, why);
            default -> throw new IllegalStateException("no fate for policy " + policy);
        }
    }

    /**
     * Whether the record's partition has failed at an earlier offset in the record's generation (an insert the server
     * refused, a table changed under the batch, a record that stopped the pipeline): the source reads the partition
     * again from its watermark, so writing this record now would only write it twice. It is neither written nor
     * acknowledged; the re-read brings it back.
     */
    boolean heldForReread(final RecordEvent event)
    {
        final AckTracker tracker = trackers.get(event.trackerId());
        if (!tracker.failed())
        {
            return false;
        }
        final long failed = tracker.failedOffset();
        return failed >= 0 && event.offset() > failed && event.trackerGeneration() == tracker.generation();
    }

    /**
     * Whether a record goes into a batch of its exactly-once table ({@link Destination#positions()}): not when the
     * table holds it already (it is acknowledged without a row, so the watermark moves, and counted in {@code held}),
     * nor when its partition was reset since it was published (it comes again), nor when what the table holds is not
     * known (its offset fails: the partition stops and is read again, and the positions with it, naming why).
     *
     * @param event the record
     * @param dest  its destination, exactly-once
     * @param held  the counter of records held already
     * @return true when the record is to be written
     */
    boolean positioned(final RecordEvent event, final Destination dest, final AtomicLong held)
    {
        final PositionChain chain = dest.positions();
        switch (chain.check(trackers, event.trackerId(), event.trackerGeneration(), event.offset()))
        {
            case PositionChain.WRITE -> {
                return true;
            }
            case PositionChain.HELD -> {
                trackers.get(event.trackerId()).ack(event.offset(), event.trackerGeneration());
                held.lazySet(held.get() + 1);
            }
            case PositionChain.UNKNOWN -> {
                final String what = where(event) + ": not written to " + dest + ": " + chain.problem();
                if (logNow())
                {
                    LOG.error("{}: {}", pipeline, what);
                }
                trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1, what);
            }
            default -> {
                // stale: the re-read brings it back
            }
        }
        return false;
    }

    /**
     * The fate of a record that is not written as a row, the one place where each policy is applied: the reason
     * picks the policy ({@code unmatched}, {@code on_error}, {@code tombstones}) and the dropped counter.
     *
     * @param event  the record
     * @param reason {@link #UNROUTED}, {@link #INVALID} or {@link #TOMBSTONE}
     * @param what   why, naming what was wrong (path, column, type) without the record's coordinates
     * @param why    the same for a dead letter (reason, stage, branch, table, column)
     */
    void notARow(final RecordEvent event, final int reason, final String what, final DeadLetter.Why why)
    {
        recordError(event, what, policyOf[reason], droppedOf[reason], why);
    }

    /**
     * A tombstone that {@code tombstones = "delete"} cannot apply (no table of its topic deletes rows, two do, several
     * shards): its fate is {@code on_error}'s, as a record error, but under {@code skip} it is counted as a dropped
     * tombstone (reason "tombstone"), not as an invalid record: it is the tombstone the run could not use.
     *
     * @param event the tombstone
     * @param what  why, naming the tables or the shards
     * @param why   the same for a dead letter
     */
    void refusedTombstone(final RecordEvent event, final String what, final DeadLetter.Why why)
    {
        recordError(event, what, policyOf[INVALID], droppedOf[TOMBSTONE], why);
    }

    /**
     * {@link #notARow} with a dead letter of the same reason ({@link #UNROUTED}: unrouted, {@link #INVALID}:
     * invalid, {@link #TOMBSTONE}: tombstone) found at {@code stage}.
     */
    void notARow(final RecordEvent event, final int reason, final String what, final String stage)
    {
        final DeadLetterReason r = reason == UNROUTED
            ? DeadLetterReason.UNROUTED
            : reason == TOMBSTONE ? DeadLetterReason.TOMBSTONE : DeadLetterReason.INVALID;
        notARow(event, reason, what, DeadLetter.Why.of(r, stage, what));
    }

    /** {@code skip}: counted as dropped, acknowledged (its offset commits), logged (the first ten, then rarely). */
    private void skip(final RecordEvent event, final AtomicLong dropped, final String what)
    {
        dropped.lazySet(dropped.get() + 1);
        trackers.get(event.trackerId()).ack(event.offset(), event.trackerGeneration());
        if (logNow())
        {
            LOG.warn("{}: skipped {}: {} (skipped so far: {})", pipeline, where(event), what, dropped.get());
        }
    }

    /** {@code fail}: the record fails in its tracker and the pipeline stops, naming it. */
    private void stop(final RecordEvent event, final String what)
    {
        final AckTracker tracker = trackers.get(event.trackerId());
        final String reason = where(event) + ": " + what;
        if (!control.failed())
        {
            LOG.error("{}: {}; stopping (nothing is committed past offset {})", pipeline, reason, event.offset());
        }
        // the pipeline fails first, so that the source, seeing the nack, knows not to announce a re-read
        control.fail(reason);
        tracker.fail(event.offset(), event.trackerGeneration(), -1, reason);
    }

    /**
     * Hands a record to the dead-letter stage; its offset is acknowledged when the broker has the dead letter. A
     * record whose key and headers were not copied (published before a dead-letter policy asked for them) is re-read.
     */
    private void deadLetter(final RecordEvent event, final DeadLetter.Why why)
    {
        final GatherDeadLetters d = deadLetters;
        if (d == null)
        {
            final String reason = where(event) + ": " + why.message() + " (dead_letter, but the pipeline has no "
                + "dead-letter stage)";
            control.fail(reason);
            trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1, reason);
            return;
        }
        if (!event.hasKeyAndHeaders() && !(event.tooLargeBytes() > 0 && keysAndHeadersRequested))
        {
            // once asked for, a record too large for the ring whose key and headers do not fit either goes without
            // them (sluice.errors.value.omitted says so) rather than being re-read for ever
            keysAndHeadersRequested = true;
            keysAndHeadersRequest.run();
            trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1, where(event)
                + ": re-read for its dead letter (its key and headers were not copied)");
            return;
        }
        if (!d.send(event, why))
        {
            // stopping: the offset stays unacknowledged, so the record is read again by the next run
            return;
        }
        if (logNow())
        {
            LOG.warn("{}: {} goes to the dead-letter topic ({}, stage {}): {}", pipeline, where(event),
                why.reason().label(), why.stage(), why.message());
        }
    }

    /** Remembers that a bound destination reads keys or headers, and asks the source for them once. */
    void noteKeysAndHeaders(final Destination d)
    {
        if (!keysAndHeadersNeeded && d.encoder().readsKeyAndHeaders())
        {
            keysAndHeadersNeeded = true;
            LOG.info("{}: {} reads record keys or headers: the source copies them from now on", pipeline, d);
            keysAndHeadersRequest.run();
        }
    }

    /** A record for a destination that reads keys and headers, published before the source copied them. */
    void rereadWithKeys(final RecordEvent event, final Destination d)
    {
        noteKeysAndHeaders(d);
        keysAndHeadersRequest.run();
        trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1,
            where(event) + ": re-read with its key and headers (table " + d + " reads them)");
    }
}
