package io.sluice.core.scatter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.junit.jupiter.api.Test;

/**
 * A send that throws after kafka-clients queued the record (its error state is checked after the append) also
 * completes later, when the batch is aborted: each record is settled once and each delivery freed once, whichever
 * comes first. Seen on a producer without its WRITE ACL: "delivery pool over-released".
 */
class DeliveryTest
{
    private final List<Exception> completions = new ArrayList<>();
    private final Delivery.Completion owner = (d, error) ->
    {
        completions.add(error);
        return true;
    };

    @Test
    void shouldSettleOnceWhenTheSendThrowsAndItsAbortedBatchCompletesLater()
    {
        final DeliveryPool pool = new DeliveryPool(1);
        final Delivery d = start(pool, 7);
        assertEquals(1, pool.inFlight());
        assertFalse(pool.settledThrough(7));

        assertTrue(d.sendThrew(), "the throw came first: the produce stage settles the record");
        assertEquals(0, pool.inFlight(), "settled: no longer in flight");
        assertTrue(pool.settledThrough(7));
        assertNull(pool.tryAcquire(), "but not reusable while Kafka may still call it back");

        d.onCompletion(null, new KafkaException("aborted", new ClusterAuthorizationException("denied")));
        assertTrue(completions.isEmpty(), "the late completion settles nothing again");
        assertSame(d, pool.tryAcquire(), "and frees the delivery, once");
        assertEquals(1, pool.inFlight());
    }

    @Test
    void shouldLeaveTheRecordToTheCompletionWhenItCameBeforeTheThrow()
    {
        final DeliveryPool pool = new DeliveryPool(1);
        final Delivery d = start(pool, 3);
        final ClusterAuthorizationException denied = new ClusterAuthorizationException("denied");
        d.onCompletion(null, denied);
        assertEquals(List.of(denied), completions);
        assertFalse(d.sendThrew(), "the completion settled it: the produce stage must not settle it again");
        assertEquals(0, pool.inFlight());
        assertSame(d, pool.tryAcquire(), "freed by its completion");
        assertNull(pool.tryAcquire(), "and only once");
    }

    @Test
    void shouldIgnoreASecondCompletionOfOneSend()
    {
        final DeliveryPool pool = new DeliveryPool(2);
        final Delivery d = start(pool, 1);
        d.onCompletion(null, null);
        d.onCompletion(null, new KafkaException("again"));
        assertEquals(1, completions.size());
        assertNull(completions.get(0));
        assertNotNull(pool.tryAcquire());
        assertNotNull(pool.tryAcquire());
        assertNull(pool.tryAcquire(), "two deliveries, each free once");
    }

    private Delivery start(final DeliveryPool pool, final long sequence)
    {
        final Delivery d = pool.tryAcquire();
        d.start(owner, sequence, -1, 0, 0, sequence, 0, null, sequence);
        return d;
    }
}
