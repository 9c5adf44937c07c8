package io.sluice.core.scatter.internal;

import io.sluice.core.scatter.ScatterStats;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.stage.Failpoints;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The route stage of a scatter pipeline (the first Disruptor event handler on the ring): evaluates the source's rule
 * for each record with {@link TopicRouter} (derive, render, sanitise, fallback), turns the sanitised name into a
 * topic id through the {@link TopicTable} (no allocation for a known topic), makes sure a new topic is being created
 * or looked up ({@link TopicProvisioner}) within {@code max_new_topics_per_minute}, and leaves the topic id in
 * {@link ScatterSlots} for the produce stage.
 *
 * <p>A record whose value is missing and whose rule has no fallback, or that needs a new topic beyond the rate limit
 * without a fallback, fails: its partition's batch is nacked ({@link RecordFailures}). A record of a partition that
 * already failed further back, or of an older tracker generation (a re-read started), is skipped: the source reads it
 * again. (A new name that collides with an existing topic once {@code .} and {@code _} are the same is refused by
 * {@link TopicProvisioner}, as Kafka refuses to create it; a name Kafka reserves, {@code ReservedTopics}, is refused
 * here when it is first seen, before any create or send, its reason naming the rule and template that made it.)
 *
 * <p>Thread-safety: runs on one thread; not thread-safe.
 */
public final class ScatterRouteStage implements EventHandler<RecordEvent>
{
    private static final Logger LOG = LoggerFactory.getLogger(ScatterRouteStage.class);

    private final String name;
    private final TopicRouter router;
    private final TopicTable table;
    private final TopicProvisioner provisioner;
    private final NewTopicRateLimiter limiter;
    private final long recheckNanos;
    private final PartitionTrackers trackers;
    private final ScatterSlots slots;
    private final RecordFailures failures;
    private final ScatterStats stats;
    private final int maxRecordBytes;
    private final int fallbackId;
    private long fallbacksLogged;
    private ScatterDeadLetters deadLetters;

    /**
     * @param name           the source's name, for logs
     * @param router         the source's rule
     * @param table          the pipeline's topics (this stage interns)
     * @param provisioner    creates or looks up new topics
     * @param limiter        {@code max_new_topics_per_minute}
     * @param recheckNanos   how long an ABSENT or FAILED topic is believed before it is looked at again
     * @param trackers       the source's trackers (null for the embedded API)
     * @param slots          per-slot results for the produce stage
     * @param failures       reports failed records
     * @param stats          the pipeline's counters
     * @param maxRecordBytes {@code engine.max_record_bytes}, for messages
     */
    ScatterRouteStage(final String name, final TopicRouter router, final TopicTable table,
        final TopicProvisioner provisioner,
        final NewTopicRateLimiter limiter, final long recheckNanos, final PartitionTrackers trackers,
        final ScatterSlots slots,
        final RecordFailures failures, final ScatterStats stats, final int maxRecordBytes)
    {
        this.name = name;
        this.router = router;
        this.table = table;
        this.provisioner = provisioner;
        this.limiter = limiter;
        this.recheckNanos = recheckNanos;
        this.trackers = trackers;
        this.slots = slots;
        this.failures = failures;
        this.stats = stats;
        this.maxRecordBytes = maxRecordBytes;
        this.fallbackId = router.rule().fallback() == null ? -1 : table.intern(router.rule().fallback());
    }

    /**
     * With {@code on_error = "dead_letter"}: a record that fails here goes to the dead-letter topic instead of
     * failing its batch, and a record the producer marked is sent there when the re-read brings it back (call before
     * the stage runs).
     *
     * @param d the source's dead letters
     */
    void deadLetters(final ScatterDeadLetters d)
    {
        this.deadLetters = d;
    }

    @Override
    public void onEvent(final RecordEvent event, final long sequence, final boolean endOfBatch)
    {
        final int slot = (int)sequence & slots.mask;
        if ((event.offset() & 7) == 0 && event.kind() == RecordEvent.KIND_RECORD)
        {
            // one record in eight, as the gather route stage samples it
            stats.ringHopNanos.record(System.nanoTime() - event.publishNanos());
        }
        slots.topicIds[slot] = event.kind() == RecordEvent.KIND_RECORD ? route(event, slot) : ScatterSlots.CONTROL;
    }

