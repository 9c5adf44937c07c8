package io.sluice.core.gather;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.StageAgents;
import io.sluice.core.stage.TableStats;

/**
 * The insert worker of one shard: takes sealed batches from its queue in order, inserts each through its
 * {@link BatchWriter}, and acknowledges the batch's offsets only once the insert returned (durably written).
 *
 * <p>Failures: a retriable {@link SinkException} is retried with exponential backoff ({@code retry_backoff_ms} up
 * to {@code retry_backoff_max_ms}) behind the shard's {@link CircuitBreaker}, for as long as the pipeline runs: the
 * offsets stay unacknowledged, so their partitions' watermarks stall (and {@code checkpoint.stalled_fail_after_ms}
 * ends the run if it lasts). A non-retriable failure fails the batch's offsets in their trackers (worst-status
 * merge) with the reason, naming the table; nothing is committed past them. Any other exception from the writer is
 * unexpected: the batch's offsets are failed the same way and the exception goes to the agent's error handler,
 * which fails the pipeline at once.
 *
 * <p>A batch refused for its data ({@link SinkException#recordCaused()}) by a writer that can insert part of a batch
 * ({@link BatchWriter#writesPartOfBatch()}), once {@link #refusedRecords} configured the policy, is split
 * ({@link BatchSplit}): its parts are inserted until each refused part is one record, every part that goes in is
 * acknowledged, and each refused record follows {@code on_error}: {@code skip} acknowledges and counts it,
 * {@code dead_letter} marks it for the dead-letter topic (with the destination's code and message) and fails its
 * offset so the partition is read again and the record sent there (the split still writes the rest of the batch, and
 * marks the rows of that partition it writes after the record so the re-read acknowledges them instead of writing
 * them twice: one pass finds every refused record), {@code fail} stops the pipeline naming the record
 * (the parts not tried yet fail: nothing is committed past them). During a split, a retriable failure retries the
 * part; a refusal that is not the data's (a changed table, a denied right) fails the rows not written yet as it would
 * have failed the batch.
 *
 * <p>An Agrona {@link Agent}: each {@link #doWork()} takes the next batch or makes one insert attempt, and returns 0
 * while there is nothing to do or a retry's backoff (or the open breaker) has not passed, so the runner's idle
 * strategy (the sink stage's {@code WaitKind}, {@link #idleStrategy()}) does all the waiting. {@link #stop()} ends it
 * once the queue is empty; {@link #abandon()} ends it at the next duty cycle, leaving what is queued unacknowledged.
 *
 * <p>Threads: one thread runs the agent; the route stage offers batches through {@link #offer(BatchBuffer)}; the
 * getters from any thread.
 */
public final class InsertWorker implements Agent, SealedBatchQueue
{
    private static final Logger LOG = LoggerFactory.getLogger(InsertWorker.class);

    private final String name;
    private final OneToOneConcurrentArrayQueue<BatchBuffer> queue;
    private final BatchWriter writer;
    private final PartitionTrackers trackers;
    private final PipelineStats stats;
    private final CircuitBreaker breaker;
    private final IdleStrategy idle;
    private final long backoffNanos;
    private final long backoffMaxNanos;
    private volatile boolean stopping;
    private volatile boolean abandon;
    private volatile boolean finished;
    private volatile String lastError;
    private volatile long inFlightSinceNanos;
    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();

    /** The batch being inserted (agent thread only); null when idle. */
    private BatchBuffer current;
    private int attempt;
    private long backoffWaitNanos;
    private long retryAtNanos;
    /** The batch of the last unexpected failure, for the error handler that runs after it (agent thread only). */
    private String failedWork;
    /** Set when {@code on_error = "dead_letter"}: a batch refused for its data is marked for the dead-letter topic. */
    private GatherDeadLetters deadLetters;
    /** What becomes of a record the destination refused on its own ({@link #refusedRecords}). */
    private ErrorPolicy onError = ErrorPolicy.FAIL;
    /** The pipeline's run state; null until {@link #refusedRecords}, and then refused batches are not split. */
    private PipelineControl control;
    private final BatchSplit split = new BatchSplit();
    /** For a writer that stores positions (exactly-once): what each write moves; null otherwise. */
    private SourcePositions positions;
    private long refusedLogged;
    /**
     * Per destination, the non-retriable failure last logged at ERROR (a table's definition that cannot work until a
     * person changes it, e.g. upsert into a table without a key): each re-read of the partition meets it again, batch
     * after batch, so it is logged once per streak, until a batch into that table is written or the failure differs.
     * Worker thread only.
     */
    private final Map<Object, String> unwritableLogged = new HashMap<>();

