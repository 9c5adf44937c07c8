package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.BranchHandle;
import io.sluice.core.gather.split.ChunkConfig;
import io.sluice.core.gather.split.Emitter;
import io.sluice.core.gather.split.RecordDecoder;
import io.sluice.core.gather.split.RowEncoder;
import io.sluice.core.gather.split.ShardRouter;
import io.sluice.core.gather.split.Split;
import io.sluice.core.gather.split.SplitClassifier;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The route stage of a gather pipeline (one Disruptor event handler on the ingest ring): per record, the decoder
 * builds the view once (for JSON: one pass of path extraction), the split's classifier emits it to one branch (or
 * none: the unmatched policy applies), the branch's destination is looked up by topic (resolved once per topic), the
 * shard router picks the shard, the row is encoded straight into the open batch of (destination, shard), and the
 * {@link Sealer} seals a batch on {@code max_rows}, {@code max_bytes}, {@code linger_ms}, pool exhaustion or a flush
 * and hands it to the {@link SealedBatchQueue} of its shard's insert worker. When a queue is full (or the pool has no
 * buffer) this stage waits here, which holds the ring and so, through it, the source (back-pressure).
 *
 * <p>Dispatch is O(1): the handle carries the branch index; destinations are cached in arrays indexed by topic id.
 * Nothing here allocates per record in steady state.
 *
 * <p>Errors: a record that cannot be written (malformed JSON, a null value, a value that does not convert to its
 * column type, a record above {@code max_record_bytes}, a topic whose destination cannot be resolved) follows the
 * {@code on_error} policy; a record no branch takes follows the split's unmatched policy. {@code fail} marks the
 * record failed in its partition's tracker (so nothing is committed past it) and stops the pipeline naming topic,
 * partition and offset, and column, path and type where they apply; {@code skip} counts and acknowledges it;
 * {@code dead_letter} hands it to the pipeline's {@link GatherDeadLetters}, which acknowledges it once the broker has
 * its dead letter. A record an insert worker marked (its batch was refused for its data) is sent there too when
 * the re-read brings it back, instead of being written again.
 *
 * <p>Keys and headers: the source copies them only when a stage needs them. A destination whose encoder reads them
 * ({@link RowEncoder.Bound#readsKeyAndHeaders()}) asks the source for them when it is bound; a record that was
 * published before that fails its offset once and is re-read with them.
 *
 * <p>Thread-safety: runs on one thread; not thread-safe.
 *
 * @param <T> the record view type
 */
public final class RouteStage<T> implements EventHandler<RecordEvent>
{
    private static final Logger LOG = LoggerFactory.getLogger(RouteStage.class);

    /** One branch at run time. */
    private static final class Branch
    {
        final int index;
        final String name;
        final RowEncoder<?> encoder;
        final ShardRouter<Object> router;
        final DestinationResolver.SinkTarget sink;
        final int shards;
        Destination[] byTopic = new Destination[16];
        String[] errorByTopic = new String[16];
        long[] errorUntilNanos = new long[16];

        @SuppressWarnings("unchecked")
        Branch(final Split.Branch<?> b, final DestinationResolver.SinkTarget sink, final int shards)
        {
            this.index = b.index();
            this.name = b.name();
            this.encoder = b.encoder();
            this.router = (ShardRouter<Object>)b.router();
            this.sink = sink;
            this.shards = shards;
        }
    }

    private final String pipeline;
    private final RecordDecoder<T> decoder;
    private final SplitClassifier<T> classifier;
    private final Branch[] branches;
    private final DestinationResolver resolver;
    private final PartitionTrackers trackers;
    private final TopicRegistry topics;
    private final OverflowPool overflow;
    private final PipelineControl control;
    private final PipelineStats stats;
    private final ErrorPolicy unmatched;
    private final ErrorPolicy onError;
    private final RowEmitter emitter = new RowEmitter();
    private final Sealer sealer;
    private final NanoClock clock;

    private long nowNanos;
    private volatile long lastFlushToken;
    private long errorsLogged;
    private GatherDeadLetters deadLetters;
    private Runnable keysAndHeadersRequest = () ->
    {
    };
    private volatile boolean keysAndHeadersNeeded;

    /**
     * A route stage on the system clock.
     *
     * @param pipeline pipeline name
     * @param decoder  record → view
     * @param split    the split
     * @param onError  record error policy
     * @param sinks    per branch, the sink it writes to
     * @param queues   per branch, the queues of its sink's insert workers, by shard then worker
     * @param pools    per branch, its batch pool
     * @param resolver resolves destinations
     * @param trackers the pipeline's ack trackers
     * @param topics   the pipeline's topic registry
     * @param overflow where overflow buffers go back
     * @param control  the pipeline's run state
     * @param stats    the pipeline's counters
     */
    public RouteStage(final String pipeline, final RecordDecoder<T> decoder, final Split<T> split,
        final ErrorPolicy onError,
        final List<DestinationResolver.SinkTarget> sinks, final List<? extends SealedBatchQueue[][]> queues,
        final List<BatchPool> pools,
        final DestinationResolver resolver, final PartitionTrackers trackers, final TopicRegistry topics,
        final OverflowPool overflow, final PipelineControl control, final PipelineStats stats)
    {
        this(pipeline, decoder, split, onError, sinks, queues, pools, resolver, trackers, topics, overflow, control,
            stats, SystemNanoClock.INSTANCE);
    }

    /**
     * @param pipeline pipeline name
     * @param decoder  record → view
     * @param split    the split
     * @param onError  record error policy
     * @param sinks    per branch, the sink it writes to
     * @param queues   per branch, the queues of its sink's insert workers, by shard then worker
     * @param pools    per branch, its batch pool
     * @param resolver resolves destinations
     * @param trackers the pipeline's ack trackers
     * @param topics   the pipeline's topic registry
     * @param overflow where overflow buffers go back
     * @param control  the pipeline's run state
     * @param stats    the pipeline's counters
     * @param clock    the time source of linger, ring-hop latency and retries, nanoseconds
     */
    public RouteStage(final String pipeline, final RecordDecoder<T> decoder, final Split<T> split,
        final ErrorPolicy onError,
        final List<DestinationResolver.SinkTarget> sinks, final List<? extends SealedBatchQueue[][]> queues,
        final List<BatchPool> pools,
        final DestinationResolver resolver, final PartitionTrackers trackers, final TopicRegistry topics,
        final OverflowPool overflow, final PipelineControl control, final PipelineStats stats, final NanoClock clock)
    {
        this.pipeline = pipeline;
        this.decoder = decoder;
        this.classifier = split.classifier();
        final List<Split.Branch<?>> bs = split.branches();
        this.branches = new Branch[bs.size()];
        final List<ChunkConfig> chunks = new ArrayList<>();
        for (int i = 0; i < branches.length; i++)
        {
            branches[i] = new Branch(bs.get(i), sinks.get(i), queues.get(i).length);
            chunks.add(bs.get(i).chunk());
        }
        this.sealer = new Sealer(chunks, pools, queues, clock, stats);
        this.clock = clock;
        this.resolver = resolver;
        this.trackers = trackers;
        this.topics = topics;
        this.overflow = overflow;
        this.control = control;
        this.stats = stats;
        this.unmatched = split.unmatched();
        this.onError = onError;
    }

    /**
     * Resolves every branch whose sink's database and table are literals, before any record flows, so a missing
     * table or a column the encoder cannot write is reported at start (called before the stage runs).
     *
     * @return {@code null} when all resolved, else the first problem
     */
    public String resolveLiteralDestinations()
    {
        for (final Branch b : branches)
        {
            if (b.sink.isLiteral())
            {
                final DestinationResolver.Result r = resolver.resolve(b.index, b.name, b.encoder, b.sink, "");
                if (r.destination() == null)
                {
                    return r.error();
                }
                noteKeysAndHeaders(r.destination());
            }
        }
        return null;
    }

    /**
     * Gives the stage its dead-letter stage (before it runs; required when a policy is {@code dead_letter}).
     *
     * @param d the pipeline's dead letters
     * @return this stage
     */
    public RouteStage<T> deadLetters(final GatherDeadLetters d)
    {
        this.deadLetters = d;
        return this;
    }

    /**
     * Says how to ask the source for keys and headers (before it runs); called once, when the first destination that
     * reads them is bound.
     *
     * @param request asks the source to copy keys and headers from its next record on (any thread)
     * @return this stage
     */
    public RouteStage<T> keysAndHeadersRequest(final Runnable request)
    {
        this.keysAndHeadersRequest = request;
        if (keysAndHeadersNeeded)
        {
            request.run();
        }
        return this;
    }

    /** @return whether a destination bound so far reads records' keys or headers */
    public boolean keysAndHeadersNeeded()
    {
        return keysAndHeadersNeeded;
    }

    /** @return the token of the last flush control event this stage completed */
    public long lastFlushToken()
    {
        return lastFlushToken;
    }

    /** @return the sealer of this stage's batches */
    public Sealer sealer()
    {
        return sealer;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth)
    {
        nowNanos = clock.nanoTime();
    }

    @Override
    public void onEvent(final RecordEvent event, final long sequence, final boolean endOfBatch)
    {
        switch (event.kind())
        {
            case RecordEvent.KIND_RECORD :
                if ((event.offset() & 7) == 0)
                {
                    // one record in eight: the histogram stays representative and costs an eighth
                    stats.ringHopNanos.record(nowNanos - event.publishNanos());
                }
                try
                {
                    route(event);
                }
                finally
                {
                    overflow.release(event.takeOverflow());
                }
                break;
            case RecordEvent.KIND_FLUSH :
                sealer.flush();
                awaitHandOffs();
                lastFlushToken = event.controlToken();
                break;
            default :
                break;
        }
        if (endOfBatch && nowNanos - sealer.nextDeadlineNanos() >= 0)
        {
            sealExpired();
        }
    }

    @Override
    public void onTimeout(final long sequence)
    {
        nowNanos = clock.nanoTime();
        if (nowNanos - sealer.nextDeadlineNanos() >= 0)
        {
            sealExpired();
        }
    }

    private void sealExpired()
    {
        sealer.sealExpired(clock.nanoTime());
        awaitHandOffs();
    }

    private void route(final RecordEvent event)
    {
        if (Failpoints.ENABLED)
        {
            Failpoints.check(Failpoints.GATHER_ROUTE, event.offset());
        }
        if (deadLetters != null && redrive(event))
        {
            return;
        }
        if (event.tooLargeBytes() > 0)
        {
            final String what = "record of " + event.tooLargeBytes() + " bytes exceeds engine.max_record_bytes";
            recordError(event, what, onError, stats.droppedInvalid,
                DeadLetter.Why.of(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, what));
            return;
        }
        if (event.valueLength() < 0)
        {
            final String what = "record value is null (a tombstone); there is nothing to write";
            recordError(event, what, onError, stats.droppedInvalid,
                DeadLetter.Why.of(DeadLetterReason.TOMBSTONE, DeadLetterHeaders.STAGE_PARSE, what));
            return;
        }
        final T view = decoder.decode(event);
        if (view == null)
        {
            final String what = decoder.error();
            recordError(event, what, onError, stats.droppedInvalid,
                DeadLetter.Why.of(DeadLetterReason.INVALID, DeadLetterHeaders.STAGE_PARSE, what));
            return;
        }
        final RowEmitter e = emitter;
        e.begin(event);
        try
        {
            classifier.route(view, e);
        }
        catch (final RuntimeException ex)
        {
            if (!e.settled)
            {
                e.settled = true;
                final String what = "the classifier failed: " + ex;
                recordError(event, what, onError, stats.droppedInvalid, new DeadLetter.Why(DeadLetterReason.INVALID,
                    DeadLetterHeaders.STAGE_CLASSIFY, what, ex.getClass().getName(), null, null, null, null, 0));
            }
            LOG.error("{}: classifier failed on {}", pipeline, where(event), ex);
            return;
        }
        if (!e.settled)
        {
            final String what = "no branch matches the record (unmatched = " + unmatched.configName() + ")";
            recordError(event, what, unmatched, stats.droppedUnrouted,
                DeadLetter.Why.of(DeadLetterReason.UNROUTED, DeadLetterHeaders.STAGE_CLASSIFY, what));
        }
    }

    /**
     * A record an insert worker marked (its batch was refused for its data) becomes a dead letter now that the
     * re-read brought it back, instead of being written again.
     *
     * @return true when the record was marked
     */
    private boolean redrive(final RecordEvent event)
    {
        final DeadLetter.Why marked = deadLetters.marked(event);
        if (marked == null)
        {
            return false;
        }
        deadLetter(event, marked);
        return true;
    }

    /** The emitter handed to the classifier; one per stage, reset per record. */
    private final class RowEmitter implements Emitter
    {
        RecordEvent event;
        boolean settled;

        void begin(final RecordEvent e)
        {
            event = e;
            settled = false;
        }

        @Override
        public <R> void emit(final BranchHandle<R> handle, final R row)
        {
            final RecordEvent ev = event;
            if (settled)
            {
                LOG.error("{}: {} emitted to a second branch ({}); a record goes to exactly one branch", pipeline,
                    where(ev), handle);
                return;
            }
            settled = true;
            final Branch branch = branches[handle.index()];
            final Destination dest = destinationFor(branch, ev);
            if (dest == null)
            {
                return;
            }
            if (dest.encoder().readsKeyAndHeaders() && !ev.hasKeyAndHeaders())
            {
                rereadWithKeys(ev, dest);
                return;
            }
            final int shard = branch.shards == 1 ? 0 : branch.router.shard(row, branch.shards);
            final Sealer s = sealer;
            BatchBuffer batch = s.batchFor(branch.index, dest, shard);
            if (batch == null)
            {
                batch = awaitBatch(branch.index, dest, shard);
            }
            final Bytes<Void> rows = batch.rows();
            final long start = rows.writePosition();
            @SuppressWarnings("unchecked")
            final RowEncoder.Bound<R> encoder = (RowEncoder.Bound<R>)dest.encoder();
            final String error;
            try
            {
                error = encoder.encode(row, rows);
            }
            catch (final RuntimeException | Error ex)
            {
                // a half-written row must never reach the table: the batch ends where the row began
                rows.writePosition(start);
                s.discardIfEmpty(batch);
                throw ex;
            }
            if (error != null)
            {
                rows.writePosition(start);
                recordError(ev, error + " (table " + dest + ")", onError, stats.droppedInvalid,
                    GatherDeadLetters.conversion(branch.name, dest, error));
                s.discardIfEmpty(batch);
                return;
            }
            batch.addRow(ev.trackerId(), ev.trackerGeneration(), ev.offset(), ev.timestampMs());
            stats.recordsRouted.lazySet(stats.recordsRouted.get() + 1);
            s.rowAppended(branch.index, batch);
            if (s.handOffsPending() > 0)
            {
                awaitHandOffs();
            }
        }
    }

    /**
     * The destination of a record's topic in a branch, resolved once per topic. When there is none (a missing table
     * without creation, a topic with too few segments for the template, a column the encoder cannot write), the record
     * is not a bad record: its partition stops at it (the offset fails, nothing is committed past it, the source
     * re-reads it with backoff) whatever {@code on_error} says, and the reason is logged once per topic; after
     * {@code checkpoint.stalled_fail_after_ms} the run ends naming it. The failed resolution is remembered for one
     * second, then tried again, so creating the table (or fixing the topic) lets the partition continue.
     */
    private Destination destinationFor(final Branch branch, final RecordEvent event)
    {
        final int topicId = event.topicId();
        if (topicId >= branch.byTopic.length)
        {
            final int n = Math.max(topicId + 1, branch.byTopic.length * 2);
            branch.byTopic = Arrays.copyOf(branch.byTopic, n);
            branch.errorByTopic = Arrays.copyOf(branch.errorByTopic, n);
            branch.errorUntilNanos = Arrays.copyOf(branch.errorUntilNanos, n);
        }
        final Destination cached = branch.byTopic[topicId];
        if (cached != null)
        {
            return cached;
        }
        String error = branch.errorByTopic[topicId];
        if (error != null && nowNanos - branch.errorUntilNanos[topicId] >= 0)
        {
            error = null; // try again: the table may exist by now
        }
        if (error == null)
        {
            long waitMs = 100;
            while (true)
            {
                final DestinationResolver.Result r = resolver.resolve(branch.index, branch.name, branch.encoder,
                    branch.sink,
                    topics.name(topicId));
                if (r.destination() != null)
                {
                    noteKeysAndHeaders(r.destination());
                    branch.byTopic[topicId] = r.destination();
                    if (branch.errorByTopic[topicId] != null)
                    {
                        LOG.info("{}: topic {} resolves now (branch {}): {}", pipeline, topics.name(topicId),
                            branch.name,
                            r.destination());
                        branch.errorByTopic[topicId] = null;
                    }
                    return r.destination();
                }
                if (!r.retriable() || control.stopRequested())
                {
                    error = r.error();
                    if (!error.equals(branch.errorByTopic[topicId]))
                    {
                        LOG.error("{}: records of topic {} have no destination in branch {}: {}; their partitions stop "
                            + "here until it is fixed (checkpoint.stalled_fail_after_ms)", pipeline,
                            topics.name(topicId),
                            branch.name, error);
                    }
                    branch.errorByTopic[topicId] = error;
                    branch.errorUntilNanos[topicId] = nowNanos + TimeUnit.SECONDS.toNanos(1);
                    break;
                }
                LOG.warn("{}: cannot resolve the destination of topic {} yet: {} (retrying in {} ms)", pipeline,
                    topics.name(topicId), r.error(), waitMs);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(waitMs));
                nowNanos = clock.nanoTime();
                waitMs = Math.min(waitMs * 2, 5000);
            }
        }
        trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1,
            where(event) + ": " + error);
        return null;
    }

    /**
     * Waits until the branch's pool has a buffer for (destination, shard), sealing its oldest open batch each time
     * it has none (the buffers come back once their batches are written).
     */
    private BatchBuffer awaitBatch(final int branch, final Destination dest, final int shard)
    {
        BatchBuffer batch;
        while ((batch = sealer.batchFor(branch, dest, shard)) == null)
        {
            awaitHandOffs();
            waitForWorker();
        }
        return batch;
    }

    /** Waits until every sealed batch has been taken by its insert worker's queue (back-pressure). */
    private void awaitHandOffs()
    {
        while (sealer.retryHandOffs() > 0)
        {
            waitForWorker();
        }
    }

    private void waitForWorker()
    {
        LockSupport.parkNanos(50_000);
        nowNanos = clock.nanoTime();
    }

    private String where(final RecordEvent event)
    {
        return "record " + topics.name(event.topicId()) + "-" + event.partition() + "@" + event.offset();
    }

    private void recordError(final RecordEvent event, final String what, final ErrorPolicy policy,
        final AtomicLong dropped, final DeadLetter.Why why)
    {
        if (policy == ErrorPolicy.DEAD_LETTER)
        {
            deadLetter(event, why);
            return;
        }
        recordError(event, what, policy, dropped);
    }

    private void recordError(final RecordEvent event, final String what, final ErrorPolicy policy,
        final AtomicLong dropped)
    {
        final AckTracker tracker = trackers.get(event.trackerId());
        if (policy == ErrorPolicy.SKIP)
        {
            dropped.lazySet(dropped.get() + 1);
            tracker.ack(event.offset(), event.trackerGeneration());
            if (errorsLogged++ < 10 || errorsLogged % 10_000 == 0)
            {
                LOG.warn("{}: skipped {}: {} (skipped so far: {})", pipeline, where(event), what, dropped.get());
            }
            return;
        }
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
        if (!event.hasKeyAndHeaders())
        {
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
        if (errorsLogged++ < 10 || errorsLogged % 10_000 == 0)
        {
            LOG.warn("{}: {} goes to the dead-letter topic ({}, stage {}): {}", pipeline, where(event),
                why.reason().label(), why.stage(), why.message());
        }
    }

    /** Remembers that a bound destination reads keys or headers, and asks the source for them once. */
    private void noteKeysAndHeaders(final Destination d)
    {
        if (!keysAndHeadersNeeded && d.encoder().readsKeyAndHeaders())
        {
            keysAndHeadersNeeded = true;
            LOG.info("{}: {} reads record keys or headers: the source copies them from now on", pipeline, d);
            keysAndHeadersRequest.run();
        }
    }

    /** A record for a destination that reads keys and headers, published before the source copied them. */
    private void rereadWithKeys(final RecordEvent event, final Destination d)
    {
        noteKeysAndHeaders(d);
        keysAndHeadersRequest.run();
        trackers.get(event.trackerId()).fail(event.offset(), event.trackerGeneration(), -1,
            where(event) + ": re-read with its key and headers (table " + d + " reads them)");
    }
}
