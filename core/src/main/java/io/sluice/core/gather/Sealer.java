package io.sluice.core.gather;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.NanoClock;

import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.ChunkConfig;
import io.sluice.core.stage.PipelineStats;

/**
 * The seed's sealer: owns the open batch of every (branch, destination, shard) and seals it when one of its branch's
 * rules says so, then hands it to the queue of the insert worker of its shard. The rules, per branch
 * ({@link ChunkConfig}):
 * <ul>
 * <li>{@code max_rows}: the row that makes {@code max_rows} rows seals the batch ({@link #ROWS});</li>
 * <li>{@code max_bytes}: the row whose end reaches {@code max_bytes} encoded bytes seals it, so a single larger row
 * is sealed alone ({@link #BYTES});</li>
 * <li>{@code linger_ms}: a batch is sealed once {@code linger_ms} have passed since it was opened (its first row),
 * at the next {@link #sealExpired(long)} ({@link #LINGER});</li>
 * <li>pool exhaustion: when the branch's {@link BatchPool} has no free buffer, the branch's oldest open batch with
 * rows is sealed, oldest first, one per failed {@link #batchFor} ({@link #POOL});</li>
 * <li>flush: {@link #flush()} seals every open batch (drain, rebalance, stop) ({@link #FLUSH}).</li>
 * </ul>
 * A batch always goes to the same queue: {@code queues[shard][destination id % workers of the shard]}.
 *
 * <p>Hand-off never waits. A sealed batch whose queue is full is kept, in seal order, until {@link #retryHandOffs()}
 * finds room; while any is kept, later sealed batches queue up behind it, so each worker receives its batches in the
 * order they were sealed. The caller decides how to wait: {@link #handOffsPending()} says whether it must. A queue
 * whose worker has stopped ({@link SealedBatchQueue#CLOSED}) gets nothing more: the batch is released with its rows
 * unacknowledged, so its records are read again later. The seal counters of {@link PipelineStats}
 * ({@code sealedByRows}, ...) count the batches handed off, by the rule that sealed them.
 *
 * <p>Time comes from the injected clock (nanoseconds): when a batch opens (its linger deadline counts from there) and
 * when it is sealed (the queue wait is measured from there). Tests drive it with a manual clock such as Agrona's
 * {@code CachedNanoClock}.
 *
 * <p>Thread-safety: one thread, the route stage's; not thread-safe. Nothing here allocates in steady state.
 */
public final class Sealer
{
    /** Sealed because it reached {@code max_rows}. */
    public static final int ROWS = 0;
    /** Sealed because its rows reached {@code max_bytes}. */
    public static final int BYTES = 1;
    /** Sealed because {@code linger_ms} passed since it opened. */
    public static final int LINGER = 2;
    /** Sealed by a flush (drain, rebalance, stop). */
    public static final int FLUSH = 3;
    /** Sealed early, oldest first, because its branch's batch pool had no free buffer. */
    public static final int POOL = 4;

    /** The sealing rules and the hand-off of one branch. */
    private static final class Rules
    {
        final int maxRows;
        final long maxBytes;
        final long lingerNanos;
        final BatchPool pool;
        final SealedBatchQueue[][] queues;

        Rules(final ChunkConfig chunk, final BatchPool pool, final SealedBatchQueue[][] queues)
        {
            this.maxRows = chunk.maxRows();
            this.maxBytes = chunk.maxBytes();
            this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(chunk.lingerMs());
            this.pool = pool;
            this.queues = queues;
        }
    }

    private final Rules[] branches;
    private final NanoClock clock;
    private final PipelineStats stats;
    private final BatchBuffer[] handOffs;
    private final int[] handOffReasons;
    private int handOffHead;
    private int handOffCount;
    private BatchBuffer[][] open = new BatchBuffer[16][];
    private long nextDeadlineNanos = Long.MAX_VALUE;

