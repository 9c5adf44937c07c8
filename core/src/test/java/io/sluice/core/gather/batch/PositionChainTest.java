package io.sluice.core.gather.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.StoredPositions;

/**
 * The route stage's side of exactly-once: which records a table holds already (by the positions stored for the
 * partition's generation), and the chain of expected positions its batches carry: each batch of a (table, partition)
 * expects the end of the one before, the first the stored position, and a reset starts over from the positions read
 * again.
 */
class PositionChainTest
{
    private static final String KEY = "pg:\"public\".\"a\"";
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean)ManagementFactory
        .getThreadMXBean();

    private final PartitionTrackers trackers = new PartitionTrackers(1024);
    private final TopicPartition p0 = new TopicPartition("orders", 0);
    private final TopicPartition p1 = new TopicPartition("orders", 1);
    private final AckTracker t0 = trackers.trackerFor(p0, 0);
    private final AckTracker t1 = trackers.trackerFor(p1, 0);
    private final int id0 = trackers.idOf(p0);
    private final int id1 = trackers.idOf(p1);
    private final PositionChain chain = new PositionChain(KEY);
    private final Destination dest = destination(chain);
    private final BatchPool pool = new BatchPool(4, 4096, 16, 1000);

    private static Destination destination(final PositionChain c)
    {
        final Destination d = new Destination(0, 0, "b", "public", "a", "\"public\".\"a\"", List.of(), "pg", null);
        d.positions(c);
        return d;
    }

    private BatchBuffer open()
    {
        final BatchBuffer b = pool.tryAcquire();
        b.open(dest, 0, 0);
        return b;
    }

    @Test
    void shouldHoldRecordsBelowTheStoredPositionOfTheirOwnTableOnly()
    {
        assertEquals(PositionChain.UNKNOWN, chain.check(trackers, id0, t0.generation(), 5));
        assertTrue(chain.problem().contains("not read"), chain.problem());

        trackers.storePositions(id0, new StoredPositions(t0.generation(), Map.of(KEY, 10L, "pg:other", 50L), null));
        trackers.storePositions(id1, new StoredPositions(t1.generation(), Map.of("pg:other", 7L), null));
        assertEquals(PositionChain.HELD, chain.check(trackers, id0, t0.generation(), 0));
        assertEquals(PositionChain.HELD, chain.check(trackers, id0, t0.generation(), 9));
        assertEquals(PositionChain.WRITE, chain.check(trackers, id0, t0.generation(), 10));
        assertEquals(10, chain.heldBelow(id0));
        // another table's position says nothing about this one
        assertEquals(PositionChain.WRITE, chain.check(trackers, id1, t1.generation(), 0));
        assertEquals(0, chain.heldBelow(id1));
    }

    @Test
    void shouldChainEachBatchOnTheEndOfTheOneBefore()
    {
        trackers.storePositions(id0, new StoredPositions(t0.generation(), Map.of(KEY, 10L), null));
        trackers.storePositions(id1, new StoredPositions(t1.generation(), Map.of(), null));
        chain.check(trackers, id0, t0.generation(), 10);
        chain.check(trackers, id1, t1.generation(), 3);

        final BatchBuffer first = open();
        first.addRow(id0, t0.generation(), 10, 0);
        first.addRow(id1, t1.generation(), 3, 0);
        first.addRow(id0, t0.generation(), 14, 0);
        assertEquals(2, first.partitionCount());
        assertEquals(id0, first.partitionTrackerId(0));
        assertEquals(10, first.partitionExpected(0), "the stored position");
        assertEquals(10, first.partitionFirstOffset(0));
        assertEquals(14, first.partitionLastOffset(0));
        assertEquals(id1, first.partitionTrackerId(1));
        assertEquals(0, first.partitionExpected(1), "no position stored: 0");
        assertEquals(3, first.partitionLastOffset(1));

        final BatchBuffer second = open();
        // records 15..19 went to other tables: the chain still starts where this table's last batch ended
        second.addRow(id0, t0.generation(), 20, 0);
        assertEquals(1, second.partitionCount());
        assertEquals(15, second.partitionExpected(0));
        assertEquals(20, second.partitionLastOffset(0));
    }

    @Test
    void shouldStartOverFromThePositionsReadAgainAfterAReset()
    {
        final int g1 = t0.generation();
        trackers.storePositions(id0, new StoredPositions(g1, Map.of(KEY, 10L), null));
        chain.check(trackers, id0, g1, 12);
        open().addRow(id0, g1, 12, 0);

        t0.reset(10);
        final int g2 = t0.generation();
        assertEquals(PositionChain.STALE, chain.check(trackers, id0, g1, 13), "a record of the old generation");
        assertEquals(PositionChain.UNKNOWN, chain.check(trackers, id0, g2, 10), "positions not read again yet");
        // the batch with 12 was written: the table holds up to 13
        trackers.storePositions(id0, new StoredPositions(g2, Map.of(KEY, 13L), null));
        assertEquals(PositionChain.HELD, chain.check(trackers, id0, g2, 12));
        assertEquals(PositionChain.WRITE, chain.check(trackers, id0, g2, 13));
        final BatchBuffer b = open();
        b.addRow(id0, g2, 13, 0);
        assertEquals(13, b.partitionExpected(0));
    }

    @Test
    void shouldStopAPartitionWhosePositionsCannotBeUsed()
    {
        trackers.storePositions(id0, new StoredPositions(t0.generation(), Map.of(KEY, 900L),
            "table pg:\"public\".\"a\" holds orders-0 up to offset 900, above the partition's end offset 12"));
        assertEquals(PositionChain.UNKNOWN, chain.check(trackers, id0, t0.generation(), 0));
        assertTrue(chain.problem().contains("above the partition's end offset 12"), chain.problem());
    }

    @Test
    void shouldAllocateNothingPerRow()
    {
        trackers.storePositions(id0, new StoredPositions(t0.generation(), Map.of(KEY, 0L), null));
        final BatchBuffer b = open();
        final int rows = 100_000;
        for (int i = 0; i < rows; i++)
        {
            chain.check(trackers, id0, t0.generation(), i);
            b.addRow(id0, t0.generation(), i, 0);
        }
        b.open(dest, 0, 0);
        final long thread = Thread.currentThread().getId();
        final long before = THREADS.getThreadAllocatedBytes(thread);
        for (int i = rows; i < 2 * rows; i++)
        {
            chain.check(trackers, id0, t0.generation(), i);
            b.addRow(id0, t0.generation(), i, 0);
        }
        final long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < 0.05 * rows, "allocated " + allocated + " bytes for " + rows + " rows");
        assertEquals(rows, b.partitionExpected(0));
    }
}
