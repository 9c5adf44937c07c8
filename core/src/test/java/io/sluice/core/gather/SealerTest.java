package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.split.ChunkConfig;
import io.sluice.core.stage.PipelineStats;

/**
 * Each sealing rule of the {@link Sealer}, driven by a manual clock (no sleeps): which rows and which offsets are in
 * each sealed batch, in which order the batches reach their queue, and which counter names the rule. The shape is
 * Kafka's {@code RecordAccumulatorTest.testLinger} with {@code MockTime}: append, assert nothing is ready, move the
 * clock, assert exactly what is ready.
 */
class SealerTest
{
    private static final long LONG_LINGER_MS = 60_000;
    private static final long T0 = 1_000_000_000L;

    /** An insert worker's queue that takes what it has room for and remembers it. */
    private static final class Queue implements SealedBatchQueue
    {
        final List<BatchBuffer> taken = new ArrayList<>();
        int room = Integer.MAX_VALUE;
        boolean closed;

        @Override
        public int offer(final BatchBuffer batch)
        {
            if (closed)
            {
                return CLOSED;
            }
            if (room == 0)
            {
                return FULL;
            }
            room--;
            taken.add(batch);
            return OFFERED;
        }

        List<List<Long>> offsets()
        {
            final List<List<Long>> out = new ArrayList<>();
            for (final BatchBuffer b : taken)
            {
                out.add(SealerTest.offsets(b));
            }
            return out;
        }
    }

    private final CachedNanoClock clock = new CachedNanoClock();
    private final PipelineStats stats = new PipelineStats();
    private final Queue queue = new Queue();

    SealerTest()
    {
        clock.update(T0);
    }

    private Sealer sealer(final ChunkConfig chunk, final BatchPool pool)
    {
        return new Sealer(List.of(chunk), List.of(pool),
            List.<SealedBatchQueue[][]>of(new SealedBatchQueue[][]{{queue}}), clock,
            stats);
    }

    private static Destination destination(final int id, final int branch)
    {
        return new Destination(id, branch, "b" + branch, "db", "t" + id, "`db`.`t" + id + "`", List.of(), "s", null);
    }

    /** Appends one row of {@code bytes} encoded bytes from record {@code offset} of tracker 0, as the route stage does. */
    private static void append(final Sealer sealer, final int branch, final Destination d, final int shard,
        final long offset, final int bytes)
    {
        final BatchBuffer b = sealer.batchFor(branch, d, shard);
        assertNotNull(b, "a batch for offset " + offset);
        for (int i = 0; i < bytes; i++)
        {
            b.rows().writeByte((byte)i);
        }
        b.addRow(0, 1, offset, 0L);
        sealer.rowAppended(branch, b);
    }

    private static List<Long> offsets(final BatchBuffer b)
    {
        final List<Long> out = new ArrayList<>();
        for (int i = 0; i < b.rowCount(); i++)
        {
            out.add(b.offset(i));
        }
        return out;
    }

    @Test
    void shouldSealOnMaxRowsWithExactlyThoseRows()
    {
        final Sealer sealer = sealer(new ChunkConfig(3, 1 << 20, LONG_LINGER_MS), new BatchPool(8, 1024, 16));
        final Destination d = destination(0, 0);
        for (long o = 10; o <= 16; o++)
        {
            append(sealer, 0, d, 0, o, 8);
        }
        assertEquals(List.of(List.of(10L, 11L, 12L), List.of(13L, 14L, 15L)), queue.offsets());
        assertEquals(2, stats.sealedByRows.get());
        assertEquals(1, sealer.openBatches(), "offset 16 is still open");
        assertEquals(24, queue.taken.get(0).byteCount());

        sealer.flush();
        assertEquals(List.of(16L), queue.offsets().get(2));
        assertEquals(1, stats.sealedByFlush.get());
        assertEquals(0, sealer.openBatches());
    }

