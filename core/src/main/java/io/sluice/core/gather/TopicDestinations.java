package io.sluice.core.gather;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The destinations of one branch of a {@link RouteStage}, by topic id: the cache the route stage looks a record's
 * destination up in (an array indexed by topic id, grown on demand), and its resolution, once per topic, through the
 * {@link DestinationResolver} (on the stage's thread) or a {@link DestinationSetup} (off it). A topic whose
 * destination cannot be resolved remembers the reason for one second (its records' offsets fail meanwhile, naming
 * it); a retriable failure is tried again with backoff, 100 ms doubling to 5 s: in short parks on a blocking stage,
 * by throwing {@link RouteStage#RETRY_LATER} on a non-blocking one (the record is offered again later).
 *
 * <p>Allocates nothing per record in steady state (a cached destination is an array read).
 *
 * <p>Thread-safety: confined to its route stage's thread; not thread-safe.
 */
final class TopicDestinations
{
    /** Logged under the route stage's name: these are its messages. */
    private static final Logger LOG = LoggerFactory.getLogger(RouteStage.class);

    private final String pipeline;
    private final int branchIndex;
    private final String branchName;
    private final RowEncoder<?> encoder;
    private final DestinationResolver.SinkTarget sink;
    private final DestinationResolver resolver;
    private final PartitionTrackers trackers;
    private final TopicRegistry topics;
    private final RecordFates fates;
    private final PipelineControl control;
    private final NanoClock clock;
    /** Counts a wait of the stage ({@code PipelineStats#routeWaits}); allocated once by the stage. */
    private final Runnable countWait;

    private Destination[] byTopic = new Destination[16];
    private String[] errorByTopic = new String[16];
    private long[] errorUntilNanos = new long[16];
    /** Non-blocking stage: when to resolve the topic's destination again after a retriable failure. */
    private long[] resolveAtNanos = new long[16];
    private long[] resolveWaitMs = new long[16];
    /** Tables being set up off this thread ({@link DestinationSetup}), by topic id. */
    private DestinationSetup.Pending[] setUpByTopic = new DestinationSetup.Pending[16];

    private DestinationSetup setup;
    private boolean blocking = true;
    private long nowNanos;

    /**
     * @param pipeline    pipeline name (log messages)
     * @param branchIndex the branch's index in its split
     * @param branchName  the branch's name
     * @param encoder     the branch's row encoder
     * @param sink        the sink the branch writes to
     * @param resolver    resolves destinations
     * @param trackers    the pipeline's ack trackers (an unresolved topic fails its records' offsets)
     * @param topics      the pipeline's topic registry
     * @param fates       the stage's record fates
     * @param control     the pipeline's run state
     * @param clock       the time source of retries, nanoseconds
     * @param countWait   counts a wait of the stage (called on its thread)
     */
    TopicDestinations(final String pipeline, final int branchIndex, final String branchName,
        final RowEncoder<?> encoder, final DestinationResolver.SinkTarget sink, final DestinationResolver resolver,
        final PartitionTrackers trackers, final TopicRegistry topics, final RecordFates fates,
        final PipelineControl control, final NanoClock clock, final Runnable countWait)
    {
        this.pipeline = pipeline;
        this.branchIndex = branchIndex;
        this.branchName = branchName;
        this.encoder = encoder;
        this.sink = sink;
        this.resolver = resolver;
        this.trackers = trackers;
        this.topics = topics;
        this.fates = fates;
        this.control = control;
        this.clock = clock;
        this.countWait = countWait;
    }

    /** @param s sets new tables up off the stage's thread, or null (before the stage runs) */
    void setup(final DestinationSetup s)
    {
        this.setup = s;
    }

    /** Never waits: a retriable failure throws {@link RouteStage#RETRY_LATER} (before the stage runs). */
    void nonBlocking()
    {
        this.blocking = false;
    }

    /** @return the stage's time after the last {@link #resolve} (it parks on a blocking stage), nanoseconds */
    long nowNanos()
    {
        return nowNanos;
    }

    /**
     * Resolves the destination of a branch whose sink's database and table are literals (before the stage runs),
     * trying a retriable failure again with backoff, 100 ms doubling to 5 s, each attempt logged, until it resolves,
     * fails otherwise or the pipeline is asked to stop.
     *
     * @return {@code null} when resolved, else the problem
     */
    String resolveLiteral()
    {
        long waitMs = 100;
        DestinationResolver.Result r = resolver.resolve(branchIndex, branchName, encoder, sink, "");
        while (r.destination() == null && r.retriable() && !control.stopRequested())
        {
            LOG.warn("{}: cannot resolve the destination of branch {} yet: {} (retriable; retrying in {} ms)",
                pipeline, branchName, r.error(), waitMs);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(waitMs));
            waitMs = Math.min(waitMs * 2, 5000);
            r = resolver.resolve(branchIndex, branchName, encoder, sink, "");
        }
        if (r.destination() == null)
        {
            return r.error();
        }
        fates.noteKeysAndHeaders(r.destination());
        return null;
    }

    /**
     * The cached destination of a topic (the cache grows to hold the topic id).
     *
     * @param topicId the topic's id in the pipeline's registry
     * @return its destination, or null when not resolved yet (or forgotten)
     */
    Destination cached(final int topicId)
    {
        if (topicId >= byTopic.length)
        {
            final int n = Math.max(topicId + 1, byTopic.length * 2);
            byTopic = Arrays.copyOf(byTopic, n);
            errorByTopic = Arrays.copyOf(errorByTopic, n);
            errorUntilNanos = Arrays.copyOf(errorUntilNanos, n);
            resolveAtNanos = Arrays.copyOf(resolveAtNanos, n);
            resolveWaitMs = Arrays.copyOf(resolveWaitMs, n);
            setUpByTopic = Arrays.copyOf(setUpByTopic, n);
        }
        return byTopic[topicId];
    }

    /**
     * Forgets a destination for every topic that uses it (its table cannot be written any more): their records
     * resolve it again.
     *
     * @param dest the destination
     */
    void forget(final Destination dest)
    {
        for (int t = 0; t < byTopic.length; t++)
        {
            if (byTopic[t] == dest)
            {
                byTopic[t] = null;
            }
        }
    }

    /**
     * Resolves the destination of a record's topic, whose cache entry is empty ({@link #cached} was called first).
     * When there is none, the record's offset fails in its tracker naming the reason (its partition stops there and
     * is re-read), and the reason is logged once per topic and remembered for one second.
     *
     * @param event the record
     * @param now   the stage's time, nanoseconds
     * @return the destination, or null when the record's offset has failed (no destination, or its table is being
     *     set up)
     * @throws RuntimeException {@link RouteStage#RETRY_LATER} on a non-blocking stage after a retriable failure; what
     *     the resolver throws
     */
    Destination resolve(final RecordEvent event, final long now)
    {
        nowNanos = now;
        final int topicId = event.topicId();
        String error = errorByTopic[topicId];
        if (error != null && nowNanos - errorUntilNanos[topicId] >= 0)
        {
            error = null; // try again: the table may exist by now
        }
        if (error == null && !blocking && resolveWaitMs[topicId] > 0 && nowNanos - resolveAtNanos[topicId] < 0)
        {
            // a retriable failure a moment ago (the server may be restarting): the source keeps polling meanwhile
            throw RouteStage.RETRY_LATER;
        }
        if (error == null)
        {
            long waitMs = blocking ? 100 : Math.max(100, resolveWaitMs[topicId]);
            while (true)
            {
                final DestinationResolver.Result r = resolveOrSetUp(topicId, event);
                if (r == null)
                {
                    return null; // its table is being set up: the record waits in its partition, read again later
                }
                if (r.destination() != null)
                {
                    fates.noteKeysAndHeaders(r.destination());
                    byTopic[topicId] = r.destination();
                    resolveWaitMs[topicId] = 0;
                    if (errorByTopic[topicId] != null)
                    {
                        LOG.info("{}: topic {} resolves now (branch {}): {}", pipeline, topics.name(topicId),
                            branchName, r.destination());
                        errorByTopic[topicId] = null;
                    }
                    return r.destination();
                }
                if (!r.retriable() || control.stopRequested())
                {
                    error = r.error();
                    if (!error.equals(errorByTopic[topicId]))
                    {
                        LOG.error("{}: records of topic {} have no destination in branch {}: {}; their partitions stop "
                            + "here until it is fixed (checkpoint.stalled_fail_after_ms)", pipeline,
                            topics.name(topicId), branchName, error);
                    }
                    errorByTopic[topicId] = error;
                    errorUntilNanos[topicId] = nowNanos + TimeUnit.SECONDS.toNanos(1);
                    break;
                }
                LOG.warn("{}: cannot resolve the destination of topic {} yet: {} (retrying in {} ms)", pipeline,
                    topics.name(topicId), r.error(), waitMs);
                if (!blocking)
                {
                    countWait.run();
                    resolveWaitMs[topicId] = Math.min(waitMs * 2, 5000);
                    resolveAtNanos[topicId] = nowNanos + TimeUnit.MILLISECONDS.toNanos(waitMs);
                    throw RouteStage.RETRY_LATER;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(waitMs));
                nowNanos = clock.nanoTime();
                waitMs = Math.min(waitMs * 2, 5000);
            }
        }
        trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1,
            fates.where(event) + ": " + error);
        return null;
    }

    /**
     * Resolves a topic's destination: on this thread without a {@link DestinationSetup}; with one, a table already
     * known (or a topic whose name has none) at once, a new table by handing its setup to the pool and, once the pool
     * has prepared it, binding it here. Off the hot path: only for records of a topic without a destination.
     *
     * @return the result, or {@code null} when the table is still being set up: the record's offset has failed with
     *     {@link AckTracker#CODE_AWAITING} and the setup as what it waits for, so it and the records after it in its
     *     partition are read again once the setup has ended
     */
    private DestinationResolver.Result resolveOrSetUp(final int topicId, final RecordEvent event)
    {
        final String topic = topics.name(topicId);
        if (setup == null)
        {
            return resolver.resolve(branchIndex, branchName, encoder, sink, topic);
        }
        DestinationSetup.Pending pending = setUpByTopic[topicId];
        if (pending == null)
        {
            final DestinationResolver.Result known = resolver.known(branchIndex, branchName, encoder, sink, topic);
            if (known != null)
            {
                return known;
            }
            final DestinationSetup.Pending started = setup.submit(branchName, sink, topic);
            // a table set up alone (no other setup under way) is waited for, briefly: a new topic's records go
            // straight to its table as before, without a re-read; a burst of new tables is set up in parallel
            final DestinationResolver.Prepared quick = setup.inProgress() <= 1
                ? started.await(DestinationSetup.ALONE_WAIT_NANOS)
                : null;
            if (quick != null)
            {
                return resolver.install(branchIndex, branchName, encoder, sink, topic, quick);
            }
            setUpByTopic[topicId] = started;
            pending = started;
        }
        else if (pending.result() != null)
        {
            setUpByTopic[topicId] = null;
            return resolver.install(branchIndex, branchName, encoder, sink, topic, pending.result());
        }
        // the last setup's failure, when it is being set up again, stays the reason the partition waits
        final String before = errorByTopic[topicId];
        trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), AckTracker.CODE_AWAITING,
            fates.where(event) + ": " + (before != null
                ? before + " (setting the table of topic " + topic + " up again)"
                : "waiting for the table of topic " + topic + " (branch " + branchName + ") to be set up"),
            pending);
        return null;
    }
}
