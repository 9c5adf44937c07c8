package io.sluice.core.route;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.EventHandler;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonError;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.core.ack.AckTracker;
import io.sluice.core.batch.BatchBuffer;
import io.sluice.core.batch.BatchPool;
import io.sluice.core.batch.BoundColumn;
import io.sluice.core.batch.Destination;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.pipeline.ErrorPolicy;
import io.sluice.core.runtime.InsertWorker;
import io.sluice.core.runtime.PartitionTrackers;
import io.sluice.core.runtime.PipelineControl;
import io.sluice.core.runtime.PipelineStats;
import io.sluice.core.runtime.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The route stage of a gather pipeline (one Disruptor event handler on the ingest ring): per record, one pass of
 * JSON path extraction, the classifier picks a branch (or the unmatched policy applies), the branch's destination is
 * looked up by topic (resolved once per topic), the row is encoded as RowBinary straight into the open batch of
 * (destination, shard), and the sealer hands a batch to its shard's insert worker on {@code max_rows},
 * {@code max_bytes} or {@code linger_ms}.
 *
 * <p>Nothing here allocates per record in steady state: the scanner, views and scratch are reused, destinations are
 * cached in arrays indexed by topic id, and batch buffers come from pools.
 *
 * <p>Errors: a record that cannot be written (malformed JSON, a null value, a value that does not convert to its
 * column type, a record above {@code max_record_bytes}, a topic whose destination cannot be resolved) follows the
 * sink's {@code on_error} policy; a record no branch matches follows {@code unmatched}. {@code fail} marks the
 * record failed in its partition's tracker (so nothing is committed past it) and stops the pipeline naming topic,
 * partition, offset, and the path, column and type where applicable; {@code skip} counts and acknowledges it.
 *
 * <p>Thread-safety: runs on its own thread (or fused with another stage); not thread-safe.
 */