    @Test
    void shouldSealOnMaxBytesAndSealALargerRowAlone()
    {
        final Sealer sealer = sealer(new ChunkConfig(1000, 100, LONG_LINGER_MS), new BatchPool(8, 1024, 16));
        final Destination d = destination(0, 0);
        append(sealer, 0, d, 0, 0, 40);
        append(sealer, 0, d, 0, 1, 40);
        assertEquals(List.of(), queue.offsets(), "80 bytes: below max_bytes");
        append(sealer, 0, d, 0, 2, 40);
        assertEquals(List.of(List.of(0L, 1L, 2L)), queue.offsets(), "the row that reaches 100 bytes seals");
        append(sealer, 0, d, 0, 3, 150);
        assertEquals(List.of(List.of(0L, 1L, 2L), List.of(3L)), queue.offsets(), "a row above max_bytes goes alone");
        assertEquals(150, queue.taken.get(1).byteCount());
        assertEquals(2, stats.sealedByBytes.get());
        assertEquals(0, stats.sealedByRows.get());
    }

    @Test
    void shouldSealOnLingerOnlyOnceItHasPassedSinceTheBatchOpened()
    {
        final Sealer sealer = sealer(new ChunkConfig(1000, 1 << 20, 5), new BatchPool(8, 1024, 16));
        final Destination a = destination(0, 0);
        final Destination b = destination(1, 0);
        append(sealer, 0, a, 0, 0, 8);
        assertEquals(T0 + TimeUnit.MILLISECONDS.toNanos(5), sealer.nextDeadlineNanos());
        clock.advance(TimeUnit.MILLISECONDS.toNanos(3));
        append(sealer, 0, a, 0, 1, 8);
        append(sealer, 0, b, 0, 100, 8);

        clock.update(T0 + TimeUnit.MILLISECONDS.toNanos(5) - 1);
        sealer.sealExpired(clock.nanoTime());
        assertEquals(List.of(), queue.offsets(), "one nanosecond before the linger of the first batch");

        clock.advance(1);
        sealer.sealExpired(clock.nanoTime());
        assertEquals(List.of(List.of(0L, 1L)), queue.offsets(), "the first batch, with the row added after it opened");
        assertEquals(T0 + TimeUnit.MILLISECONDS.toNanos(8), sealer.nextDeadlineNanos(), "b opened 3 ms later");

        clock.update(T0 + TimeUnit.MILLISECONDS.toNanos(8));
        sealer.sealExpired(clock.nanoTime());
        assertEquals(List.of(List.of(0L, 1L), List.of(100L)), queue.offsets());
        assertEquals(2, stats.sealedByLinger.get());
        assertEquals(Long.MAX_VALUE, sealer.nextDeadlineNanos());
        assertEquals(T0 + TimeUnit.MILLISECONDS.toNanos(8), queue.taken.get(1).sealedNanos(), "sealed on the clock");
    }

    @Test
    void shouldSealTheOldestOpenBatchOfTheBranchWhenItsPoolIsExhausted()
    {
        final BatchPool pool0 = new BatchPool(2, 1024, 16);
        final BatchPool pool1 = new BatchPool(2, 1024, 16);
        final ChunkConfig chunk = new ChunkConfig(1000, 1 << 20, LONG_LINGER_MS);
        final Sealer sealer = new Sealer(List.of(chunk, chunk), List.of(pool0, pool1),
            List.of(new SealedBatchQueue[][]{{queue}}, new SealedBatchQueue[][]{{queue}}), clock, stats);
        final Destination other = destination(0, 1);
        final Destination older = destination(5, 0);
        final Destination newer = destination(1, 0);
        final Destination third = destination(2, 0);
        append(sealer, 1, other, 0, 500, 8);
        clock.advance(1);
        append(sealer, 0, older, 0, 7, 8);
        append(sealer, 0, older, 0, 8, 8);
        clock.advance(1);
        append(sealer, 0, newer, 0, 9, 8);

        assertNull(sealer.batchFor(0, third, 0), "both buffers of branch 0 are open");
        assertEquals(List.of(List.of(7L, 8L)), queue.offsets(),
            "the oldest open batch of branch 0 (not the older one of branch 1, not the first in destination order)");
        assertNull(sealer.batchFor(0, third, 0), "nothing written yet: no buffer came back");
        assertEquals(List.of(List.of(7L, 8L), List.of(9L)), queue.offsets());
        assertEquals(2, stats.sealedByPool.get());
        assertNull(sealer.batchFor(0, third, 0), "nothing left to seal in branch 0");
        assertEquals(2, queue.taken.size());

        final BatchBuffer written = queue.taken.get(0);
        written.release();
        assertSame(written, sealer.batchFor(0, third, 0), "the buffer that came back");
        assertEquals(2, sealer.openBatches(), "branch 1's batch and the new one");
    }