    /**
     * @param name          thread/log name, e.g. {@code github/shard-0}
     * @param queueDepth    sealed batches that may wait
     * @param writer        the shard's writer (owned by this worker from now on)
     * @param trackers      the pipeline's ack trackers
     * @param stats         the pipeline's counters
     * @param breaker       the shard's breaker
     * @param idle          how to wait for work and between retries (the agent's idle strategy)
     * @param backoffMs     first retry wait, ms
     * @param backoffMaxMs  longest retry wait, ms
     */
    public InsertWorker(final String name, final int queueDepth, final BatchWriter writer,
        final PartitionTrackers trackers,
        final PipelineStats stats, final CircuitBreaker breaker, final IdleStrategy idle, final long backoffMs,
        final long backoffMaxMs)
    {
        this.name = name;
        this.queue = new OneToOneConcurrentArrayQueue<>(Math.max(2, queueDepth));
        this.writer = writer;
        this.trackers = trackers;
        this.stats = stats;
        this.breaker = breaker;
        this.idle = idle;
        this.backoffNanos = TimeUnit.MILLISECONDS.toNanos(backoffMs);
        this.backoffMaxNanos = TimeUnit.MILLISECONDS.toNanos(backoffMaxMs);
    }

    /**
     * Hands a sealed batch to this worker (route stage; never waits).
     *
     * @return {@link #OFFERED}; {@link #FULL} when the queue is full (back-pressure: the caller retries later);
     *         {@link #CLOSED} when the queue is full and the worker has stopped
     */
    @Override
    public int offer(final BatchBuffer batch)
    {
        if (queue.offer(batch))
        {
            offered.lazySet(offered.get() + 1);
            return OFFERED;
        }
        return finished ? CLOSED : FULL;
    }

    /**
     * @return true when every batch offered so far has been written, failed or abandoned, or the worker has ended (its
     *         queued batches can no longer complete: a worker whose thread failed, or one stopped after abandoning)
     */
    public boolean idle()
    {
        return completed.get() == offered.get() || finished;
    }

    /** @return batches offered so far (exact on the route stage's thread, which offers them) */
    public long offered()
    {
        return offered.get();
    }

    /** @return batches written, failed or abandoned so far; they complete in the order they were offered */
    public long completed()
    {
        return completed.get();
    }

    /** @return batches waiting in the queue */
    public int queued()
    {
        return queue.size();
    }

    /** Asks the worker to finish the queued batches and stop. */
    public void stop()
    {
        stopping = true;
    }

    /** Asks the worker to stop now, abandoning retries (their offsets stay unacknowledged, so nothing is lost). */
    public void abandon()
    {
        abandon = true;
        stopping = true;
    }

    /**
     * With {@code on_error = "dead_letter"}: a batch the sink refuses for its data ({@link SinkException#recordCaused()})
     * has its records marked for the dead-letter topic before their offsets fail, so the re-read sends them there
     * (call before the agent starts).
     *
     * @param d the pipeline's dead letters
     * @return this worker
     */
    public InsertWorker deadLetters(final GatherDeadLetters d)
    {
        this.deadLetters = d;
        return this;
    }

    /**
     * Lets a batch refused for its data be split to find its records (when the writer can insert part of a batch),
     * and says what becomes of each (call before the agent starts).
     *
     * @param policy  {@code on_error}: skip, fail or dead_letter (with {@link #deadLetters})
     * @param control the pipeline's run state, failed under {@code fail} naming the record
     * @return this worker
     */
    public InsertWorker refusedRecords(final ErrorPolicy policy, final PipelineControl control)
    {
        this.onError = policy;
        this.control = control;
        return this;
    }

