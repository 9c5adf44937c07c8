package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.deadletter.DeadLetter;
import io.sluice.core.deadletter.DeadLetterHeaders;
import io.sluice.core.deadletter.DeadLetterReason;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.sink.SinkException;
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
 * and hands it to the {@link SealedBatchQueue} of its shard's insert worker.
 *
 * <p>Back-pressure: when a worker's queue is full (the sealer keeps the batch, {@link Sealer#handOffsPending()}) or
 * the branch's pool has no buffer, the stage stops taking records from the ring, which holds the source (it pauses its
 * partitions and keeps polling, committing and checking stalls). On its own thread (the split layout) it waits for the
 * worker in short parks, until the batch is taken or the stage is {@linkplain #abandon() abandoned}. Run on the
 * source's thread ({@link #nonBlocking()}, the fused layout) it never waits: {@link #onEvent} throws
 * {@link #RETRY_LATER} for a record it cannot take yet (the event stays unconsumed, the caller offers it again after
 * {@link #retryHandOffs()}), and {@link #acceptsMore()} says when to stop taking events. Each wait is counted
 * ({@link PipelineStats#routeWaits}).
 *
 * <p>Dispatch is O(1): the handle carries the branch index; destinations are cached in arrays indexed by topic id.
 * Nothing here allocates per record in steady state.
 *
 * <p>Errors: a record that cannot be written (malformed JSON, a value that is not a JSON object, a key that occurs
 * twice under {@code duplicate_keys = "fail"}, a value that does not convert to its column type, a record above
 * {@code max_record_bytes}, a topic whose destination cannot be resolved, a classifier, shard router or encoder that
 * throws, a shard router that returns a shard out of range) follows the {@code on_error} policy, with the cause,
 * before any branch is chosen where the decoder finds it; a tombstone (a null Kafka value) is never a row and follows
 * {@code tombstones}; a record no branch takes follows the split's unmatched policy. {@code fail} marks the record
 * failed in its partition's tracker (so nothing is committed past it) and stops the pipeline naming topic, partition
 * and offset, and column, path and type where they apply; {@code skip} counts and acknowledges it;
 * {@code dead_letter} hands it to the pipeline's {@link GatherDeadLetters}, which acknowledges it once the broker has
 * its dead letter (one place: {@code recordError}). A record an insert worker marked (its batch was refused for its
 * data) is sent there too when the re-read brings it back, instead of being written again. A record whose partition
 * has already failed at an earlier offset is not written: the source reads it again (a topic whose destination
 * cannot be resolved, or an insert the server refused, fails its records that way).
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
    private static final String STAGE_PARSE = DeadLetterHeaders.STAGE_PARSE;

    /**
     * Thrown by {@link #onEvent} of a {@linkplain #nonBlocking() non-blocking} stage for an event it cannot take yet
     * (no batch buffer, a sealed batch waiting for its worker, a destination being resolved): nothing of the event
     * was consumed; offer it again later. Shared, without a stack trace (throwing it allocates nothing).
     */
    public static final RuntimeException RETRY_LATER = new RetryLater();

    /** See {@link #RETRY_LATER}. */
    private static final class RetryLater extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        RetryLater()
        {
            super("the route stage cannot take the event yet", null, false, false);
        }
    }

    /** One branch at run time. */
    private static final class Branch
    {
        final int index;
        final String name;
        final RowEncoder<?> encoder;
        final ShardRouter<Object> router;
        final DestinationResolver.SinkTarget sink;
        final int shards;
        /** Its destinations by topic id, and their resolution. */
        TopicDestinations destinations;

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
    private final OverflowPool overflow;
    private final PipelineStats stats;

    private final ErrorPolicy unmatched;
    private final ErrorPolicy onError;
    private final ErrorPolicy tombstones;
    private final RowEmitter emitter = new RowEmitter();
    private final TombstoneDeletes tombstoneDeletes;
    private final RecordFates fates;
    private final Sealer sealer;
    private final NanoClock clock;
    /** {@link #countWait()} for the branches' {@link TopicDestinations}, allocated once. */
    private final Runnable countWait = this::countWait;

    private long nowNanos;
    private volatile long lastFlushToken;
    private boolean blocking = true;
    private LongConsumer onFlushed = sequence ->
    {
    };
    private boolean waiting;
    private volatile boolean abandoned;

    /**
     * @param pipeline   pipeline name
     * @param decoder    record → view
     * @param split      the split
     * @param onError    record error policy
     * @param tombstones what a record with a null Kafka value does ({@code tombstones})
     * @param sinks      per branch, the sink it writes to
     * @param queues     per branch, the queues of its sink's insert workers, by shard then worker
     * @param pools      per branch, its batch pool
     * @param resolver   resolves destinations
     * @param trackers   the pipeline's ack trackers
     * @param topics     the pipeline's topic registry
     * @param overflow   where overflow buffers go back
     * @param control    the pipeline's run state
     * @param stats      the pipeline's counters
     * @param clock      the time source of linger, ring-hop latency and retries, nanoseconds
     */
    public RouteStage(final String pipeline, final RecordDecoder<T> decoder, final Split<T> split,
        final ErrorPolicy onError, final ErrorPolicy tombstones,
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
        this.overflow = overflow;
        this.stats = stats;
        this.unmatched = split.unmatched();
        this.onError = onError;
        this.tombstones = tombstones;
        this.fates = new RecordFates(pipeline, trackers, topics, control, new ErrorPolicy[]{unmatched, onError,
            tombstones}, new AtomicLong[]{stats.droppedUnrouted, stats.droppedInvalid, stats.droppedTombstone});
        if (tombstones == ErrorPolicy.DELETE)
        {
            // a tombstone names its row by its key alone
            fates.needKeysAndHeaders();
        }
        this.tombstoneDeletes = new TombstoneDeletes(branches.length, fates, emitter);
        for (int i = 0; i < branches.length; i++)
        {
            final Branch b = branches[i];
            tombstoneDeletes.branch(i, b.name, b.shards);
            b.destinations = new TopicDestinations(pipeline, b.index, b.name, b.encoder, b.sink, resolver, trackers,
                topics, fates, control, clock, countWait);
        }
    }

    /**
     * Resolves every branch whose sink's database and table are literals, before any record flows, so a missing
     * table or a column the encoder cannot write is reported at start (called before the stage runs). A retriable
     * failure (the server restarting, a statement timeout, a lock conflict) is tried again with backoff, 100 ms
     * doubling to 5 s, each attempt logged, until it resolves, fails otherwise or the pipeline is asked to stop.
     *
     * @return {@code null} when all resolved, else the first problem
     */
    public String resolveLiteralDestinations()
    {
        for (final Branch b : branches)
        {
            if (b.sink.isLiteral())
            {
                final String error = b.destinations.resolveLiteral();
                if (error != null)
                {
                    return error;
                }
            }
        }
        return null;
    }

    /**
     * Sets up new tables on {@code setup}'s threads instead of this stage's (before it runs): a record whose table is
     * not set up yet waits in its partition (see {@link DestinationSetup}) while the records of the tables already
     * bound go on. Without it (the default) a new table is set up on this thread before its first record is written,
     * and every record behind it waits.
     *
     * @param setup the pipeline's destination setup
     * @return this stage
     */
    public RouteStage<T> destinationSetup(final DestinationSetup setup)
    {
        for (final Branch b : branches)
        {
            b.destinations.setup(setup);
        }
        return this;
    }

    /**
     * Gives the stage its dead-letter stage (before it runs; required when a policy is {@code dead_letter}).
     *
     * @param d the pipeline's dead letters
     * @return this stage
     */
    public RouteStage<T> deadLetters(final GatherDeadLetters d)
    {
        fates.deadLetters(d);
        return this;
    }

    /**
     * Makes this stage never wait (the fused layout, where it runs on the source's thread, which must keep polling):
     * see the class comment. Call before the stage runs.
     *
     * @return this stage
     */
    public RouteStage<T> nonBlocking()
    {
        blocking = false;
        for (final Branch b : branches)
        {
            b.destinations.nonBlocking();
        }
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
        fates.keysAndHeadersRequest(request);
        return this;
    }

    /** @return whether a destination bound so far reads records' keys or headers */
    public boolean keysAndHeadersNeeded()
    {
        return fates.keysAndHeadersNeeded();
    }

    /**
     * Offers the sealed batches that wait for their worker's queue again, in seal order (the stage's thread).
     *
     * @return sealed batches still waiting; while above 0 the stage takes no more events
     */
    public int retryHandOffs()
    {
        if (abandoned)
        {
            sealer.abandonHandOffs();
            return 0;
        }
        final int pending = sealer.retryHandOffs();
        if (pending > 0)
        {
            countWait();
        }
        else
        {
            waiting = false;
        }
        return pending;
    }

    /** @return whether the stage may take another event now: no sealed batch waits for its worker */
    public boolean acceptsMore()
    {
        return sealer.handOffsPending() == 0;
    }

    /**
     * Ends every wait for an insert worker (the stop after {@code checkpoint.drain_timeout_ms}): sealed batches that
     * still wait are released with their rows unacknowledged, so their records are read again by a later run; records
     * not routed yet stay unacknowledged too. Any thread.
     */
    public void abandon()
    {
        abandoned = true;
    }

    /**
     * Called on the stage's thread each time a flush control event completes: every batch open before it has been
     * sealed and handed to its worker's queue. Call before the stage runs.
     *
     * @param listener what to do then, given the flush event's ring sequence (for example note how many batches each
     *                 worker has been offered)
     * @return this stage
     */
    public RouteStage<T> onFlushed(final LongConsumer listener)
    {
        this.onFlushed = listener;
        return this;
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
                if ((event.offset() & 7) == 0 && !waiting)
                {
                    // one record in eight: the histogram stays representative and costs an eighth
                    stats.ringHopNanos.record(nowNanos - event.publishNanos());
                }
                boolean retry = false;
                try
                {
                    route(event);
                }
                catch (final RetryLater r)
                {
                    // the event is offered again: it keeps its overflow buffer
                    retry = true;
                    throw r;
                }
                finally
                {
                    if (!retry)
                    {
                        overflow.release(event.takeOverflow());
                    }
                }
                waiting = false;
                break;
            case RecordEvent.KIND_FLUSH :
                sealer.flush();
                if (!awaitHandOffs())
                {
                    throw RETRY_LATER;
                }
                onFlushed.accept(sequence);
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
        if (blocking)
        {
            awaitHandOffs();
        }
    }

    private void route(final RecordEvent event)
    {
        if (Failpoints.ENABLED)
        {
            Failpoints.check(Failpoints.GATHER_ROUTE, event.offset());
        }
        if (fates.heldForReread(event) || fates.redrive(event))
        {
            return;
        }
        if (event.tooLargeBytes() > 0)
        {
            fates.notARow(event, RecordFates.INVALID,
                "record of " + event.tooLargeBytes() + " bytes exceeds engine.max_record_bytes", STAGE_PARSE);
            return;
        }
        if (event.valueLength() < 0 && tombstones == ErrorPolicy.DELETE)
        {
            tombstoneDeletes.delete(event);
            return;
        }
        if (event.valueLength() < 0)
        {
            final String what = "record value is null (a tombstone): it is no row (tombstones = "
                + tombstones.configName() + ")";
            fates.notARow(event, RecordFates.TOMBSTONE, what, STAGE_PARSE);
            return;
        }
        final T view = decoder.decode(event);
        if (view == null)
        {
            fates.notARow(event, RecordFates.INVALID, decoder.error(), STAGE_PARSE);
            return;
        }
        final RowEmitter e = emitter;
        e.begin(event);
        try
        {
            classifier.route(view, e);
        }
        catch (final RetryLater r)
        {
            throw r;
        }
        catch (final RuntimeException ex)
        {
            if (!e.settled)
            {
                e.settled = true;
                final String what = "the classifier failed: " + ex;
                fates.notARow(event, RecordFates.INVALID, what, new DeadLetter.Why(DeadLetterReason.INVALID,
                    DeadLetterHeaders.STAGE_CLASSIFY, what, ex.getClass().getName(), null, null, null, null, 0));
            }
            else if (fates.logNow())
            {
                // the record itself was settled (written or failed) before the classifier threw
                LOG.error("{}: the classifier failed on {} after it emitted the record", pipeline, fates.where(event),
                    ex);
            }
            return;
        }
        if (e.retryPending)
        {
            throw RETRY_LATER;
        }
        if (!e.settled)
        {
            final String what = "no branch matches the record (unmatched = " + unmatched.configName() + ")";
            fates.notARow(event, RecordFates.UNROUTED, what, DeadLetterHeaders.STAGE_CLASSIFY);
        }
    }

    /** The emitter handed to the classifier; one per stage, reset per record. */
    private final class RowEmitter implements Emitter, TombstoneDeletes.Route
    {
        RecordEvent event;
        boolean settled;
        /** {@link #RETRY_LATER} was thrown for this record (a classifier that swallows it cannot lose the record). */
        boolean retryPending;

        void begin(final RecordEvent e)
        {
            event = e;
            settled = false;
            retryPending = false;
        }

        @Override
        public Destination destination(final int branch, final RecordEvent ev)
        {
            return RouteStage.this.destinationOrError(branches[branch], ev);
        }

        @Override
        public void appendDelete(final RecordEvent ev, final int branch, final Destination dest)
        {
            begin(ev);
            settled = true;
            // a delete is checked against an exactly-once table's position as a row is: a table that holds the
            // tombstone already (its row deleted, maybe inserted again by a later record) takes no delete of it
            if (dest.positions() != null && !fates.positioned(ev, dest, stats.heldByTable))
            {
                return;
            }
            append(ev, branches[branch], dest, 0, null, true);
        }

        @Override
        public void invalid(final String why)
        {
            if (!settled)
            {
                settled = true;
                fates.notARow(event, RecordFates.INVALID, why, STAGE_PARSE);
            }
        }

        @Override
        public <R> void emit(final BranchHandle<R> handle, final R row)
        {
            final RecordEvent ev = event;
            if (settled)
            {
                LOG.error("{}: {} emitted to a second branch ({}); a record goes to exactly one branch", pipeline,
                    fates.where(ev), handle);
                return;
            }
            settled = true;
            final Branch branch = branches[handle.index()];
            final Destination dest;
            try
            {
                dest = destinationOrError(branch, ev);
            }
            catch (final RetryLater r)
            {
                retryPending = true;
                throw r;
            }
            // an exactly-once table that holds the record already takes no row of it (RecordFates.positioned)
            if (dest == null || dest.positions() != null && !fates.positioned(ev, dest, stats.heldByTable))
            {
                return;
            }
            if (dest.encoder().readsKeyAndHeaders() && !ev.hasKeyAndHeaders())
            {
                fates.rereadWithKeys(ev, dest);
                return;
            }
            final int shard = shardOf(ev, branch, row);
            if (shard < 0)
            {
                return;
            }
            append(ev, branch, dest, shard, row, false);
        }

        /**
         * Encodes the record into the open batch of (destination, shard) and adds it to the batch: a row of
         * {@code row}, or with {@code delete} the delete of the row the record's key names.
         */
        <R> void append(final RecordEvent ev, final Branch branch, final Destination dest, final int shard,
            final R row, final boolean delete)
        {
            final Sealer s = sealer;
            BatchBuffer batch = s.batchFor(branch.index, dest, shard);
            if (batch == null)
            {
                retryPending = !blocking;
                batch = awaitBatch(branch.index, dest, shard);
                retryPending = false;
                if (batch == null)
                {
                    // abandoned (stop after the drain timeout): the record stays unacknowledged
                    return;
                }
            }
            final Bytes<Void> rows = batch.rows();
            final long start = rows.writePosition();
            @SuppressWarnings("unchecked")
            // the encoder the batch was opened with: its rows are inserted with that binding's types
            final RowEncoder.Bound<R> encoder = (RowEncoder.Bound<R>)batch.binding().encoder();
            final String error;
            try
            {
                error = delete ? encoder.encodeDelete(ev.key(), ev.keyLength(), rows) : encoder.encode(row, rows);
            }
            catch (final RuntimeException ex)
            {
                // a half-written row must never reach the table: the batch ends where the row began
                rows.writePosition(start);
                s.discardIfEmpty(batch);
                final String what = "the encoder failed: " + ex + " (table " + dest + ")";
                fates.recordError(ev, what, onError, stats.droppedInvalid,
                    RecordFates.thrown(DeadLetterHeaders.STAGE_CONVERT, what, ex, branch.name, dest.toString()));
                return;
            }
            catch (final Error ex)
            {
                rows.writePosition(start);
                s.discardIfEmpty(batch);
                throw ex;
            }
            if (error != null)
            {
                rows.writePosition(start);
                final String why = delete ? "tombstone (tombstones = delete): " + error : error;
                fates.notARow(ev, RecordFates.INVALID, why + " (table " + dest + ")",
                    GatherDeadLetters.conversion(branch.name, dest, why));
                s.discardIfEmpty(batch);
                return;
            }
            batch.addRow(ev.trackerId(), ev.trackerGeneration(), ev.offset(), ev.timestampMs());
            if (delete)
            {
                batch.markLastRowDelete();
            }
            stats.recordsRouted.lazySet(stats.recordsRouted.get() + 1);
            s.rowAppended(branch.index, batch);
            if (blocking && s.handOffsPending() > 0)
            {
                awaitHandOffs();
            }
        }
    }

    /**
     * The shard of a row by its branch's router, or -1 when the router threw or answered out of range (the record's
     * error policy then decided its fate).
     */
    private int shardOf(final RecordEvent ev, final Branch branch, final Object row)
    {
        final int shard;
        try
        {
            shard = branch.shards == 1 ? 0 : branch.router.shard(row, branch.shards);
        }
        catch (final RuntimeException ex)
        {
            final String what = "branch " + branch.name + ": the shard router failed: " + ex;
            fates.recordError(ev, what, onError, stats.droppedInvalid,
                RecordFates.thrown(DeadLetterHeaders.STAGE_ROUTE, what, ex, branch.name, null));
            return -1;
        }
        if (shard < 0 || shard >= branch.shards)
        {
            final String what = "branch " + branch.name + ": the shard router returned shard " + shard + ", not in [0, "
                + branch.shards + ")";
            fates.recordError(ev, what, onError, stats.droppedInvalid,
                RecordFates.thrown(DeadLetterHeaders.STAGE_ROUTE, what, null, branch.name, null));
            return -1;
        }
        return shard;
    }

    /**
     * {@link #destinationFor}, a resolver that throws being the record's error under {@code on_error}.
     *
     * @return the destination, or null when the record's fate is settled (its partition stops, or the error)
     */
    private Destination destinationOrError(final Branch branch, final RecordEvent event)
    {
        try
        {
            return destinationFor(branch, event);
        }
        catch (final RetryLater r)
        {
            throw r;
        }
        catch (final RuntimeException ex)
        {
            final String what = "branch " + branch.name + ": resolving its destination failed: " + ex;
            fates.recordError(event, what, onError, stats.droppedInvalid,
                RecordFates.thrown(DeadLetterHeaders.STAGE_ROUTE, what, ex, branch.name, null));
            return null;
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
        final TopicDestinations d = branch.destinations;
        final Destination cached = d.cached(event.topicId());
        if (cached != null)
        {
            if (cached.refreshRequested() == null || refreshed(branch, cached))
            {
                return cached;
            }
        }
        try
        {
            return d.resolve(event, nowNanos);
        }
        finally
        {
            nowNanos = d.nowNanos(); // a blocking stage may have waited
        }
    }

    /**
     * Describes a destination's table again and rebinds it, because an insert worker or the schema watch noticed a
     * change (off the hot path: once per change). Open batches are sealed first, so that no batch mixes rows of two
     * bindings. When the branch cannot write the changed table (a mapped column dropped, a type it cannot write),
     * the destination is forgotten: the record's partition stops at it, naming the reason, as for a missing table.
     *
     * @return true when the destination can be used (rebound, or kept because the table cannot be described now)
     */
    private boolean refreshed(final Branch branch, final Destination dest)
    {
        final String why = dest.refreshRequested();
        LOG.info("{}: destination {} (branch {}) is described again: {}", pipeline, dest, branch.name, why);
        sealer.flush();
        awaitHandOffs();
        try
        {
            if (resolver.refresh(dest, branch.encoder, branch.sink) == null)
            {
                dest.clearRefresh();
            }
            return true;
        }
        catch (final SinkException | IllegalArgumentException e)
        {
            LOG.error("{}: destination {} (branch {}) changed and cannot be written any more: {}", pipeline, dest,
                branch.name, e.getMessage());
            dest.clearRefresh();
            dest.unwritable(e.getMessage());
            branch.destinations.forget(dest);
            return false;
        }
    }

    /**
     * Waits until the branch's pool has a buffer for (destination, shard), sealing its oldest open batch each time
     * it has none (the buffers come back once their batches are written). A non-blocking stage does not wait: it
     * throws {@link #RETRY_LATER}.
     *
     * @return the batch, or null when the stage was abandoned
     */
    private BatchBuffer awaitBatch(final int branch, final Destination dest, final int shard)
    {
        BatchBuffer batch;
        while ((batch = sealer.batchFor(branch, dest, shard)) == null)
        {
            countWait();
            if (!blocking)
            {
                sealer.retryHandOffs();
                throw RETRY_LATER;
            }
            if (!awaitHandOffs() || abandoned)
            {
                return null;
            }
            waitForWorker();
        }
        return batch;
    }

    /**
     * Waits until every sealed batch has been taken by its insert worker's queue (back-pressure), or the stage is
     * abandoned (the kept batches are released unacknowledged). A non-blocking stage offers them once.
     *
     * @return true when no sealed batch waits any more
     */
    private boolean awaitHandOffs()
    {
        if (!blocking)
        {
            return retryHandOffs() == 0;
        }
        while (retryHandOffs() > 0)
        {
            waitForWorker();
        }
        return true;
    }

    private void countWait()
    {
        if (!waiting)
        {
            waiting = true;
            stats.routeWaits.lazySet(stats.routeWaits.get() + 1);
        }
    }

    private void waitForWorker()
    {
        LockSupport.parkNanos(50_000);
        nowNanos = clock.nanoTime();
    }
}