public final class RouteStage implements EventHandler<RecordEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(RouteStage.class);
    private static final int MAX_DEPTH = 128;

    /** One branch at run time. */
    private static final class Branch {
        final int index;
        final SluiceConfig.Branch config;
        final int maxRows;
        final long maxBytes;
        final long lingerNanos;
        final BatchPool pool;
        final InsertWorker[] shards;
        Destination[] byTopic = new Destination[16];
        String[] errorByTopic = new String[16];
        int roundRobin;

        Branch(final int index, final SluiceConfig.Branch config, final BatchPool pool, final InsertWorker[] shards) {
            this.index = index;
            this.config = config;
            this.maxRows = config.maxRows();
            this.maxBytes = config.maxBytes();
            this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(config.lingerMs());
            this.pool = pool;
            this.shards = shards;
        }
    }

    private final String sinkName;
    private final Branch[] branches;
    private final Classifier classifier;
    private final PathRegistry paths;
    private final DestinationResolver resolver;
    private final PartitionTrackers trackers;
    private final TopicRegistry topics;
    private final OverflowPool overflow;
    private final PipelineControl control;
    private final PipelineStats stats;
    private final ErrorPolicy unmatched;
    private final ErrorPolicy onError;
    private final JsonValueView view = new JsonValueView();
    private final EncodeScratch scratch;

    private BatchBuffer[][] open = new BatchBuffer[16][];
    private long nextDeadlineNanos = Long.MAX_VALUE;
    private long nowNanos;
    private volatile long lastFlushToken;
    private long errorsLogged;

    /**
     * @param sink      the sink's configuration
     * @param resolver  resolves destinations (owns the catalog)
     * @param paths     the path registry the resolver and classifier share
     * @param pools     one batch pool per branch
     * @param shards    the insert workers, one per shard
     * @param trackers  the pipeline's ack trackers
     * @param topics    the pipeline's topic registry
     * @param overflow  where overflow buffers go back
     * @param control   the pipeline's run state
     * @param stats     the pipeline's counters
     */
    public RouteStage(final SluiceConfig.Sink sink, final DestinationResolver resolver, final PathRegistry paths,
        final List<BatchPool> pools, final InsertWorker[] shards, final PartitionTrackers trackers, final TopicRegistry topics,
        final OverflowPool overflow, final PipelineControl control, final PipelineStats stats) {
        this.sinkName = sink.name();
        this.paths = paths;
        this.resolver = resolver;
        this.classifier = new Classifier(sink.branches(), paths);
        this.branches = new Branch[sink.branches().size()];
        for (int i = 0; i < branches.length; i++) {
            branches[i] = new Branch(i, sink.branches().get(i), pools.get(i), shards);
        }
        this.trackers = trackers;
        this.topics = topics;
        this.overflow = overflow;
        this.control = control;
        this.stats = stats;
        this.unmatched = sink.unmatched();
        this.onError = sink.onError();
        this.scratch = new EncodeScratch(1 << 20);
    }

    /**
     * Resolves every branch whose database and table are literals, before any record flows, so a missing table or a
     * column Sluice cannot write is reported at start (called on the starting thread before the stage runs).
     *
     * @return {@code null} when all resolved, else the first problem
     */
    public String resolveLiteralDestinations() {
        for (final Branch b : branches) {
            if (resolver.isLiteral(b.index)) {
                final DestinationResolver.Result r = resolver.resolve(b.index, b.config, "");
                if (r.destination() == null) {
                    return r.error();
                }
            }
        }
        paths.scanner();
        return null;
    }

    /** @return the token of the last flush control event this stage completed */
    public long lastFlushToken() {
        return lastFlushToken;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth) {
        nowNanos = System.nanoTime();
    }

    @Override
    public void onEvent(final RecordEvent event, final long sequence, final boolean endOfBatch) {
        switch (event.kind()) {
            case RecordEvent.KIND_RECORD:
                stats.ringHopNanos.recordValue(Math.max(0, nowNanos - event.publishNanos()));
                try {
                    route(event);
                } finally {
                    overflow.release(event.takeOverflow());
                }
                break;
            case RecordEvent.KIND_FLUSH:
                sealAll(stats.sealedByFlush);
                lastFlushToken = event.controlToken();
                break;
            default:
                break;
        }
        if (endOfBatch && nowNanos - nextDeadlineNanos >= 0) {
            sealExpired(System.nanoTime());
        }
    }

    @Override
    public void onTimeout(final long sequence) {
        final long now = System.nanoTime();
        nowNanos = now;
        if (now - nextDeadlineNanos >= 0) {
            sealExpired(now);
        }
    }

    private void route(final RecordEvent event) {
        if (event.tooLargeBytes() > 0) {
            recordError(event, "record of " + event.tooLargeBytes() + " bytes exceeds engine.max_record_bytes", onError,
                stats.droppedInvalid);
            return;
        }
        if (event.valueLength() < 0) {
            recordError(event, "record value is null (a tombstone); there is nothing to write", onError, stats.droppedInvalid);
            return;
        }
        final JsonScanner scanner = paths.scanner();
        final int rc = scanner.scan(event.value(), 0, event.valueLength());
        if (rc != JsonError.NONE) {
            recordError(event, "malformed JSON: " + JsonError.describe(rc) + " at byte " + scanner.errorOffset(), onError,
                stats.droppedInvalid);
            return;
        }
        final int b = classifier.classify(scanner);
        if (b == Classifier.UNMATCHED) {
            recordError(event, "no branch matches the record (unmatched = " + unmatched.name().toLowerCase(java.util.Locale.ROOT)
                + ")", unmatched, stats.droppedUnrouted);
            return;
        }
        final Branch branch = branches[b];
        final Destination dest = destinationFor(branch, event);
        if (dest == null) {
            return;
        }
        final int shard = branch.shards.length == 1 ? 0 : (branch.roundRobin++ & Integer.MAX_VALUE) % branch.shards.length;
        final BatchBuffer batch = openBatch(branch, dest, shard);
        final Bytes<Void> rows = batch.rows();
        final long start = rows.writePosition();
        final JsonScanner s = paths.scanner();
        final int n = dest.columnCount();
        for (int i = 0; i < n; i++) {
            final BoundColumn c = dest.column(i);
            s.value(c.pathIndex(), view);
            final int code = c.encoder().encode(view, rows, scratch);
            if (code != ConversionError.NONE) {
                if (code == ConversionError.MISSING_NOT_ALLOWED && c.defaultValue() != null) {
                    rows.write(c.defaultValue());
                    continue;
                }
                rows.writePosition(start);
                recordError(event, "column " + c.name() + " (" + c.type() + ") of " + dest + " from path " + c.path()
                    + ": " + ConversionError.describe(code), onError, stats.droppedInvalid);
                if (batch.rowCount() == 0) {
                    closeEmpty(batch);
                }
                return;
            }
        }
        batch.addRow(event.trackerId(), event.trackerGeneration(), event.offset(), event.timestampMs());
        stats.recordsRouted.lazySet(stats.recordsRouted.get() + 1);
        if (batch.rowCount() >= branch.maxRows) {
            seal(batch, stats.sealedByRows);
        } else if (rows.writePosition() >= branch.maxBytes) {
            seal(batch, stats.sealedByBytes);
        }
    }

    private Destination destinationFor(final Branch branch, final RecordEvent event) {
        final int topicId = event.topicId();
        if (topicId >= branch.byTopic.length) {
            final int n = Math.max(topicId + 1, branch.byTopic.length * 2);
            branch.byTopic = Arrays.copyOf(branch.byTopic, n);
            branch.errorByTopic = Arrays.copyOf(branch.errorByTopic, n);
        }
        final Destination cached = branch.byTopic[topicId];
        if (cached != null) {
            return cached;
        }
        String error = branch.errorByTopic[topicId];
        if (error == null) {
            long wait = 100;
            while (true) {
                final DestinationResolver.Result r = resolver.resolve(branch.index, branch.config, topics.name(topicId));
                if (r.destination() != null) {
                    branch.byTopic[topicId] = r.destination();
                    ensureOpenSlots(r.destination().id());
                    return r.destination();
                }
                if (!r.retriable() || control.stopRequested()) {
                    error = r.error();
                    if (!r.retriable()) {
                        branch.errorByTopic[topicId] = error;
                    }
                    break;
                }
                LOG.warn("{}: cannot resolve the destination of topic {} yet: {} (retrying in {} ms)", sinkName,
                    topics.name(topicId), r.error(), wait);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(wait));
                wait = Math.min(wait * 2, 5000);
            }
        }
        recordError(event, error, onError, stats.droppedInvalid);
        return null;
    }

    private void ensureOpenSlots(final int destinationId) {
        if (destinationId >= open.length) {
            open = Arrays.copyOf(open, Math.max(destinationId + 1, open.length * 2));
        }
    }

    private BatchBuffer openBatch(final Branch branch, final Destination dest, final int shard) {
        BatchBuffer[] perShard = open[dest.id()];
        if (perShard == null) {
            perShard = new BatchBuffer[branch.shards.length];
            open[dest.id()] = perShard;
        }
        BatchBuffer batch = perShard[shard];
        if (batch != null) {
            return batch;
        }
        while ((batch = branch.pool.tryAcquire()) == null) {
            // every buffer of this branch is open, queued or being inserted: seal the oldest open one (it will come
            // back once written), then wait for a worker to give a buffer back
            sealOldestOpen(branch);
            LockSupport.parkNanos(50_000);
            nowNanos = System.nanoTime();
        }
        batch.open(dest, shard, nowNanos);
        perShard[shard] = batch;
        final long deadline = nowNanos + branch.lingerNanos;
        if (deadline - nextDeadlineNanos < 0) {
            nextDeadlineNanos = deadline;
        }
        return batch;
    }

    private void waitForWorker() {
        LockSupport.parkNanos(50_000);
        nowNanos = System.nanoTime();
    }

    private void sealOldestOpen(final Branch branch) {
        BatchBuffer oldest = null;
        for (final BatchBuffer[] perShard : open) {
            if (perShard == null) {
                continue;
            }
            for (final BatchBuffer b : perShard) {
                if (b != null && b.destination().branch() == branch.index && b.rowCount() > 0
                    && (oldest == null || b.openedNanos() - oldest.openedNanos() < 0)) {
                    oldest = b;
                }
            }
        }
        if (oldest != null) {
            seal(oldest, stats.sealedByPool);
        }
    }

    private void closeEmpty(final BatchBuffer batch) {
        open[batch.destination().id()][batch.shard()] = null;
        batch.release();
    }

    private void seal(final BatchBuffer batch, final java.util.concurrent.atomic.AtomicLong reason) {
        open[batch.destination().id()][batch.shard()] = null;
        if (batch.rowCount() == 0) {
            batch.release();
            return;
        }
        final InsertWorker worker = branches[batch.destination().branch()].shards[batch.shard()];
        batch.sealedNanos(System.nanoTime());
        while (!worker.offer(batch)) {
            if (worker.finished()) {
                // the worker stopped (shutdown abandoned it): the rows stay unacknowledged and are re-read later
                batch.release();
                return;
            }
            waitForWorker();
        }
        reason.lazySet(reason.get() + 1);
    }

    private void sealAll(final java.util.concurrent.atomic.AtomicLong reason) {
        for (final BatchBuffer[] perShard : open) {
            if (perShard == null) {
                continue;
            }
            for (final BatchBuffer b : perShard) {
                if (b != null) {
                    seal(b, reason);
                }
            }
        }
        nextDeadlineNanos = Long.MAX_VALUE;
    }

    private void sealExpired(final long now) {
        long next = Long.MAX_VALUE;
        for (final BatchBuffer[] perShard : open) {
            if (perShard == null) {
                continue;
            }
            for (final BatchBuffer b : perShard) {
                if (b == null) {
                    continue;
                }
                final long deadline = b.openedNanos() + branches[b.destination().branch()].lingerNanos;
                if (now - deadline >= 0) {
                    seal(b, stats.sealedByLinger);
                } else if (deadline - next < 0) {
                    next = deadline;
                }
            }
        }
        nextDeadlineNanos = next;
    }

    private void recordError(final RecordEvent event, final String what, final ErrorPolicy policy,
        final java.util.concurrent.atomic.AtomicLong dropped) {
        final AckTracker tracker = trackers.get(event.trackerId());
        final String where = "record " + topics.name(event.topicId()) + "-" + event.partition() + "@" + event.offset();
        if (policy == ErrorPolicy.SKIP) {
            dropped.lazySet(dropped.get() + 1);
            tracker.ack(event.offset(), event.trackerGeneration());
            if (errorsLogged++ < 100 || errorsLogged % 10_000 == 0) {
                LOG.warn("{}: skipped {}: {} (skipped so far: {})", sinkName, where, what, dropped.get());
            }
            return;
        }
        final String reason = where + ": " + what;
        tracker.fail(event.offset(), event.trackerGeneration(), -1, reason);
        if (!control.failed()) {
            LOG.error("{}: {}; stopping (nothing is committed past offset {})", sinkName, reason, event.offset());
        }
        control.fail(reason);
    }

    /** @return a one-line description of the open batches, for status and stall messages */
    public String describeOpenBatches() {
        int count = 0;
        long rows = 0;
        for (final BatchBuffer[] perShard : open) {
            if (perShard != null) {
                for (final BatchBuffer b : perShard) {
                    if (b != null) {
                        count++;
                        rows += b.rowCount();
                    }
                }
            }
        }
        return count + " open batches (" + rows + " rows)";
    }
}