    /**
     * @param chunks per branch (by branch index), its batch rules
     * @param pools  per branch, its batch pool
     * @param queues per branch, the queues of its sink's insert workers, by shard then worker
     * @param clock  the time source, nanoseconds
     * @param stats  the pipeline's counters (the seal reasons)
     */
    public Sealer(final List<ChunkConfig> chunks, final List<BatchPool> pools,
        final List<? extends SealedBatchQueue[][]> queues, final NanoClock clock, final PipelineStats stats)
    {
        this.branches = new Rules[chunks.size()];
        int buffers = 0;
        for (int i = 0; i < branches.length; i++)
        {
            branches[i] = new Rules(chunks.get(i), pools.get(i), queues.get(i));
            buffers += pools.get(i).maxBuffers();
        }
        this.handOffs = new BatchBuffer[Math.max(1, buffers)];
        this.handOffReasons = new int[handOffs.length];
        this.clock = clock;
        this.stats = stats;
    }

    /**
     * The open batch of (destination, shard), opening one from the branch's pool if there is none. When the pool
     * has no free buffer, seals the branch's oldest open batch ({@link #POOL}) and returns {@code null}: the caller
     * waits for an insert worker to give a buffer back and asks again.
     *
     * @param branch      the branch index
     * @param destination the destination (of that branch)
     * @param shard       0-based shard, below the branch's shard count
     * @return the open batch, or {@code null} when the pool is exhausted
     */
    public BatchBuffer batchFor(final int branch, final Destination destination, final int shard)
    {
        final int id = destination.id();
        if (id >= open.length)
        {
            open = Arrays.copyOf(open, Math.max(id + 1, open.length * 2));
        }
        final Rules rules = branches[branch];
        BatchBuffer[] perShard = open[id];
        if (perShard == null)
        {
            perShard = new BatchBuffer[rules.queues.length];
            open[id] = perShard;
        }
        final BatchBuffer batch = perShard[shard];
        if (batch != null)
        {
            return batch;
        }
        final BatchBuffer fresh = rules.pool.tryAcquire();
        if (fresh == null)
        {
            sealOldestOpen(branch);
            return null;
        }
        final long now = clock.nanoTime();
        fresh.open(destination, shard, now);
        perShard[shard] = fresh;
        final long deadline = now + rules.lingerNanos;
        if (deadline - nextDeadlineNanos < 0)
        {
            nextDeadlineNanos = deadline;
        }
        return fresh;
    }

    /**
     * Applies {@code max_rows} and {@code max_bytes} after a row was added to a batch from {@link #batchFor}.
     *
     * @param branch the batch's branch index
     * @param batch  the batch
     */
    public void rowAppended(final int branch, final BatchBuffer batch)
    {
        final Rules rules = branches[branch];
        if (batch.rowCount() >= rules.maxRows)
        {
            seal(batch, ROWS);
        }
        else if (batch.byteCount() >= rules.maxBytes)
        {
            seal(batch, BYTES);
        }
    }

    /**
     * Gives back a batch from {@link #batchFor} that got no row (its record failed to encode).
     *
     * @param batch the batch
     */
    public void discardIfEmpty(final BatchBuffer batch)
    {
        if (batch.rowCount() == 0)
        {
            open[batch.destination().id()][batch.shard()] = null;
            batch.release();
        }
    }

    /** @return when the earliest open batch's linger runs out, clock nanoseconds ({@link Long#MAX_VALUE}: none) */
    public long nextDeadlineNanos()
    {
        return nextDeadlineNanos;
    }

    /**
     * Seals every open batch whose linger has run out.
     *
     * @param nowNanos the clock's time now
     */
    public void sealExpired(final long nowNanos)
    {
        long next = Long.MAX_VALUE;
        for (final BatchBuffer[] perShard : open)
        {
            if (perShard == null)
            {
                continue;
            }
            for (final BatchBuffer b : perShard)
            {
                if (b == null)
                {
                    continue;
                }
                final long deadline = b.openedNanos() + branches[b.destination().branch()].lingerNanos;
                if (nowNanos - deadline >= 0)
                {
                    seal(b, LINGER);
                }
                else if (deadline - next < 0)
                {
                    next = deadline;
                }
            }
        }
        nextDeadlineNanos = next;
    }

