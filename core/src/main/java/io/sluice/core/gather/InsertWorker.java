package io.sluice.core.gather;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.stage.PipelineStats;

/**
 * The insert worker of one shard: takes sealed batches from its queue in order, inserts each through its
 * {@link BatchWriter}, and acknowledges the batch's offsets only once the insert returned (durably written).
 *
 * <p>Failures: a retriable {@link SinkException} is retried with exponential backoff ({@code retry_backoff_ms} up
 * to {@code retry_backoff_max_ms}) behind the shard's {@link CircuitBreaker}, for as long as the pipeline runs: the
 * offsets stay unacknowledged, so their partitions' watermarks stall (and {@code checkpoint.stalled_fail_after_ms}
 * ends the run if it lasts). A non-retriable failure fails the batch's offsets in their trackers (worst-status
 * merge) with the reason, naming the table; nothing is committed past them.
 *
 * <p>Threads: one thread runs {@link #run()}; the route stage offers batches through {@link #offer(BatchBuffer)}.
 */
public final class InsertWorker implements Runnable, SealedBatchQueue
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
    private volatile Thread thread;
    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();

    /**
     * @param name          thread/log name, e.g. {@code github/shard-0}
     * @param queueDepth    sealed batches that may wait
     * @param writer        the shard's writer (owned by this worker from now on)
     * @param trackers      the pipeline's ack trackers
     * @param stats         the pipeline's counters
     * @param breaker       the shard's breaker
     * @param idle          how to wait for work
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
        final Thread t = thread;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    /** @return true once {@link #run()} has returned */
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
    public void run()
    {
        thread = Thread.currentThread();
        try
        {
            while (true)
            {
                final BatchBuffer batch = queue.poll();
                if (batch == null)
                {
                    if (stopping)
                    {
                        break;
                    }
                    idle.idle(0);
                    continue;
                }
                idle.reset();
                final long taken = System.nanoTime();
                inFlightSinceNanos = taken;
                stats.queueWaitMicros.record((taken - batch.sealedNanos()) / 1000);
                insert(batch);
                inFlightSinceNanos = 0;
                completed.lazySet(completed.get() + 1);
            }
        }
        finally
        {
            writer.close();
            finished = true;
        }
    }

    private void insert(final BatchBuffer batch)
    {
        long wait = backoffNanos;
        int attempt = 0;
        while (true)
        {
            if (abandon)
            {
                LOG.warn("{}: abandoning batch of {} rows for {} on shutdown (not acknowledged; it will be re-read)",
                    name, batch.rowCount(), batch.destination());
                batch.release();
                return;
            }
            final long holdOff = breaker.allowAfter(System.nanoTime());
            if (holdOff > 0)
            {
                LockSupport.parkNanos(Math.min(holdOff, TimeUnit.MILLISECONDS.toNanos(100)));
                continue;
            }
            final long start = System.nanoTime();
            try
            {
                attempt++;
                writer.write(batch);
                final long end = System.nanoTime();
                breaker.onSuccess();
                if (attempt > 1)
                {
                    LOG.info("{}: insert into {} succeeded after {} attempts", name, batch.destination(), attempt);
                }
                lastError = null;
                onWritten(batch, start, end);
                return;
            }
            catch (final SinkException e)
            {
                stats.insertFailures.incrementAndGet();
                final String reason = "insert of " + batch.rowCount() + " rows into " + batch.destination().sqlTable()
                    + " via " + writer.describe() + " failed: " + e.getMessage();
                lastError = reason;
                if (!e.retriable())
                {
                    LOG.error("{}: {} (not retriable; the partitions of these records stop here)", name, reason);
                    failRows(batch, e.code(), reason);
                    batch.release();
                    return;
                }
                final boolean opened = breaker.onFailure(System.nanoTime());
                if (attempt == 1 || opened || attempt % 20 == 0)
                {
                    LOG.warn("{}: {} (retriable, attempt {}, retrying in {} ms{})", name, reason, attempt,
                        TimeUnit.NANOSECONDS.toMillis(wait), opened ? "; circuit breaker open" : "");
                }
                LockSupport.parkNanos(wait);
                wait = Math.min(wait * 2, backoffMaxNanos);
            }
            catch (final RuntimeException e)
            {
                stats.insertFailures.incrementAndGet();
                final String reason = "insert into " + batch.destination().sqlTable() + " failed unexpectedly: " + e;
                lastError = reason;
                LOG.error("{}: {}", name, reason, e);
                failRows(batch, -1, reason);
                batch.release();
                return;
            }
        }
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
