package io.sluice.core.gather;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.Failpoints;
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

    /** @return true when every batch offered so far has been written, failed or abandoned */
    public boolean idle()
    {
        return completed.get() == offered.get();
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
        final long start = System.nanoTime();
        try
        {
            attempt++;
            if (Failpoints.ENABLED)
            {
                Failpoints.check(Failpoints.GATHER_INSERT, batch.offset(batch.rowCount() - 1));
            }
            writer.write(batch);
        }
        catch (final SinkException e)
        {
            onFailure(batch, e);
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
        onWritten(batch, start, end);
        done();
        return 1;
    }

    private void onFailure(final BatchBuffer batch, final SinkException e)
    {
        stats.insertFailures.incrementAndGet();
        stats.table(batch.destination()).onInsertFailed(e.retriable()
            ? TableStats.RETRIABLE
            : TableStats.PERMANENT);
        final String reason = "insert of " + batch.rowCount() + " rows into " + batch.destination().sqlTable()
            + " via " + writer.describe() + " failed: " + e.getMessage();
        lastError = reason;
        if (!e.retriable())
        {
            if (deadLetters != null && e.recordCaused() && deadLetters.markBatch(batch, e, reason))
            {
                LOG.atWarn().addKeyValue("table", batch.destination().toString())
                    .log("{}: {} (refused for its data: the {} records are read again and go to the dead-letter "
                        + "topic)", name, reason, batch.rowCount());
            }
            else
            {
                LOG.atError().addKeyValue("table", batch.destination().toString())
                    .log("{}: {} (not retriable; the partitions of these records stop here)", name, reason);
            }
            failRows(batch, e.code(), reason);
            batch.release();
            done();
            return;
        }
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

    private void onWritten(final BatchBuffer batch, final long startNanos, final long endNanos)
    {
        final int rows = batch.rowCount();
        final long nowMs = System.currentTimeMillis();
        for (int i = 0; i < rows; i++)
        {
            final AckTracker t = trackers.get(batch.trackerId(i));
            t.ack(batch.offset(i), batch.generation(i));
            final long e2e = nowMs - batch.timestampMs(i);
            if (e2e >= 0)
            {
                stats.endToEndMicros.record(e2e * 1000);
            }
        }
        batch.destination().onInserted(rows, batch.byteCount());
        stats.rowsWritten.addAndGet(rows);
        stats.bytesWritten.addAndGet(batch.byteCount());
        stats.inserts.incrementAndGet();
        stats.insertMicros.record((endNanos - startNanos) / 1000);
        stats.table(batch.destination()).onInserted(rows, batch.byteCount(), endNanos - startNanos);
        batch.release();
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
