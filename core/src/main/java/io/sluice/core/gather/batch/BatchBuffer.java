package io.sluice.core.gather.batch;

import java.util.Arrays;

import net.openhft.chronicle.bytes.Bytes;

/**
 * A batch of encoded rows for one (destination, shard), plus the coordinates of the records they came from so the
 * insert worker can acknowledge exactly those offsets once the destination has durably written them.
 *
 * <p>Rows are written into an elastic off-heap chronicle-bytes buffer in the row format of the binding the batch was
 * opened with (RowBinary, each row preceded by its omission mask when the binding has omittable columns; see
 * {@link Binding}). The row-coordinate arrays grow once, straight to {@code maxRows} when the pool knows it (by doubling
 * beyond it or otherwise), and keep their capacity, so a recycled
 * buffer allocates nothing in steady state.
 *
 * <p>Ownership moves, it is never shared: the route stage owns an open batch; sealing hands it to a shard's insert
 * worker through a queue (which publishes the writes); the worker returns it to its pool after acknowledging.
 */
public final class BatchBuffer
{
    private final Bytes<Void> rows;
    private long[] offsets;
    private long[] timestampsMs;
    /** Per row: whether it deletes a row (a tombstone under tombstones = "delete") rather than writing one. */
    private boolean[] deletes;
    private int deleteCount;
    /** Per row: the position in {@link #rows} just after its bytes (where the next row begins). */
    private long[] rowEnds;
    private int[] trackerIds;
    private int[] generations;
    private int rowCount;
    private long openedNanos;
    private long sealedNanos;
    private volatile Destination destination;
    private Binding binding;
    /** The destination's positions when it is exactly-once (the batch's expected positions come from it), else null. */
    private PositionChain chain;
    private long[] firstOffsetByTracker = new long[16];
    private int[] stampByTracker = new int[16];
    private int stamp;
    /** Per tracker id: its index among the batch's partitions (valid when its stamp is this batch's). */
    private int[] slotByTracker = new int[16];
    /** Per partition of the batch, in order of first row: tracker id, first and last offset, expected position. */
    private int[] partTracker = new int[4];
    private long[] partFirst = new long[4];
    private long[] partLast = new long[4];
    private long[] partExpected = new long[4];
    private int partCount;
    private int shard;
    private final BatchPool pool;
    private final int maxRows;

    /**
     * @param initialBytes initial capacity of the row buffer, in bytes (it grows on demand)
     * @param initialRows  initial capacity of the coordinate arrays, in rows (they grow on demand)
     * @param maxRows      the rows at which the batch seals: the first growth goes straight there; 0 if unknown
     * @param pool         the pool this buffer returns to
     */
    BatchBuffer(final long initialBytes, final int initialRows, final int maxRows, final BatchPool pool)
    {
        this.maxRows = maxRows;
        this.rows = Bytes.allocateElasticDirect(initialBytes);
        this.rows.singleThreadedCheckDisabled(true);
        final int n = Math.max(16, initialRows);
        this.offsets = new long[n];
        this.timestampsMs = new long[n];
        this.deletes = new boolean[n];
        this.rowEnds = new long[n];
        this.trackerIds = new int[n];
        this.generations = new int[n];
        this.pool = pool;
    }

    /**
     * Starts a new batch (route stage).
     *
     * @param destination where its rows go
     * @param shard       0-based shard
     * @param nowNanos    {@link System#nanoTime()} now: the linger deadline counts from here
     */
    public void open(final Destination destination, final int shard, final long nowNanos)
    {
        this.destination = destination;
        this.binding = destination.binding();
        this.chain = destination.positions();
        this.shard = shard;
        this.openedNanos = nowNanos;
        this.rowCount = 0;
        this.deleteCount = 0;
        this.partCount = 0;
        this.rows.clear();
        this.stamp++;
    }

    /** @return the row buffer; encoders append one row at its write position */
    public Bytes<Void> rows()
    {
        return rows;
    }