    /** Seals every open batch ({@link #FLUSH}). */
    public void flush()
    {
        for (final BatchBuffer[] perShard : open)
        {
            if (perShard == null)
            {
                continue;
            }
            for (final BatchBuffer b : perShard)
            {
                if (b != null)
                {
                    seal(b, FLUSH);
                }
            }
        }
        nextDeadlineNanos = Long.MAX_VALUE;
    }

    /** @return sealed batches kept because their queue was full; while above 0 the caller should wait and retry */
    public int handOffsPending()
    {
        return handOffCount;
    }

    /**
     * Offers the kept batches again, in seal order, up to the first whose queue is still full.
     *
     * @return sealed batches still kept
     */
    public int retryHandOffs()
    {
        while (handOffCount > 0)
        {
            final int head = handOffHead;
            if (!handOff(handOffs[head], handOffReasons[head]))
            {
                break;
            }
            handOffs[head] = null;
            handOffHead = head + 1 == handOffs.length ? 0 : head + 1;
            handOffCount--;
        }
        return handOffCount;
    }

    /**
     * Gives up the kept batches (the stop after {@code checkpoint.drain_timeout_ms}, when their workers no longer
     * take anything): each is released with its rows unacknowledged, so their records are read again by a later run.
     *
     * @return the batches released
     */
    public int abandonHandOffs()
    {
        final int n = handOffCount;
        while (handOffCount > 0)
        {
            final int head = handOffHead;
            handOffs[head].release();
            handOffs[head] = null;
            handOffHead = head + 1 == handOffs.length ? 0 : head + 1;
            handOffCount--;
        }
        return n;
    }

    /** @return open batches now (for tests and diagnostics; walks every destination) */
    public int openBatches()
    {
        int n = 0;
        for (final BatchBuffer[] perShard : open)
        {
            if (perShard != null)
            {
                for (final BatchBuffer b : perShard)
                {
                    n += b == null ? 0 : 1;
                }
            }
        }
        return n;
    }

    private void sealOldestOpen(final int branch)
    {
        BatchBuffer oldest = null;
        for (final BatchBuffer[] perShard : open)
        {
            if (perShard == null)
            {
                continue;
            }
            for (final BatchBuffer b : perShard)
            {
                if (b != null && b.destination().branch() == branch && b.rowCount() > 0
                    && (oldest == null || b.openedNanos() - oldest.openedNanos() < 0))
                {
                    oldest = b;
                }
            }
        }
        if (oldest != null)
        {
            seal(oldest, POOL);
        }
    }

    private void seal(final BatchBuffer batch, final int reason)
    {
        open[batch.destination().id()][batch.shard()] = null;
        if (batch.rowCount() == 0)
        {
            batch.release();
            return;
        }
        batch.sealedNanos(clock.nanoTime());
        if (handOffCount == 0 && handOff(batch, reason))
        {
            return;
        }
        final int tail = (handOffHead + handOffCount) % handOffs.length;
        handOffs[tail] = batch;
        handOffReasons[tail] = reason;
        handOffCount++;
    }

    /** @return false when the batch's queue is full (the batch is still the sealer's) */
    private boolean handOff(final BatchBuffer batch, final int reason)
    {
        final Destination d = batch.destination();
        final SealedBatchQueue[] shardQueues = branches[d.branch()].queues[batch.shard()];
        final int rc = shardQueues[d.id() % shardQueues.length].offer(batch);
        if (rc == SealedBatchQueue.FULL)
        {
            return false;
        }
        if (rc == SealedBatchQueue.CLOSED)
        {
            // the worker stopped (shutdown abandoned it): the rows stay unacknowledged and are re-read later
            batch.release();
            return true;
        }
        count(reason);
        return true;
    }

    private void count(final int reason)
    {
        final PipelineStats s = stats;
        switch (reason)
        {
            case ROWS -> s.sealedByRows.lazySet(s.sealedByRows.get() + 1);
            case BYTES -> s.sealedByBytes.lazySet(s.sealedByBytes.get() + 1);
            case LINGER -> s.sealedByLinger.lazySet(s.sealedByLinger.get() + 1);
            case FLUSH -> s.sealedByFlush.lazySet(s.sealedByFlush.get() + 1);
            default -> s.sealedByPool.lazySet(s.sealedByPool.get() + 1);
        }
    }
}