    @Test
    void shouldKeepSealedBatchesInOrderWhileTheQueueIsFull()
    {
        final Sealer sealer = sealer(new ChunkConfig(1, 1 << 20, LONG_LINGER_MS), new BatchPool(8, 1024, 16));
        final Destination d = destination(0, 0);
        queue.room = 1;
        append(sealer, 0, d, 0, 0, 8);
        append(sealer, 0, d, 0, 1, 8);
        assertEquals(1, sealer.handOffsPending());
        append(sealer, 0, d, 0, 2, 8);
        assertEquals(2, sealer.handOffsPending(), "a later batch waits behind the kept one");
        assertEquals(2, sealer.retryHandOffs(), "still full");
        assertEquals(List.of(List.of(0L)), queue.offsets());
        assertEquals(1, stats.sealedByRows.get(), "counted when handed off");

        queue.room = 1;
        assertEquals(1, sealer.retryHandOffs(), "room for one: the first kept");
        assertEquals(List.of(List.of(0L), List.of(1L)), queue.offsets());
        queue.room = 10;
        assertEquals(0, sealer.retryHandOffs());
        assertEquals(List.of(List.of(0L), List.of(1L), List.of(2L)), queue.offsets());
        assertEquals(3, stats.sealedByRows.get());
    }

    @Test
    void shouldReleaseTheBatchesOfAStoppedWorkerUncounted()
    {
        final BatchPool pool = new BatchPool(1, 1024, 16);
        final Sealer sealer = sealer(new ChunkConfig(2, 1 << 20, LONG_LINGER_MS), pool);
        final Destination d = destination(0, 0);
        queue.closed = true;
        append(sealer, 0, d, 0, 0, 8);
        final BatchBuffer first = sealer.batchFor(0, d, 0);
        append(sealer, 0, d, 0, 1, 8);
        assertEquals(0, sealer.handOffsPending());
        assertEquals(0, stats.sealedByRows.get());
        assertSame(first, sealer.batchFor(0, d, 0), "the only buffer is free again: its rows stay unacknowledged");
        assertEquals(0, sealer.batchFor(0, d, 0).rowCount());
    }

    @Test
    void shouldHandEachBatchToTheQueueOfItsShardAndDestination()
    {
        final Queue[][] queues = {{new Queue(), new Queue()}, {new Queue(), new Queue()}};
        final Sealer sealer = new Sealer(List.of(new ChunkConfig(1, 1 << 20, LONG_LINGER_MS)),
            List.of(new BatchPool(8, 1024, 16)), List.<SealedBatchQueue[][]>of(queues), clock, stats);
        append(sealer, 0, destination(3, 0), 1, 30, 8);
        append(sealer, 0, destination(4, 0), 1, 40, 8);
        append(sealer, 0, destination(3, 0), 0, 31, 8);
        assertEquals(List.of(List.of(30L)), queues[1][1].offsets(), "shard 1, destination 3 % 2 workers");
        assertEquals(List.of(List.of(40L)), queues[1][0].offsets());
        assertEquals(List.of(List.of(31L)), queues[0][1].offsets());
        assertEquals(List.of(), queues[0][0].offsets());
    }

    @Test
    void shouldGiveBackABatchThatGotNoRow()
    {
        final BatchPool pool = new BatchPool(1, 1024, 16);
        final Sealer sealer = sealer(new ChunkConfig(10, 1 << 20, LONG_LINGER_MS), pool);
        final Destination d = destination(0, 0);
        final BatchBuffer b = sealer.batchFor(0, d, 0);
        sealer.discardIfEmpty(b);
        assertEquals(0, sealer.openBatches());
        assertSame(b, sealer.batchFor(0, destination(1, 0), 0), "back in the pool");
        sealer.flush();
        assertEquals(List.of(), queue.offsets(), "an empty batch is never handed off");
    }
}