    /**
     * For a writer that stores positions ({@link BatchWriter#storesPositions()}): every write carries the positions
     * of its partitions for the consumer group (call before the agent starts).
     *
     * @param group the pipeline's consumer group
     * @return this worker
     */
    public InsertWorker exactlyOnce(final String group)
    {
        this.positions = writer.storesPositions() ? new SourcePositions(group) : null;
        return this;
    }

    /** @return the idle strategy to run this agent with */
    public IdleStrategy idleStrategy()
    {
        return idle;
    }

    /** @return true once the agent has closed */
    public boolean finished()
    {
        return finished;
    }

    /** @return the last insert error, or {@code null} */
    public String lastError()
    {
        return lastError;
    }

    /** @return the shard's breaker */
    public CircuitBreaker breaker()
    {
        return breaker;
    }

    /** @return the worker's name */
    public String name()
    {
        return name;
    }

    /** @return the writer's description */
    public String describe()
    {
        return name + " (" + writer.describe() + ")";
    }

    /** @return {@link System#nanoTime()} at which the batch being inserted was taken, or 0 when idle */
    public long inFlightSinceNanos()
    {
        return inFlightSinceNanos;
    }

    @Override
    public String roleName()
    {
        return name;
    }

    @Override
    public int doWork()
    {
        if (current == null)
        {
            final BatchBuffer batch = queue.poll();
            if (batch == null)
            {
                if (stopping)
                {
                    throw StageAgents.STOP;
                }
                return 0;
            }
            final long taken = System.nanoTime();
            inFlightSinceNanos = taken;
            stats.queueWaitMicros.record((taken - batch.sealedNanos()) / 1000);
            current = batch;
            failedWork = null;
            attempt = 0;
            backoffWaitNanos = backoffNanos;
            retryAtNanos = taken;
        }
        try
        {
            return attempt(current);
        }
        catch (final RuntimeException | Error e)
        {
            if (current != null)
            {
                // the offsets stay below the watermark; the buffer is not recycled, the pipeline is failing
                failedWork = describeWork();
                failRows(current, -1, "insert into " + current.destination().sqlTable() + " failed unexpectedly: " + e);
                split.reset();
                done();
            }
            throw e;
        }
    }

    @Override
    public void onClose()
    {
        try
        {
            writer.close();
        }
        finally
        {
            finished = true;
        }
    }

    /** @return what the worker is inserting (or was, when it failed), for the error handler (allocates) */
    public String describeWork()
    {
        final BatchBuffer b = current;
        if (b == null || b.rowCount() == 0)
        {
            return failedWork;
        }
        final AckTracker t = trackers.get(b.trackerId(0));
        return "batch of " + b.rowCount() + " rows for " + b.destination() + " (first record " + t.topic() + "-"
            + t.partition() + "@" + b.offset(0) + ")";
    }

    private void done()
    {
        current = null;
        inFlightSinceNanos = 0;
        completed.lazySet(completed.get() + 1);
    }

    /** One insert attempt of the batch in flight, once its backoff and the breaker allow it. */
    private int attempt(final BatchBuffer batch)
    {
        if (abandon)
        {
            LOG.warn("{}: abandoning batch of {} rows for {} on shutdown (not acknowledged; it will be re-read)",
                name, batch.rowCount(), batch.destination());
            split.reset();
            batch.release();
            done();
            return 1;
        }
        final long now = System.nanoTime();
        if (now - retryAtNanos < 0)
        {
            return 0;
        }
        final long holdOff = breaker.allowAfter(now);
        if (holdOff > 0)
        {
            retryAtNanos = now + Math.min(holdOff, TimeUnit.MILLISECONDS.toNanos(100));
            return 0;
        }
        final boolean part = split.active();
        if (part && split.select(batch, trackers) == 0)
        {
            endSplit(batch);
            return 1;
        }
        final long start = System.nanoTime();
        try
        {
            attempt++;
            if (Failpoints.ENABLED)
            {
                Failpoints.check(Failpoints.GATHER_INSERT, batch.offset(batch.rowCount() - 1));
            }
            if (positions != null)
            {
                writePositioned(batch, part);
            }
            else if (part)
            {
                writer.write(batch, split.selected(), split.count());
            }
            else
            {
                writer.write(batch);
            }
        }
        catch (final SinkException e)
        {
            if (part)
            {
                onPartFailure(batch, e);
            }
            else
            {
                onFailure(batch, e);
            }
            return 1;
        }
        catch (final RuntimeException e)
        {
            stats.insertFailures.incrementAndGet();
            stats.table(batch.destination()).onInsertFailed(TableStats.UNEXPECTED);
            lastError = "insert into " + batch.destination().sqlTable() + " failed unexpectedly: " + e;
            throw e;
        }
        final long end = System.nanoTime();
        breaker.onSuccess();
        if (attempt > 1)
        {
            LOG.info("{}: insert into {} succeeded after {} attempts", name, batch.destination(), attempt);
        }
        lastError = null;
        if (!unwritableLogged.isEmpty())
        {
            unwritableLogged.remove(batch.destination());
        }
        if (part)
        {
            onWritten(batch, split.selected(), split.count(), start, end);
            markWrittenForReread(batch);
            split.written();
            attempt = 0;
            backoffWaitNanos = backoffNanos;
            return 1;
        }
        onWritten(batch, null, batch.rowCount(), start, end);
        batch.release();
        done();
        return 1;
    }