    /**
     * The stage's {@code StageErrorHandler.FailedRecord}: the record whose routing threw goes nowhere (the produce
     * stage skips its slot, whatever the slot held before) and is failed in its tracker, or to its embedded caller.
     *
     * @param event    the record's event
     * @param sequence its ring sequence
     * @param reason   what failed
     */
    void failEvent(final RecordEvent event, final long sequence, final String reason)
    {
        final int slot = (int)sequence & slots.mask;
        slots.topicIds[slot] = ScatterSlots.FAILED;
        failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), slots.listeners[slot],
            RecordFailures.CODE_ROUTING, reason);
    }

    private int route(final RecordEvent event, final int slot)
    {
        if (Failpoints.ENABLED)
        {
            Failpoints.check(Failpoints.SCATTER_ROUTE, event.offset());
        }
        final int trackerId = event.trackerId();
        if (trackerId >= 0)
        {
            final AckTracker t = trackers.get(trackerId);
            if (t.generation() != event.trackerGeneration() || t.failed() && t.failedOffset() < event.offset())
            {
                ScatterStats.increment(stats.skipped);
                return ScatterSlots.SKIPPED;
            }
        }
        if (deadLetters != null)
        {
            final DeadLetter.Why marked = deadLetters.marked(event);
            if (marked != null)
            {
                return deadLetters.send(event, marked) ? ScatterSlots.DEAD_LETTER : ScatterSlots.SKIPPED;
            }
        }
        if (event.tooLargeBytes() > 0)
        {
            return fail(event, slot,
                "the record of " + event.tooLargeBytes() + " bytes exceeds engine.max_record_bytes ("
                    + maxRecordBytes + ")");
        }
        final int result = router.route(event);
        if (result == TopicRouter.MISSING)
        {
            return fail(event, slot, "routing rule " + router.reason() + "; the rule has no fallback");
        }
        int id = table.intern(router.topic(), router.topicLength());
        if (result == TopicRouter.FALLBACK)
        {
            stats.fallbacks.incrementAndGet();
            logFallback(event, router.reason());
        }
        if (!admit(id))
        {
            ScatterStats.increment(stats.rateLimited);
            final String why = "max_new_topics_per_minute (" + limiter.limit() + ") reached: topic "
                + table.entry(id).name() + " is not created now";
            if (result == TopicRouter.ROUTED && fallbackId >= 0 && admit(fallbackId))
            {
                stats.fallbacks.incrementAndGet();
                logFallback(event, why);
                id = fallbackId;
            }
            else
            {
                return fail(event, slot, why + (fallbackId >= 0 && result == TopicRouter.ROUTED
                    ? " (nor the fallback " + table.entry(fallbackId).name() + ")"
                    : "; the rule has no fallback"));
            }
        }
        ScatterStats.increment(stats.routed);
        return id;
    }

    /** @return false when the topic needs creating and the rate limit does not allow it now */
    private boolean admit(final int id)
    {
        final TopicEntry e = table.entry(id);
        final int state = e.state();
        if (state == TopicEntry.EXISTS || state == TopicEntry.PENDING)
        {
            return true;
        }
        final long now = System.nanoTime();
        if (state == TopicEntry.UNKNOWN)
        {
            // a name Kafka reserves (__consumer_offsets, __cluster_metadata, ...) is refused here, before any create
            // or send and without a token of max_new_topics_per_minute: the produce stage sends its records to the
            // fallback, else the dead-letter topic, else stops
            final String reserved = provisioner.internalRefusal(e.name());
            if (reserved != null)
            {
                // where the name came from, for every record it refuses (the template shows how the value made it)
                final String why = reserved + " (routing rule " + router.rule().describe() + ", template '"
                    + router.rule().template() + "')";
                if (e.transition(TopicEntry.UNKNOWN, TopicEntry.REFUSED, why, now))
                {
                    LOG.warn("{}: {}", name, why);
                }
                return true;
            }
            if (provisioner.isKnownAtStart(e.name()))
            {
                e.transition(TopicEntry.UNKNOWN, TopicEntry.EXISTS, null, now);
                return true;
            }
        }
        if (state != TopicEntry.UNKNOWN && now - e.changedNanos() < recheckNanos)
        {
            // ABSENT, FAILED or REFUSED a moment ago: the produce stage settles the record with the topic's error
            return true;
        }
        if (provisioner.createsTopics() && state != TopicEntry.REFUSED && !limiter.tryAcquire(now))
        {
            // (looking again at a refused topic creates nothing: no token)
            return false;
        }
        if (e.transition(state, TopicEntry.PENDING, null, now))
        {
            provisioner.request(e);
        }
        return true;
    }

    private int fail(final RecordEvent event, final int slot, final String why)
    {
        if (deadLetters != null && slots.listeners[slot] == null)
        {
            if (deadLetters.send(event, DeadLetterReason.ROUTING, DeadLetterHeaders.STAGE_ROUTE, why))
            {
                return ScatterSlots.DEAD_LETTER;
            }
            if (event.trackerId() >= 0)
            {
                // stopping: the offset stays unacknowledged, so the record is read again by the next run
                return ScatterSlots.SKIPPED;
            }
        }
        failures.fail(event.trackerId(), event.trackerGeneration(), event.offset(), slots.listeners[slot],
            RecordFailures.CODE_ROUTING, why);
        return ScatterSlots.FAILED;
    }

    private void logFallback(final RecordEvent event, final String why)
    {
        final long n = ++fallbacksLogged;
        if (n <= 10 || n % 10_000 == 0)
        {
            LOG.info("{}: a record took the fallback {} ({} so far): {}", name, router.rule().fallback(), n, why);
        }
    }
}
