package io.sluice.tuning;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.TimeoutBlockingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WaitStrategiesTest
{
    private static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(10);

    /** The event: one long, like a slot index. */
    static final class LongEvent
    {
        long value;
    }

    /** Counts events, their sum and the onTimeout calls, as the sealer would. */
    static final class CountingHandler implements EventHandler<LongEvent>
    {
        final AtomicLong events = new AtomicLong();
        final AtomicLong sum = new AtomicLong();
        final AtomicInteger timeouts = new AtomicInteger();
        final AtomicLong lastTimeoutSequence = new AtomicLong(Long.MIN_VALUE);

        @Override
        public void onEvent(final LongEvent event, final long sequence, final boolean endOfBatch)
        {
            sum.addAndGet(event.value);
            events.incrementAndGet();
        }

        @Override
        public void onTimeout(final long sequence)
        {
            lastTimeoutSequence.set(sequence);
            timeouts.incrementAndGet();
        }
    }

    /** A started ring with one handler, and the threads it made, so a test can halt it and see them end. */
    static final class Ring implements AutoCloseable
    {
        final Disruptor<LongEvent> disruptor;
        final CountingHandler handler = new CountingHandler();
        final List<Thread> threads = new ArrayList<>();

        Ring(final WaitStrategy waitStrategy)
        {
            final ThreadFactory factory = r ->
            {
                final Thread t = new Thread(r, "wait-strategies-test");
                t.setDaemon(true);
                threads.add(t);
                return t;
            };
            disruptor = new Disruptor<>(LongEvent::new, 8, factory, ProducerType.SINGLE, waitStrategy);
            disruptor.handleEventsWith(handler);
            disruptor.start();
        }

        void publish(final long value)
        {
            final RingBuffer<LongEvent> ring = disruptor.getRingBuffer();
            final long sequence = ring.next();
            ring.get(sequence).value = value;
            ring.publish(sequence);
        }

        @Override
        public void close()
        {
            disruptor.halt();
            for (final Thread t : threads)
            {
                try
                {
                    t.join(TimeUnit.SECONDS.toMillis(5));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while joining " + t.getName(), e);
                }
                assertFalse(t.isAlive(), "event processor thread did not stop on halt");
            }
        }
    }

    private static boolean awaitAtLeast(final AtomicInteger counter, final int n, final long withinMs)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(withinMs);
        while (counter.get() < n && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(1);
        }
        return counter.get() >= n;
    }

    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldDeliverOnTimeoutWhenTheRingIsIdle(final WaitKind kind) throws InterruptedException
    {
        try (Ring ring = new Ring(WaitStrategies.forStage(kind, TIMEOUT_NS)))
        {
            // 10 ms timeout: at least 3 deliveries within ~200 ms is about delivery, not speed.
            assertTrue(awaitAtLeast(ring.handler.timeouts, 3, 200),
                kind + " delivered " + ring.handler.timeouts.get() + " onTimeout calls in 200 ms");
            assertEquals(-1, ring.handler.lastTimeoutSequence.get(), "nothing consumed yet");
        }
    }

    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldDeliverOnTimeoutAgainAfterEvents(final WaitKind kind) throws InterruptedException
    {
        try (Ring ring = new Ring(WaitStrategies.forStage(kind, TIMEOUT_NS)))
        {
            ring.publish(7);
            ring.publish(8);
            final int before = ring.handler.timeouts.get();
            assertTrue(awaitAtLeast(ring.handler.timeouts, before + 2, 200), kind + ": no onTimeout after events");
            assertEquals(2, ring.handler.events.get());
            assertEquals(1, ring.handler.lastTimeoutSequence.get(), "onTimeout reports the last processed sequence");
        }
    }

    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldNotDeliverOnTimeoutWithoutATimeout(final WaitKind kind) throws InterruptedException
    {
        try (Ring ring = new Ring(WaitStrategies.forStage(kind, 0)))
        {
            ring.publish(1);
            Thread.sleep(100);
            assertEquals(0, ring.handler.timeouts.get());
            assertEquals(1, ring.handler.events.get());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldDeliverEveryEventInOrderWithATimeout(final WaitKind kind) throws InterruptedException
    {
        final int count = 20_000;
        try (Ring ring = new Ring(WaitStrategies.forStage(kind, TimeUnit.MICROSECONDS.toNanos(200))))
        {
            long expectedSum = 0;
            for (int i = 0; i < count; i++)
            {
                ring.publish(i);
                expectedSum += i;
                if ((i & 1023) == 0)
                {
                    Thread.sleep(1); // let the ring go idle now and then, so timeouts and wake-ups interleave
                }
            }

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ring.handler.events.get() < count && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(1);
            }
            assertEquals(count, ring.handler.events.get());
            assertEquals(expectedSum, ring.handler.sum.get());
        }
    }

    @Test
    void shouldUseTheDisruptorsOwnStrategiesWithoutATimeout()
    {
        assertInstanceOf(BusySpinWaitStrategy.class, WaitStrategies.forStage(WaitKind.BUSY_SPIN));
        assertInstanceOf(YieldingWaitStrategy.class, WaitStrategies.forStage(WaitKind.YIELDING));
        assertInstanceOf(SleepingWaitStrategy.class, WaitStrategies.forStage(WaitKind.SLEEPING));
        assertInstanceOf(BlockingWaitStrategy.class, WaitStrategies.forStage(WaitKind.BLOCKING));
        assertInstanceOf(PhasedBackoffWaitStrategy.class, WaitStrategies.forStage(WaitKind.PHASED));
        assertInstanceOf(BlockingWaitStrategy.class, WaitStrategies.forStage(WaitKind.BLOCKING, -5));
    }

    @Test
    void shouldUseTimeoutBlockingForBlockingWithATimeout()
    {
        assertInstanceOf(TimeoutBlockingWaitStrategy.class, WaitStrategies.forStage(WaitKind.BLOCKING, TIMEOUT_NS));
        assertInstanceOf(PhasedBackoffWaitStrategy.class, WaitStrategies.forStage(WaitKind.PHASED, TIMEOUT_NS));
    }

    @Test
    void shouldRejectANullKind()
    {
        assertThrows(NullPointerException.class, () -> WaitStrategies.forStage(null, TIMEOUT_NS));
        assertThrows(NullPointerException.class, () -> WaitStrategies.idleStrategy(null));
    }

    @Test
    void shouldMapEachKindToAnAgronaIdleStrategy()
    {
        assertSame(BusySpinIdleStrategy.INSTANCE, WaitStrategies.idleStrategy(WaitKind.BUSY_SPIN));
        assertSame(YieldingIdleStrategy.INSTANCE, WaitStrategies.idleStrategy(WaitKind.YIELDING));
        assertInstanceOf(SleepingIdleStrategy.class, WaitStrategies.idleStrategy(WaitKind.SLEEPING));
        assertInstanceOf(BackoffIdleStrategy.class, WaitStrategies.idleStrategy(WaitKind.BLOCKING));
        assertInstanceOf(BackoffIdleStrategy.class, WaitStrategies.idleStrategy(WaitKind.PHASED));
    }

    @Test
    void shouldGiveEachThreadItsOwnStatefulIdleStrategy()
    {
        final IdleStrategy a = WaitStrategies.idleStrategy(WaitKind.PHASED);
        final IdleStrategy b = WaitStrategies.idleStrategy(WaitKind.PHASED);
        assertNotSame(a, b);
    }

    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldReturnFromIdleWithinAFewMilliseconds(final WaitKind kind)
    {
        final IdleStrategy idle = WaitStrategies.idleStrategy(kind);
        final long start = System.nanoTime();
        for (int i = 0; i < 50; i++)
        {
            idle.idle(0);
        }
        idle.idle(1);
        // 50 idle calls: the longest park is 1 ms, so this ends well within a second whatever the kind.
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1));
    }
}