    private void writePositioned(final BatchBuffer batch, final boolean part) throws SinkException
    {
        if (part)
        {
            positions.fill(batch, split.selected(), split.count(), trackers);
            writer.write(batch, split.selected(), split.count(), positions);
        }
        else
        {
            positions.fill(batch, trackers);
            writer.write(batch, positions);
        }
    }

    private void onFailure(final BatchBuffer batch, final SinkException e)
    {
        stats.insertFailures.incrementAndGet();
        stats.table(batch.destination()).onInsertFailed(e.schemaChanged()
            ? TableStats.SCHEMA_CHANGED
            : e.retriable() ? TableStats.RETRIABLE : TableStats.PERMANENT);
        final String reason = "insert of " + batch.rowCount() + " rows into " + batch.destination().sqlTable()
            + " via " + writer.describe() + " failed: " + e.getMessage();
        lastError = reason;
        if (e.schemaChanged())
        {
            onSchemaChanged(batch, e, reason);
            return;
        }
        if (e.positionMismatch())
        {
            LOG.atWarn().addKeyValue("table", batch.destination().toString())
                .log("{}: {} (rolled back and dropped: the partition is read again from what the table holds, by "
                    + "this member or by its new owner)", name, reason);
            failRows(batch, e.code(), reason);
            batch.release();
            done();
            return;
        }
        if (!e.retriable() && e.recordCaused() && control != null && writer.writesPartOfBatch())
        {
            LOG.atWarn().addKeyValue("table", batch.destination().toString())
                .log("{}: {} (refused for its data: {}on_error = {} decides the fate of the records refused)", name,
                    reason, batch.rowCount() > 1 ? "inserting it in parts to find them; " : "", onError.configName());
            split.start(batch);
            attempt = 0;
            if (split.wholeBatch(batch, trackers))
            {
                refusedPart(batch, e);
            }
            return;
        }
        if (!e.retriable())
        {
            if (deadLetters != null && e.recordCaused() && deadLetters.markBatch(batch, e, reason))
            {
                LOG.atWarn().addKeyValue("table", batch.destination().toString())
                    .log("{}: {} (refused for its data: the {} records are read again and go to the dead-letter "
                        + "topic)", name, reason, batch.rowCount());
            }
            else if (!String.valueOf(e.getMessage()).equals(unwritableLogged.put(batch.destination(),
                String.valueOf(e.getMessage()))))
            {
                LOG.atError().addKeyValue("table", batch.destination().toString())
                    .log("{}: {} (not retriable; the partitions of these records stop here, are read again after "
                        + "retry_backoff_ms, doubling up to retry_backoff_max_ms, and stop the run after "
                        + "checkpoint.stalled_fail_after_ms; this is logged once until a batch into the table is "
                        + "written)", name, reason);
            }
            else
            {
                LOG.atDebug().addKeyValue("table", batch.destination().toString())
                    .log("{}: {} (not retriable, logged before)", name, reason);
            }
            failRows(batch, e.code(), reason);
            batch.release();
            done();
            return;
        }
        retryLater(batch, reason);
    }