    /**
     * Records that the row just encoded came from this record (route stage): the row's bytes are those appended to
     * {@link #rows()} since the previous row (its end is the buffer's write position now). Grows the arrays when
     * needed.
     *
     * @param trackerId   the partition's ack tracker id
     * @param generation  tracker generation of the record
     * @param offset      Kafka offset
     * @param timestampMs Kafka record timestamp, epoch ms (for end-to-end latency)
     */
    public void addRow(final int trackerId, final int generation, final long offset, final long timestampMs)
    {
        final int i = rowCount;
        if (i == offsets.length)
        {
            grow();
        }
        trackerIds[i] = trackerId;
        generations[i] = generation;
        offsets[i] = offset;
        timestampsMs[i] = timestampMs;
        deletes[i] = false;
        rowEnds[i] = rows.writePosition();
        rowCount = i + 1;
        if (trackerId >= stampByTracker.length)
        {
            final int n = Math.max(trackerId + 1, stampByTracker.length * 2);
            stampByTracker = Arrays.copyOf(stampByTracker, n);
            firstOffsetByTracker = Arrays.copyOf(firstOffsetByTracker, n);
            slotByTracker = Arrays.copyOf(slotByTracker, n);
        }
        if (stampByTracker[trackerId] != stamp)
        {
            stampByTracker[trackerId] = stamp;
            firstOffsetByTracker[trackerId] = offset;
            addPartition(trackerId, offset);
        }
        partLast[slotByTracker[trackerId]] = offset;
        if (chain != null)
        {
            chain.appended(this, trackerId, offset);
        }
    }

    private void addPartition(final int trackerId, final long offset)
    {
        final int k = partCount;
        if (k == partTracker.length)
        {
            final int n = k * 2;
            partTracker = Arrays.copyOf(partTracker, n);
            partFirst = Arrays.copyOf(partFirst, n);
            partLast = Arrays.copyOf(partLast, n);
            partExpected = Arrays.copyOf(partExpected, n);
        }
        partTracker[k] = trackerId;
        partFirst[k] = offset;
        partExpected[k] = -1;
        slotByTracker[trackerId] = k;
        partCount = k + 1;
    }

    /** @return how many source partitions the batch's rows come from */
    public int partitionCount()
    {
        return partCount;
    }

    /**
     * @param k a partition of the batch, from 0 to {@link #partitionCount()} - 1, in the order of their first rows
     * @return its tracker id
     */
    public int partitionTrackerId(final int k)
    {
        return partTracker[k];
    }

    /**
     * @param k a partition of the batch, from 0 to {@link #partitionCount()} - 1
     * @return the offset of its first row in the batch
     */
    public long partitionFirstOffset(final int k)
    {
        return partFirst[k];
    }

    /**
     * @param k a partition of the batch, from 0 to {@link #partitionCount()} - 1
     * @return the offset of its last (highest) row in the batch
     */
    public long partitionLastOffset(final int k)
    {
        return partLast[k];
    }

    /**
     * For an exactly-once destination: the position (next offset) the table must hold of the partition before this
     * batch is written, the end of the table's previous batch of it ({@code PositionChain}).
     *
     * @param k a partition of the batch, from 0 to {@link #partitionCount()} - 1
     * @return the position, or -1 when none was set (an at-least-once destination)
     */
    public long partitionExpected(final int k)
    {
        return partExpected[k];
    }

    /**
     * @param trackerId a tracker id with a row in this batch
     * @return {@link #partitionExpected} of its partition
     */
    public long expectedOf(final int trackerId)
    {
        return partExpected[slotByTracker[trackerId]];
    }

    /**
     * Sets the position the table must hold of a partition before this batch (route stage, after the partition's first
     * row was added).
     *
     * @param trackerId a tracker id with a row in this batch
     * @param expected  the next offset the table holds, {@code >= 0}
     */
    public void expectPosition(final int trackerId, final long expected)
    {
        partExpected[slotByTracker[trackerId]] = expected;
    }

