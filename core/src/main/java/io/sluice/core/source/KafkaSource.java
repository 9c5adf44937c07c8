package io.sluice.core.source;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.RingBuffer;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.PositionStore;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.StageAgents;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The source stage: owns the {@link KafkaConsumer} (which is not thread-safe) and runs on its own thread, an Agrona
 * {@link Agent} whose runner idles with the source stage's idle strategy when a duty cycle did nothing. It polls,
 * copies each record once into a pooled off-heap ring slot ({@link PolledRecords} through the {@link RingPublisher}),
 * registers the offset with the partition's {@link AckTracker}, publishes the slot, and periodically commits each
 * partition's watermark (the next offset not yet durably written everywhere). In the fused layout the stages after
 * the ring run on this thread too, through {@link Downstream#pump()}.
 *
 * <p>Back-pressure, not buffering: when the ring, a partition's ack window or the overflow pool is full, the source
 * keeps the rest of the poll, pauses every assigned partition, and resumes once everything kept has been published.
 *
 * <p>Stopping: on {@link PipelineControl#requestStop()} (or a failure) the duty cycle ends the agent; its
 * {@link #onClose()} stops publishing, asks the downstream stages to flush, waits until they are idle (bounded by
 * {@code drain_timeout_ms}), commits what is acknowledged and closes the consumer. A rebalance does the same for the revoked partitions before giving them up.
 *
 * <p>Re-reading ({@link #rereadOnFailure}, off by default): when a record of a partition fails (its tracker is
 * failed), the source pauses that partition and drops what it kept of it, waits until every record it published of
 * that partition has settled downstream ({@link Downstream#settledThrough}) and a backoff has passed, then seeks the
 * partition back to its watermark and resets its tracker (a new generation: late acknowledgements of the old one
 * are ignored) so the nacked batch is read again ({@link RereadSchedule}). The backoff doubles per failure at the
 * same watermark. The stall clock does not restart with a re-read: a partition whose watermark has not passed the
 * failed offset for {@code checkpoint.stalled_fail_after_ms} ends the run, naming the record and the reason
 * ({@link StallWatch}).
 */
public final class KafkaSource implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSource.class);

    private final KafkaSourceContext settings;
    private final RingPublisher publisher;
    private final PolledRecords polled;
    private final StallWatch stallWatch;
    private final PartitionTrackers trackers;
    private final TopicRegistry topics;
    private final PipelineControl control;
    private final PipelineStats stats;
    private final Downstream downstream;
    private final IdleStrategy idle;
    private final Duration pollTimeout;
    private final Map<TopicPartition, KafkaPartition> assigned = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> commitScratch = new HashMap<>();

    private KafkaConsumer<ByteBuffer, ByteBuffer> consumer;
    /** Reads what the exactly-once tables hold of a partition ({@link PositionLoader#NONE}: no sink is). */
    private PositionLoader positions = PositionLoader.NONE;
    private TopicSubscription subscription;
    private boolean paused;
    private long nextCommitNanos;
    private long nextCaughtUpCheckNanos;
    private long flushToken;
    /** Records were polled since the open batches were last sealed for --until-caught-up (a re-read polls again). */
    private boolean polledSinceEndSeal;
    private volatile boolean finished;
    private volatile boolean caughtUp;
    private long rereadBackoffMs;
    private long rereadBackoffMaxMs;
    private KafkaPartition[] partitionArray = new KafkaPartition[0];
    private int holdingCount;
    private String drainProblem;
    private boolean closing;

    /**
     * @param settings   the source's settings, concluded ({@link KafkaSourceContext#conclude()})
     * @param ring       the ingest ring (this source is its only producer)
     * @param overflow   buffers for records larger than a slot
     * @param trackers   the pipeline's ack trackers
     * @param topics     the pipeline's topic registry
     * @param control    the pipeline's run state
     * @param stats      the pipeline's counters
     * @param downstream the stages after the ring
     * @param idle       the source stage's idle strategy: the agent's runner idles with it, and so does the drain
     */
    public KafkaSource(final KafkaSourceContext settings, final RingBuffer<RecordEvent> ring,
        final OverflowPool overflow, final PartitionTrackers trackers, final TopicRegistry topics,
        final PipelineControl control, final PipelineStats stats, final Downstream downstream, final IdleStrategy idle)
    {
        if (!settings.concluded())
        {
            throw new IllegalArgumentException("KafkaSourceContext of " + settings.name() + " is not concluded");
        }
        this.settings = settings;
        this.publisher = new RingPublisher(ring, false, overflow, settings.maxRecordBytes(), SystemNanoClock.INSTANCE);
        this.polled = new PolledRecords(publisher, settings.copyKeyAndHeaders(), stats);
        this.stallWatch = new StallWatch(settings.stalledFailAfterMs(), RereadSchedule.Words.OFFSETS);
        this.trackers = trackers;
        this.topics = topics;
        this.control = control;
        this.stats = stats;
        this.downstream = downstream;
        this.idle = idle;
        this.pollTimeout = Duration.ofMillis(settings.pollTimeoutMs());
    }

    /** @return the idle strategy to run this agent with */
    public IdleStrategy idleStrategy()
    {
        return idle;
    }

    /**
     * Reads what the tables of the pipeline's exactly-once sinks hold of each partition when it is assigned, read
     * again or reset, before any of its records is published ({@link PositionStore}). Call before the agent starts.
     *
     * @param store the sinks' positions, or null when no sink is exactly-once
     * @return this source
     */
    public KafkaSource storedPositions(final PositionStore store)
    {
        this.positions = store == null
            ? PositionLoader.NONE
            : new PositionLoader(settings.name(), store, trackers, () -> consumer);
        return this;
    }

    /**
     * Re-reads a partition from its watermark when one of its records fails, instead of holding it until the stall
     * limit (see the class comment). Call before the agent starts.
     *
     * @param backoffMs    first wait before a re-read, ms ({@code > 0})
     * @param backoffMaxMs longest wait, ms; the wait doubles per failure at the same watermark
     * @return this source
     */
    public KafkaSource rereadOnFailure(final long backoffMs, final long backoffMaxMs)
    {
        this.rereadBackoffMs = Math.max(1, backoffMs);
        this.rereadBackoffMaxMs = Math.max(backoffMs, backoffMaxMs);
        return this;
    }

    /**
     * From the next record on, copies each record's key and headers into its slot as well as its value (any thread).
     * A gather pipeline asks for it when a table reads the key or headers (metadata columns) or a dead-letter policy
     * needs the record whole; until then it copies values only, so a pipeline that needs neither pays nothing.
     */
    public void copyKeysAndHeaders()
    {
        polled.copyKeysAndHeaders();
    }

    /** @return whether keys and headers are copied into the slots */
    public boolean copiesKeysAndHeaders()
    {
        return polled.copiesKeysAndHeaders();
    }

    /** @return true once the agent has closed (drained, committed, consumer closed) */
    public boolean finished()
    {
        return finished;
    }

    /** @return true when {@code untilCaughtUp} was set and every assigned partition was committed up to its end */
    public boolean caughtUp()
    {
        return caughtUp;
    }

    @Override
    public String roleName()
    {
        return settings.name() + "-source";
    }

    @Override
    public void onStart()
    {
        final Properties props = KafkaConsumerProperties.of(settings);
        consumer = new KafkaConsumer<>(props);
        subscription = new TopicSubscription(settings.name(), settings.pattern(), settings.topics(),
            settings.topicRefreshMs(), !"false".equals(settings.consumerProperties().get("exclude.internal.topics")));
        if (settings.pattern() != null)
        {
            // a slow or failing listing must not keep this thread from polling: list on a thread of its own
            subscription.listInBackground(TopicListing.admin(props, subscription.listTimeout()));
        }
        subscription.subscribe(consumer, new Listener(), System.nanoTime());
        nextCommitNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.commitIntervalMs());
    }

    /**
     * One duty cycle: publish what the last poll left (running the fused stages meanwhile), or poll; then commit,
     * re-read and watch for stalls when due.
     *
     * @return records published and polled; 0 when back-pressured or the poll found nothing (the runner idles)
     * @throws org.agrona.concurrent.AgentTerminationException when the pipeline stops ({@link StageAgents#STOP})
     */
    @Override
    public int doWork()
    {
        if (control.stopRequested())
        {
            throw StageAgents.STOP;
        }
        try
        {
            return dutyCycle();
        }
        catch (final WakeupException e)
        {
            LOG.debug("{}: consumer woken up", settings.name());
            throw StageAgents.STOP;
        }
        catch (final AuthenticationException e)
        {
            // /ready names it; the stage's error handler fails the pipeline with it
            stats.kafka.onAuthenticationFailure(e.getMessage());
            throw e;
        }
        catch (final KafkaException e)
        {
            throw GroupCoordinatorErrors.explain(e, settings.consumerProperties().get(ConsumerConfig.GROUP_ID_CONFIG),
                assigned.size());
        }
    }

    /** Drains, commits and closes the consumer (also after a failure). */
    @Override
    public void onClose()
    {
        try
        {
            shutdown();
        }
        finally
        {
            finished = true;
        }
    }

    /** @return the record being published, for the error handler (allocates), or null */
    public String describeWork()
    {
        return polled.describe();
    }

    private int dutyCycle()
    {
        if (polled.pending())
        {
            // keep publishing while the stages make room (always, when they run fused on this thread); pause the
            // partitions only when nothing moves
            long before;
            do
            {
                before = stats.recordsIn.get();
                polled.publish(assigned);
                downstream.pump();
            }
            while (polled.pending() && stats.recordsIn.get() != before);
            if (polled.pending())
            {
                if (!paused)
                {
                    consumer.pause(consumer.assignment());
                    paused = true;
                    stats.backpressurePauses.incrementAndGet();
                }
                housekeeping(true);
                return 0;
            }
        }
        if (paused)
        {
            resumeAssigned();
            paused = false;
        }
        final ConsumerRecords<ByteBuffer, ByteBuffer> records = subscription.poll(consumer, pollTimeout);
        final int count = records.count();
        polledSinceEndSeal |= count > 0;
        if (count > 0 || !records.nextOffsets().isEmpty())
        {
            // a poll may advance positions without records (transaction markers, aborted records)
            polled.take(records, assigned);
            if (polled.pending())
            {
                polled.publish(assigned);
            }
        }
        downstream.pump();
        housekeeping(false);
        return count;
    }

    private long lastHeartbeatPollNanos;

    private void housekeeping(final boolean blocked)
    {
        final long now = System.nanoTime();
        subscription.refresh(consumer, now);
        if (rereadBackoffMs > 0)
        {
            rereadFailed(now);
        }
        if (blocked && now - lastHeartbeatPollNanos > TimeUnit.MILLISECONDS.toNanos(500))
        {
            // paused partitions return nothing; polling keeps the group membership and rebalances moving
            lastHeartbeatPollNanos = now;
            final ConsumerRecords<ByteBuffer, ByteBuffer> none = subscription.poll(consumer, Duration.ZERO);
            if (!none.isEmpty())
            {
                throw new IllegalStateException("records returned while paused");
            }
        }
        if (now - nextCommitNanos >= 0)
        {
            nextCommitNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.commitIntervalMs());
            commit(false);
            checkStalls(now);
            sampleLag();
        }
        if (settings.untilCaughtUp() && !blocked && now - nextCaughtUpCheckNanos >= 0)
        {
            nextCaughtUpCheckNanos = now + TimeUnit.MILLISECONDS.toNanos(500);
            checkCaughtUp();
        }
    }

    private void commit(final boolean sync)
    {
        commitScratch.clear();
        final boolean settledPoll = !polled.pending();
        for (final KafkaPartition ps : assigned.values())
        {
            if (settledPoll)
            {
                ps.skipOffsetsNeverReturned(consumer, settings.name(), settings.autoOffsetReset());
            }
            ps.retrySkip();
            final long wm = ps.tracker.watermark();
            if (wm > ps.committed)
            {
                commitScratch.put(ps.tp, new OffsetAndMetadata(wm));
            }
        }
        if (commitScratch.isEmpty())
        {
            return;
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(commitScratch);
        if (sync)
        {
            try
            {
                consumer.commitSync(offsets, Duration.ofSeconds(30));
                onCommitted(offsets);
            }
            catch (final RuntimeException e)
            {
                LOG.warn("{}: commit of {} failed: {}", settings.name(), offsets, e.toString());
            }
        }
        else
        {
            consumer.commitAsync(offsets, (committed, error) ->
            {
                if (error == null)
                {
                    onCommitted(committed);
                }
                else
                {
                    LOG.warn("{}: commit failed (will retry): {}", settings.name(), error.toString());
                }
            });
        }
    }

    private void onCommitted(final Map<TopicPartition, OffsetAndMetadata> offsets)
    {
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
        {
            final KafkaPartition ps = assigned.get(e.getKey());
            if (ps != null && e.getValue().offset() > ps.committed)
            {
                ps.committed = e.getValue().offset();
            }
        }
    }

    private void checkStalls(final long now)
    {
        for (final KafkaPartition ps : assigned.values())
        {
            if (stallWatch.stalled(now, ps.tracker, ps.failSinceNanos(), ps.stallClockFloorNanos()))
            {
                control.fail(stallWatch.message(ps.tp, ps.tracker, ps.reread == null ? null : ps.reread.failReason(),
                    downstream));
                return;
            }
        }
    }

    /** Consumer lag per partition for the metrics: the client's cached log-end offset minus its position. */
    private void sampleLag()
    {
        for (final KafkaPartition ps : partitionArray)
        {
            final OptionalLong lag = consumer.currentLag(ps.tp);
            stats.consumerLag(ps.trackerId, lag.isPresent() ? lag.getAsLong() : -1);
        }
    }

    private void checkCaughtUp()
    {
        if (assigned.isEmpty())
        {
            return;
        }
        final Map<TopicPartition, Long> ends = consumer.endOffsets(assigned.keySet(), Duration.ofSeconds(10));
        boolean committedAll = true;
        boolean fetchedAll = !polled.pending();
        for (final KafkaPartition ps : assigned.values())
        {
            final Long end = ends.get(ps.tp);
            if (end == null)
            {
                return;
            }
            committedAll &= ps.committed >= end;
            fetchedAll &= !ps.holding() && ps.fetched >= end;
        }
        if (!committedAll)
        {
            // every record up to the end is in the ring: seal the open batches now instead of linger_ms later, so the
            // run ends once they are written; again whenever records were polled since (more records, or a re-read of
            // a partition whose batch failed)
            if (fetchedAll && polledSinceEndSeal
                && publisher.tryPublishControl(RecordEvent.KIND_FLUSH, ++flushToken) >= 0)
            {
                polledSinceEndSeal = false;
                LOG.debug("{}: every assigned partition is read up to its end offset; sealing the open batches",
                    settings.name());
            }
            return;
        }
        LOG.info("{}: every assigned partition is committed up to its end offset; stopping (--until-caught-up)",
            settings.name());
        caughtUp = true;
        control.requestStop();
    }

    /**
     * Re-reading: holds a partition whose tracker failed, then seeks it back to its watermark once what it published
     * has settled and the backoff has passed ({@link RereadSchedule}). Source thread; allocates only when a partition
     * fails or is re-read.
     */
    private void rereadFailed(final long now)
    {
        final KafkaPartition[] states = partitionArray;
        for (final KafkaPartition ps : states)
        {
            final AckTracker t = ps.tracker;
            if (ps.holding() && ps.settleSequence < 0)
            {
                ps.settleSequence = publisher.tryPublishControl(RecordEvent.KIND_FLUSH, ++flushToken);
            }
            // settled through the flush published at the hold (every open batch with its records was sealed first),
            // or, for a hold that waits for work, routed through the last record published before it
            final long settle = ps.holding() ? (ps.settleSequence < 0 ? Long.MAX_VALUE : ps.settleSequence) : -1;
            switch (ps.reread.poll(now, t, downstream, settle))
            {
                case RereadSchedule.HOLD -> {
                    holdingCount++;
                    consumer.pause(List.of(ps.tp));
                    polled.forget(ps);
                    // a hold for a new table seals no batch: the ring's cursor marks the partition's last record
                    ps.settleSequence = ps.reread.holdsForWork()
                        ? publisher.cursor()
                        : publisher.tryPublishControl(RecordEvent.KIND_FLUSH, ++flushToken);
                }
                case RereadSchedule.REREAD -> {
                    ps.rereadFromWatermark(consumer, positions, stats.rereads);
                    holdingCount--;
                    if (!paused)
                    {
                        consumer.resume(List.of(ps.tp));
                    }
                }
                default -> {
                    // running, or still holding
                }
            }
        }
    }

    private void resumeAssigned()
    {
        if (holdingCount == 0)
        {
            consumer.resume(consumer.assignment());
            return;
        }
        final List<TopicPartition> resume = new ArrayList<>();
        for (final KafkaPartition ps : partitionArray)
        {
            if (!ps.holding())
            {
                resume.add(ps.tp);
            }
        }
        consumer.resume(resume);
    }

    /**
     * Flushes the downstream and waits, never longer than {@code drain_timeout_ms}, until it is idle; true when it
     * became idle. The flush event is published as soon as the ring has room (in the fused layout the stages that make
     * room run here, so publishing never waits either). On timeout {@link #drainProblem} says what did not drain.
     */
    private boolean drain(final String why)
    {
        return drain(why, settings.drainTimeoutMs());
    }

    /**
     * The drain of a rebalance runs inside {@code poll()}: bounded by half of {@code max.poll.interval.ms} too, so the
     * consumer is never evicted for a drain that waits on a hanging ClickHouse.
     */
    private boolean drainForRebalance()
    {
        final String configured = settings.consumerProperties().get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
        long maxPollMs = 300_000;
        try
        {
            maxPollMs = configured == null ? maxPollMs : Long.parseLong(configured.trim());
        }
        catch (final NumberFormatException e)
        {
            // the consumer itself refuses it at start
        }
        return drain("rebalance", Math.min(settings.drainTimeoutMs(), maxPollMs / 2));
    }

    private boolean drain(final String why, final long timeoutMs)
    {
        final long token = ++flushToken;
        boolean flushPublished = false;
        idle.reset();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long nextLog = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true)
        {
            if (!flushPublished)
            {
                flushPublished = publisher.tryPublishControl(RecordEvent.KIND_FLUSH, token) >= 0;
            }
            downstream.pump();
            if (flushPublished && downstream.idle())
            {
                break;
            }
            final long now = System.nanoTime();
            if (now - deadline >= 0)
            {
                drainProblem = why + ": in-flight batches not written within " + timeoutMs
                    + " ms (checkpoint.drain_timeout_ms" + (timeoutMs < settings.drainTimeoutMs()
                        ? ", bounded by half of max.poll.interval.ms)"
                        : ")")
                    + ": " + downstream.describeStall();
                LOG.warn("{}: {}; committing only what is acknowledged", settings.name(), drainProblem);
                return false;
            }
            if (now - nextLog >= 0)
            {
                LOG.info("{}: {}: waiting for in-flight batches: {}", settings.name(), why, downstream.describeStall());
                nextLog = now + TimeUnit.SECONDS.toNanos(5);
            }
            idle.idle();
        }
        return true;
    }

    private void shutdown()
    {
        if (consumer == null)
        {
            return;
        }
        try
        {
            polled.clear();
            final boolean idle = drain(control.failed() ? "stopping after failure" : "stopping");
            if (!idle)
            {
                downstream.abandon();
                // exit 1: what did not drain is read again by the next run
                control.fail(drainProblem);
            }
            commit(true);
            for (final KafkaPartition ps : assigned.values())
            {
                LOG.info("{}: {} committed offset {}{}", settings.name(), ps.tp, ps.committed,
                    ps.tracker.failed()
                        ? " (failed at offset " + ps.tracker.failedOffset() + ": " + ps.tracker.failureReason() + ")"
                        : "");
            }
        }
        catch (final RuntimeException e)
        {
            LOG.warn("{}: error while stopping: {}", settings.name(), e.toString());
        }
        finally
        {
            // the close gives the partitions up: what they acknowledged was committed just now, so the revocation
            // callback neither drains nor commits again (a second drain would double the stop's bound)
            closing = true;
            if (subscription != null)
            {
                subscription.close();
            }
            try
            {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
            }
            catch (final RuntimeException e)
            {
                LOG.warn("{}: error closing the consumer: {}", settings.name(), e.toString());
            }
        }
    }

    /** @return the assigned partitions' watermarks and committed offsets, for status lines (source thread view) */
    public String describePartitions()
    {
        final StringBuilder sb = new StringBuilder();
        final List<KafkaPartition> states;
        synchronized (this)
        {
            states = new ArrayList<>(assigned.values());
        }
        for (final KafkaPartition ps : states)
        {
            sb.append(ps.tp).append(" committed=").append(ps.committed).append(' ');
        }
        return sb.toString();
    }

    private final class Listener implements ConsumerRebalanceListener
    {
        @Override
        public void onPartitionsRevoked(final Collection<TopicPartition> partitions)
        {
            if (partitions.isEmpty())
            {
                return;
            }
            if (closing)
            {
                // the run is over: the trackers stay, so the end-of-run summary and a last scrape still report
                // each partition's final lag (they go with the pipeline)
                remove(partitions, false);
                return;
            }
            LOG.info("{}: partitions revoked: {}; flushing and committing what they acknowledged", settings.name(),
                partitions);
            drainForRebalance();
            commit(true);
            remove(partitions, true);
        }

        @Override
        public void onPartitionsLost(final Collection<TopicPartition> partitions)
        {
            LOG.warn("{}: partitions lost (no commit possible): {}", settings.name(), partitions);
            remove(partitions, true);
        }

        @Override
        public void onPartitionsAssigned(final Collection<TopicPartition> partitions)
        {
            if (partitions.isEmpty())
            {
                stats.onAssigned(assigned.size());
                return;
            }
            final Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions),
                Duration.ofSeconds(30));
            final List<KafkaPartition> added = new ArrayList<>(partitions.size());
            for (final TopicPartition tp : partitions)
            {
                final long position = consumer.position(tp, Duration.ofSeconds(30));
                final OffsetAndMetadata c = committed.get(tp);
                final AckTracker tracker = trackers.trackerFor(tp, position);
                final KafkaPartition ps = new KafkaPartition(settings.name(), tp, topics.idOf(tp.topic()),
                    trackers.idOf(tp), tracker,
                    c == null ? position : c.offset(), rereadBackoffMs == 0
                        ? null
                        : new RereadSchedule(settings.name(), tp, RereadSchedule.Words.OFFSETS, rereadBackoffMs,
                            rereadBackoffMaxMs, settings.stalledFailAfterMs(), control));
                ps.fetched = position;
                ps.positions = positions;
                added.add(ps);
                synchronized (KafkaSource.this)
                {
                    assigned.put(tp, ps);
                    partitionArray = assigned.values().toArray(new KafkaPartition[0]);
                }
                LOG.atInfo().addKeyValue("topic", tp.topic()).addKeyValue("partition", tp.partition())
                    .addKeyValue("offset", position)
                    .log("{}: assigned {} at offset {}{}", settings.name(), tp, position, c == null
                        ? " (no commit: "
                            + settings.autoOffsetReset() + ")"
                        : "");
            }
            // before any record of them is published: the route stage needs what each table holds
            positions.load(added);
            if (paused)
            {
                consumer.pause(partitions);
            }
            stats.onAssigned(assigned.size());
        }

        private void remove(final Collection<TopicPartition> partitions, final boolean release)
        {
            synchronized (KafkaSource.this)
            {
                for (final TopicPartition tp : partitions)
                {
                    final KafkaPartition ps = assigned.remove(tp);
                    if (ps != null)
                    {
                        polled.forget(ps);
                        // its ack state is freed: a late acknowledgement lands on a placeholder, or on a newer
                        // generation of the id's next partition, and is ignored (PartitionTrackers)
                        final int id = release ? trackers.release(tp) : -1;
                        if (id >= 0)
                        {
                            stats.consumerLag(id, -1);
                        }
                    }
                    if (ps != null && ps.holding())
                    {
                        holdingCount--;
                    }
                }
                partitionArray = assigned.values().toArray(new KafkaPartition[0]);
            }
        }
    }
}
