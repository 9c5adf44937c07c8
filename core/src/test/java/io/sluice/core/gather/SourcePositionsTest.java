package io.sluice.core.gather;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.ack.StoredPositions;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.batch.PositionChain;

/**
 * What the insert worker hands an exactly-once writer: per partition of a batch (or of a part of a refused batch),
 * the topic, partition, the range the stored position must be in, and the position after the write.
 */
class SourcePositionsTest
{
    @Test
    void shouldCarryEachPartitionsRangeForTheBatchAndForAPart()
    {
        final PartitionTrackers trackers = new PartitionTrackers(1024);
        final TopicPartition a = new TopicPartition("orders.eu", 3);
        final TopicPartition b = new TopicPartition("orders.us", 0);
        final AckTracker ta = trackers.trackerFor(a, 0);
        final AckTracker tb = trackers.trackerFor(b, 0);
        final int ia = trackers.idOf(a);
        final int ib = trackers.idOf(b);
        final PositionChain chain = new PositionChain("pg:t");
        trackers.storePositions(ia, new StoredPositions(ta.generation(), Map.of("pg:t", 100L), null));
        trackers.storePositions(ib, new StoredPositions(tb.generation(), Map.of(), null));
        final Destination d = new Destination(0, 0, "b", "public", "t", "\"public\".\"t\"", List.of(), "pg", null);
        d.positions(chain);
        final BatchBuffer batch = new BatchPool(1, 4096, 16, 100).tryAcquire();
        batch.open(d, 0, 0);
        final long[][] rows = {{ia, 100}, {ib, 5}, {ia, 101}, {ia, 104}, {ib, 9}};
        for (final long[] r : rows)
        {
            chain.check(trackers, (int)r[0], trackers.get((int)r[0]).generation(), r[1]);
            batch.addRow((int)r[0], trackers.get((int)r[0]).generation(), r[1], 0);
        }

        final SourcePositions p = new SourcePositions("sluice-pg");
        p.fill(batch, trackers);
        assertEquals("sluice-pg", p.group());
        assertEquals(2, p.count());
        assertEquals("orders.eu", p.topic(0));
        assertEquals(3, p.partition(0));
        assertEquals(100, p.expectedLow(0));
        assertEquals(100, p.expectedHigh(0));
        assertEquals(105, p.next(0));
        assertEquals("orders.us", p.topic(1));
        assertEquals(0, p.expectedLow(1));
        assertEquals(10, p.next(1));

        // a part of rows 3 and 4: rows 0..2 were written or refused before it, in row order
        p.fill(batch, new int[]{3, 4}, 2, trackers);
        assertEquals(2, p.count());
        assertEquals(100, p.expectedLow(0));
        assertEquals(104, p.expectedHigh(0));
        assertEquals(105, p.next(0));
        assertEquals(0, p.expectedLow(1));
        assertEquals(9, p.expectedHigh(1));
        assertEquals(10, p.next(1));

        // a part with one partition only
        p.fill(batch, new int[]{1}, 1, trackers);
        assertEquals(1, p.count());
        assertEquals("orders.us", p.topic(0));
        assertEquals(5, p.expectedHigh(0));
        assertEquals(6, p.next(0));
    }
}