    /**
     * The lowest offset of a partition in this batch (a partition's offsets arrive in increasing order), for finding
     * which destination holds a partition's watermark back. Read by the status thread without synchronisation: the
     * answer may be stale, which is fine for a diagnostic.
     *
     * @param trackerId a tracker id
     * @return the offset, or -1 when the batch holds no row of that partition
     */
    public long firstOffsetOf(final int trackerId)
    {
        final int[] stamps = stampByTracker;
        final long[] firsts = firstOffsetByTracker;
        if (destination == null || trackerId >= stamps.length || trackerId >= firsts.length
            || stamps[trackerId] != stamp)
        {
            return -1;
        }
        return firsts[trackerId];
    }

    /** @return true while the batch is open, queued or being inserted */
    public boolean inUse()
    {
        return destination != null;
    }

    private void grow()
    {
        final int n = maxRows > offsets.length ? maxRows : offsets.length * 2;
        offsets = Arrays.copyOf(offsets, n);
        timestampsMs = Arrays.copyOf(timestampsMs, n);
        deletes = Arrays.copyOf(deletes, n);
        rowEnds = Arrays.copyOf(rowEnds, n);
        trackerIds = Arrays.copyOf(trackerIds, n);
        generations = Arrays.copyOf(generations, n);
    }

    /**
     * Marks the time the batch was sealed.
     *
     * @param nanos a {@link System#nanoTime()} reading
     */
    public void sealedNanos(final long nanos)
    {
        this.sealedNanos = nanos;
    }

    /** @return rows in the batch */
    public int rowCount()
    {
        return rowCount;
    }

    /**
     * Marks the row added last as the delete of a row (a tombstone under {@code tombstones = "delete"}), so that the
     * counters tell rows deleted from rows written. Route stage thread, right after {@link #addRow}.
     */
    public void markLastRowDelete()
    {
        deletes[rowCount - 1] = true;
        deleteCount++;
    }

    /**
     * @param i a row index in {@code [0, rowCount())}
     * @return whether row {@code i} deletes a row rather than writing one
     */
    public boolean isDelete(final int i)
    {
        return deletes[i];
    }

    /** @return how many of the batch's rows are deletes ({@link #markLastRowDelete}) */
    public int deleteCount()
    {
        return deleteCount;
    }

    /** @return encoded bytes in the batch */
    public long byteCount()
    {
        return rows.writePosition();
    }

    /** @return where the rows go */
    public Destination destination()
    {
        return destination;
    }

    /**
     * @return what the rows were encoded for: the destination's binding when the batch was opened (it may have been
     *     rebound since; the rows are still those of this binding)
     */
    public Binding binding()
    {
        return binding;
    }

    /** @return 0-based shard */
    public int shard()
    {
        return shard;
    }

    /** @return {@link System#nanoTime()} when the first row was added (when the batch was opened) */
    public long openedNanos()
    {
        return openedNanos;
    }

    /** @return {@link System#nanoTime()} when sealed */
    public long sealedNanos()
    {
        return sealedNanos;
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return tracker id of row {@code i}
     */
    public int trackerId(final int i)
    {
        return trackerIds[i];
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return tracker generation of row {@code i}
     */
    public int generation(final int i)
    {
        return generations[i];
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return Kafka offset of row {@code i}
     */
    public long offset(final int i)
    {
        return offsets[i];
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return Kafka timestamp (epoch ms) of row {@code i}
     */
    public long timestampMs(final int i)
    {
        return timestampsMs[i];
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return the position in {@link #rows()} of row {@code i}'s first byte
     */
    public long rowStart(final int i)
    {
        return i == 0 ? rows.readPosition() : rowEnds[i - 1];
    }

    /**
     * @param i the row's index in the batch, from 0 to {@link #rowCount()} - 1
     * @return the position in {@link #rows()} just after row {@code i}'s last byte
     */
    public long rowEnd(final int i)
    {
        return rowEnds[i];
    }

    /** Returns this buffer to its pool (insert worker, after acknowledging). */
    public void release()
    {
        destination = null;
        pool.release(this);
    }

    /** @return bytes of direct memory the row buffer holds now */
    public long capacityBytes()
    {
        return rows.realCapacity();
    }

    /** Frees the direct memory; the buffer must not be used afterwards. */
    void free()
    {
        rows.releaseLast();
    }
}