    /** Schedules the next attempt of the batch (or part) in flight after a retriable failure. */
    private void retryLater(final BatchBuffer batch, final String reason)
    {
        final long now = System.nanoTime();
        final boolean opened = breaker.onFailure(now);
        if (attempt == 1 || opened || attempt % 20 == 0)
        {
            LOG.atWarn().addKeyValue("table", batch.destination().toString())
                .log("{}: {} (retriable, attempt {}, retrying in {} ms{})", name, reason, attempt,
                    TimeUnit.NANOSECONDS.toMillis(backoffWaitNanos), opened ? "; circuit breaker open" : "");
        }
        retryAtNanos = now + backoffWaitNanos;
        backoffWaitNanos = Math.min(backoffWaitNanos * 2, backoffMaxNanos);
    }

    /**
     * The server refused the batch because the table is no longer the one its rows were encoded for: nothing was
     * written. The offsets fail first, then the destination is asked to describe the table again: a record the
     * route stage encodes for the new columns was routed after the failure, so it is held for the re-read
     * ({@code RouteStage.heldForReread}) instead of written now and again by the re-read. The source reads the
     * records again (after {@code retry_backoff_ms}) and the route stage encodes them for the table's new columns.
     */
    private void onSchemaChanged(final BatchBuffer batch, final SinkException e, final String reason)
    {
        LOG.atWarn().addKeyValue("table", batch.destination().toString())
            .log("{}: {} (the table changed: the batch was not written; its records are read again and encoded for "
                + "the table's new columns)", name, reason);
        failRows(batch, e.code(), reason);
        batch.destination().requestRefresh(e.getMessage());
        batch.release();
        done();
    }

    /** Acknowledges the rows written: every row ({@code selected} null) or the first {@code count} selected. */
    private void onWritten(final BatchBuffer batch, final int[] selected, final int count, final long startNanos,
        final long endNanos)
    {
        final long nowMs = System.currentTimeMillis();
        long bytes = 0;
        int deleted = selected == null ? batch.deleteCount() : 0;
        for (int k = 0; k < count; k++)
        {
            final int i = selected == null ? k : selected[k];
            if (selected != null && batch.isDelete(i))
            {
                deleted++;
            }
            final AckTracker t = trackers.get(batch.trackerId(i));
            t.ack(batch.offset(i), batch.generation(i));
            final long e2e = nowMs - batch.timestampMs(i);
            if (e2e >= 0)
            {
                stats.endToEndMicros.record(e2e * 1000);
            }
            bytes += selected == null ? 0 : batch.rowEnd(i) - batch.rowStart(i);
        }
        if (selected == null)
        {
            bytes = batch.byteCount();
        }
        // a delete is no row written: rows deleted are counted apart
        batch.destination().onInserted(count - deleted, bytes);
        batch.destination().onDeleted(deleted);
        stats.rowsWritten.addAndGet(count - deleted);
        stats.rowsDeleted.addAndGet(deleted);
        stats.bytesWritten.addAndGet(bytes);
        stats.inserts.incrementAndGet();
        stats.insertMicros.record((endNanos - startNanos) / 1000);
        stats.table(batch.destination()).onInserted(count, bytes, endNanos - startNanos);
    }

    /** A part of a refused batch failed: retried, cut again, or the split is given up. */
    private void onPartFailure(final BatchBuffer batch, final SinkException e)
    {
        stats.insertFailures.incrementAndGet();
        stats.table(batch.destination()).onInsertFailed(e.schemaChanged()
            ? TableStats.SCHEMA_CHANGED
            : e.retriable() ? TableStats.RETRIABLE : TableStats.PERMANENT);
        final String reason = "insert of " + split.count() + " of the " + batch.rowCount() + " rows of a refused batch "
            + "into " + batch.destination().sqlTable() + " via " + writer.describe() + " failed: " + e.getMessage();
        lastError = reason;
        if (e.retriable())
        {
            retryLater(batch, reason);
            return;
        }
        attempt = 0;
        backoffWaitNanos = backoffNanos;
        if (e.recordCaused() && !e.schemaChanged())
        {
            refusedPart(batch, e);
            return;
        }
        LOG.atError().addKeyValue("table", batch.destination().toString())
            .log("{}: {} (the rows not written yet fail{})", name, reason,
                e.schemaChanged() ? "; the table is described again" : "");
        failPending(batch, e.code(), reason);
        if (e.schemaChanged())
        {
            batch.destination().requestRefresh(e.getMessage());
        }
        endSplit(batch);
    }

    /** The part just tried was refused for its data: cut in two, or, a single record, that record's fate. */
    private void refusedPart(final BatchBuffer batch, final SinkException e)
    {
        if (!split.refusedPart())
        {
            return;
        }
        final int row = split.selected()[0];
        final AckTracker t = trackers.get(batch.trackerId(row));
        final String where = "record " + t.topic() + "-" + t.partition() + "@" + batch.offset(row);
        final String what = where + ": " + batch.destination().sqlTable() + " refused it"
            + (batch.rowCount() > 1
                ? " on its own (found by inserting a refused batch of " + batch.rowCount() + " rows in parts)"
                : "")
            + ": " + e.getMessage();
        final boolean log = refusedLogged++ < 10 || refusedLogged % 10_000 == 0;
        if (onError == ErrorPolicy.SKIP)
        {
            stats.droppedRefused.incrementAndGet();
            t.ack(batch.offset(row), batch.generation(row));
            if (log)
            {
                LOG.warn("{}: skipped {} (on_error = skip)", name, what);
            }
            return;
        }
        if (onError == ErrorPolicy.DEAD_LETTER && deadLetters != null && deadLetters.markRow(batch, row, e, what))
        {
            if (log)
            {
                LOG.warn("{}: {} (it is read again and goes to the dead-letter topic)", name, what);
            }
            t.fail(batch.offset(row), batch.generation(row), e.code(), what);
            split.failedHere(batch.trackerId(row), batch.offset(row));
            return;
        }
        if (!control.failed())
        {
            LOG.error("{}: {}; stopping (nothing is committed past offset {})", name, what, batch.offset(row));
        }
        // the pipeline fails first, so that the source, seeing the nack, knows not to announce a re-read
        control.fail(what);
        t.fail(batch.offset(row), batch.generation(row), e.code(), what);
        failPending(batch, e.code(), "not written: the pipeline stops at " + where + " (on_error = "
            + onError.configName() + ")");
        endSplit(batch);
    }

    /**
     * Marks the rows of the part just written whose partition is read again (a refused record of it before them
     * became a dead letter in this split), so that the re-read acknowledges them instead of writing them twice.
     */
    private void markWrittenForReread(final BatchBuffer batch)
    {
        if (deadLetters == null)
        {
            return;
        }
        final int[] rows = split.selected();
        for (int k = 0; k < split.count(); k++)
        {
            final int i = rows[k];
            if (BatchSplit.heldForReread(batch, i, trackers))
            {
                deadLetters.markWritten(batch, i, trackers.get(batch.trackerId(i)));
            }
        }
    }

    /** Fails the rows of the parts not tried yet. */
    private void failPending(final BatchBuffer batch, final int code, final String reason)
    {
        split.forEachPending(
            i -> trackers.get(batch.trackerId(i)).fail(batch.offset(i), batch.generation(i), code, reason));
    }

    /** The split is over: the batch is done. */
    private void endSplit(final BatchBuffer batch)
    {
        if (batch.rowCount() > 1)
        {
            LOG.atInfo().addKeyValue("table", batch.destination().toString())
                .log(
                    "{}: refused batch of {} rows for {} inserted in {} parts ({} halves cut without an insert): {} "
                        + "rows written, {} record(s) refused on their own",
                    name, batch.rowCount(), batch.destination(), split.parts(), split.cuts(), split.rowsWritten(),
                    split.refused());
        }
        split.reset();
        batch.release();
        done();
    }

    private void failRows(final BatchBuffer batch, final int code, final String reason)
    {
        final int rows = batch.rowCount();
        for (int i = 0; i < rows; i++)
        {
            trackers.get(batch.trackerId(i)).fail(batch.offset(i), batch.generation(i), code, reason);
        }
    }
}
