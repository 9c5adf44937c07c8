package io.sluice.core.ack;

import static io.sluice.core.ack.AckTracker.ACKED;
import static io.sluice.core.ack.AckTracker.ACK_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.FAIL_STALE_GENERATION;
import static io.sluice.core.ack.AckTracker.REGISTERED;
import static io.sluice.core.ack.AckTracker.WINDOW_FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongBinaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One source thread registers offsets and reads the watermark; three ack threads ack (or fail) them in random order,
 * interleaved so that neighbouring offsets are acked by different threads at the same time. Before acking, an ack
 * thread sets the offset's bit in a separate {@link AtomicLongArray}; every watermark the source thread reads is checked
 * against those bits: all offsets below it must be acked or gaps, and it must never pass the lowest failed offset.
 */
class AckTrackerStressTest
{
    private static final int WINDOW = 4096;
    private static final int ACKERS = 3;
    private static final int CHUNK = 96;
    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final LongBinaryOperator OR = (a, b) -> a | b;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldNeverPassAnUnackedOffsetWithThreeAckers() throws Exception
    {
        final Result result = new Harness(1, 0, 0, 0, false).run(5_000_000);

        assertEquals(0, result.staleAcks);
        assertEquals(0, result.invalidAcks);
        assertEquals(1, result.generations);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldNeverPassAnUnackedOffsetWithRandomGaps() throws Exception
    {
        final Result result = new Harness(2, 0.2, 0.00005, 0, false).run(5_000_000);

        assertEquals(0, result.staleAcks);
        assertEquals(0, result.invalidAcks);
        assertTrue(result.jumpsOrBigGaps > 50, "gaps wider than the window: " + result.jumpsOrBigGaps);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldNeverPassTheLowestFailedOffsetWithRandomFailsAndResets() throws Exception
    {
        final Result result = new Harness(3, 0.05, 0, 0.00005, true).run(5_000_000);

        assertEquals(0, result.invalidAcks);
        assertTrue(result.generations > 20, "generations: " + result.generations);
        assertTrue(result.staleAcks > 0, "resets must race with acks of the old generation");
    }

    private static final class Result
    {
        long staleAcks;
        long invalidAcks;
        int generations;
        long jumpsOrBigGaps;
    }

    /**
     * A batch of offsets for one ack thread, with the generation they were registered in.
     */
    private static final class Batch
    {
        final Generation generation;
        final long[] offsets;
        final boolean[] fails;

        Batch(final Generation generation, final long[] offsets, final boolean[] fails)
        {
            this.generation = generation;
            this.offsets = offsets;
            this.fails = fails;
        }
    }

    /**
     * Per-generation record of what the ack threads did, set before they tell the tracker.
     */
    private static final class Generation
    {
        final int id;
        final long base;
        final AtomicLongArray acked;
        final AtomicLong lowestFailed = new AtomicLong(Long.MAX_VALUE);
        final AtomicInteger outstandingBatches = new AtomicInteger();

        Generation(final int id, final long base, final int span)
        {
            this.id = id;
            this.base = base;
            this.acked = new AtomicLongArray((span >>> 6) + 2);
        }

        void markDone(final long offset)
        {
            final long index = offset - base;
            acked.accumulateAndGet((int)(index >>> 6), 1L << (index & 63), OR);
        }

        boolean isDone(final long offset)
        {
            final long index = offset - base;
            return (acked.get((int)(index >>> 6)) & (1L << (index & 63))) != 0;
        }
    }

    private static final class Harness
    {
        private final long seed;
        private final double gapProbability;
        private final double bigGapProbability;
        private final double failProbability;
        private final boolean resetOnFailure;
        private final List<Queue<Batch>> queues = new ArrayList<>();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private volatile boolean finished;

        private AckTracker tracker;
        private Generation generation;
        private long checkedUpTo;
        private long lastWatermark;
        private long lastProgressAt = System.nanoTime();
        private final Result result = new Result();

        Harness(
            final long seed,
            final double gapProbability,
            final double bigGapProbability,
            final double failProbability,
            final boolean resetOnFailure)
        {
            this.seed = seed;
            this.gapProbability = gapProbability;
            this.bigGapProbability = bigGapProbability;
            this.failProbability = failProbability;
            this.resetOnFailure = resetOnFailure;
        }

        Result run(final long offsetsToCover) throws Exception
        {
            try
            {
                return runUntilCovered(offsetsToCover);
            }
            finally
            {
                finished = true;
            }
        }

        private Result runUntilCovered(final long offsetsToCover) throws Exception
        {
            final Random random = new Random(seed);
            final int span = (int)offsetsToCover + 10 * WINDOW;
            tracker = new AckTracker("stress", 0, 0, WINDOW);
            generation = new Generation(tracker.generation(), 0, span);
            final Thread[] ackers = startAckers(random.nextLong());

            final long startNanos = System.nanoTime();
            long registered = 0;
            long next = 0;
            long lastRegistered = -1;
            final long[][] parts = new long[ACKERS][CHUNK];
            final boolean[][] partFails = new boolean[ACKERS][CHUNK];
            final int[] sizes = new int[ACKERS];
            int chunkSize = 0;

            while (next < offsetsToCover && null == error.get())
            {
                // decide the next record's offset; the offsets skipped are gaps, done before the tracker hears of them
                long offset = next;
                if (random.nextDouble() < bigGapProbability)
                {
                    offset += WINDOW + random.nextInt(WINDOW);
                    result.jumpsOrBigGaps++;
                }
                else
                {
                    while (random.nextDouble() < gapProbability)
                    {
                        offset++;
                    }
                }
                for (long gap = lastRegistered + 1; gap < offset; gap++)
                {
                    generation.markDone(gap);
                }

                int outcome;
                while (WINDOW_FULL == (outcome = tracker.tryRegister(offset)))
                {
                    chunkSize = flush(parts, partFails, sizes, random);
                    observe();
                    if (tracker.failed() && resetOnFailure)
                    {
                        break;
                    }
                    failIfStuck();
                    Thread.yield();
                }
                if (WINDOW_FULL == outcome)
                {
                    next = endGeneration(random);
                    lastRegistered = next - 1;
                    continue;
                }
                assertEquals(REGISTERED, outcome);

                final int acker = chunkSize % ACKERS;
                parts[acker][sizes[acker]] = offset;
                partFails[acker][sizes[acker]++] = random.nextDouble() < failProbability;
                registered++;
                lastRegistered = offset;
                next = offset + 1;
                if (++chunkSize == CHUNK)
                {
                    chunkSize = flush(parts, partFails, sizes, random);
                    observe();
                }
            }
            flush(parts, partFails, sizes, random);

            // drain: every batch of the last generation is acked or failed
            while (generation.outstandingBatches.get() > 0 && null == error.get())
            {
                observe();
                failIfStuck();
                Thread.yield();
            }
            final long watermark = observe();
            final long elapsedNanos = System.nanoTime() - startNanos;
            finished = true;
            for (final Thread acker : ackers)
            {
                acker.join();
            }
            rethrow();

            final long lowestFailed = generation.lowestFailed.get();
            if (Long.MAX_VALUE == lowestFailed)
            {
                assertEquals(tracker.registeredEnd(), watermark, "everything acked: the watermark is the end");
            }
            else
            {
                assertEquals(lowestFailed, watermark, "the watermark stops at the lowest failed offset");
            }

            result.staleAcks = tracker.staleAcks();
            result.invalidAcks = tracker.invalidAcks();
            result.generations = tracker.generation() - AckTracker.INITIAL_GENERATION + 1;
            System.out.printf(
                "AckTrackerStressTest seed=%d: %,d offsets covered, %,d registered in %d generation(s), %.0f ms, " +
                    "%,.0f registered offsets/s, stale acks %,d, gaps wider than the window %,d%n",
                seed, next, registered, result.generations, elapsedNanos / 1e6, registered * 1e9 / elapsedNanos,
                result.staleAcks, result.jumpsOrBigGaps);
            return result;
        }

        /**
         * The tracker failed and its window is full: seek back to the watermark and start a new generation, either
         * after the ack threads drained the old one (then the watermark must be exactly the lowest failed offset) or
         * at once, so that old acks race with the reset.
         */
        private long endGeneration(final Random random)
        {
            final boolean drain = random.nextBoolean();
            if (drain)
            {
                while (generation.outstandingBatches.get() > 0 && null == error.get())
                {
                    Thread.yield();
                }
                rethrow();
                final long watermark = observe();
                assertEquals(generation.lowestFailed.get(), watermark, "drained: stops at the lowest failed offset");
                assertEquals(watermark, tracker.failedOffset());
            }
            final long restart = observe();
            assertTrue(tracker.failed());
            assertTrue(restart <= generation.lowestFailed.get());

            tracker.reset(restart);
            lastProgressAt = System.nanoTime();
            generation = new Generation(tracker.generation(), restart, (int)(generation.acked.length() * 64L));
            checkedUpTo = restart;
            lastWatermark = restart;
            return restart;
        }

        /**
         * Reads the watermark on the source thread and checks it against what the ack threads did.
         */
        private long observe()
        {
            final long watermark = tracker.watermark();
            if (watermark < lastWatermark)
            {
                fail("watermark went back from " + lastWatermark + " to " + watermark);
            }
            if (watermark > tracker.registeredEnd())
            {
                fail("watermark " + watermark + " passed the registered end " + tracker.registeredEnd());
            }
            if (watermark > generation.lowestFailed.get())
            {
                fail("watermark " + watermark + " passed the failed offset " + generation.lowestFailed.get());
            }
            for (long offset = checkedUpTo; offset < watermark; offset++)
            {
                if (!generation.isDone(offset))
                {
                    fail("watermark " + watermark + " passed offset " + offset + ", which was not acked");
                }
            }
            if (watermark != lastWatermark)
            {
                lastProgressAt = System.nanoTime();
            }
            checkedUpTo = watermark;
            lastWatermark = watermark;
            return watermark;
        }

        /**
         * A watermark that stops moving while nothing failed is a bug (an offset the tracker never takes as done).
         */
        private void failIfStuck()
        {
            if (System.nanoTime() - lastProgressAt > STUCK_NANOS && !tracker.failed())
            {
                fail("no progress for 10 s: " + tracker + ", in flight " + tracker.inFlight() +
                    ", batches outstanding " + generation.outstandingBatches.get());
            }
        }

        private int flush(
            final long[][] parts, final boolean[][] partFails, final int[] sizes, final Random random)
        {
            for (int acker = 0; acker < ACKERS; acker++)
            {
                final int size = sizes[acker];
                if (0 == size)
                {
                    continue;
                }
                final long[] offsets = new long[size];
                final boolean[] fails = new boolean[size];
                System.arraycopy(parts[acker], 0, offsets, 0, size);
                System.arraycopy(partFails[acker], 0, fails, 0, size);
                for (int i = size - 1; i > 0; i--)
                {
                    final int j = random.nextInt(i + 1);
                    final long offset = offsets[i];
                    offsets[i] = offsets[j];
                    offsets[j] = offset;
                    final boolean failed = fails[i];
                    fails[i] = fails[j];
                    fails[j] = failed;
                }
                generation.outstandingBatches.incrementAndGet();
                queues.get(acker).add(new Batch(generation, offsets, fails));
                sizes[acker] = 0;
            }
            return 0;
        }

        private Thread[] startAckers(final long ackerSeed)
        {
            final Thread[] threads = new Thread[ACKERS];
            for (int i = 0; i < ACKERS; i++)
            {
                final Queue<Batch> queue = new ConcurrentLinkedQueue<>();
                queues.add(queue);
                threads[i] = new Thread(() -> ackLoop(queue), "acker-" + i);
                threads[i].setDaemon(true);
                threads[i].start();
            }
            return threads;
        }

        private void ackLoop(final Queue<Batch> queue)
        {
            try
            {
                while (true)
                {
                    final Batch batch = queue.poll();
                    if (null == batch)
                    {
                        if (finished)
                        {
                            return;
                        }
                        Thread.yield();
                        continue;
                    }

                    final Generation gen = batch.generation;
                    if (ackAllInOne(batch))
                    {
                        gen.outstandingBatches.decrementAndGet();
                        continue;
                    }
                    for (int i = 0; i < batch.offsets.length; i++)
                    {
                        final long offset = batch.offsets[i];
                        if (batch.fails[i])
                        {
                            gen.lowestFailed.accumulateAndGet(offset, Math::min);
                            final int outcome = tracker.fail(offset, gen.id, 500, "insert failed at " + offset);
                            if (outcome < 0 && FAIL_STALE_GENERATION != outcome)
                            {
                                throw new AssertionError("fail " + offset + " returned " + outcome);
                            }
                        }
                        else
                        {
                            gen.markDone(offset);
                            final int outcome = tracker.ack(offset, gen.id);
                            if (ACKED != outcome && ACK_STALE_GENERATION != outcome)
                            {
                                throw new AssertionError("ack " + offset + " returned " + outcome);
                            }
                            if (ACK_STALE_GENERATION == outcome && gen.id == tracker.generation())
                            {
                                throw new AssertionError("ack " + offset + " of the current generation was stale");
                            }
                        }
                    }
                    gen.outstandingBatches.decrementAndGet();
                }
            }
            catch (final Throwable ex)
            {
                error.compareAndSet(null, ex);
            }
        }

        /**
         * Every other batch without fails is acked with one {@link AckTracker#ackAll} call, sorted as a sink worker
         * would have it.
         */
        private boolean ackAllInOne(final Batch batch)
        {
            final long[] offsets = batch.offsets;
            if ((offsets[0] & 1) == 0)
            {
                return false;
            }
            for (final boolean failed : batch.fails)
            {
                if (failed)
                {
                    return false;
                }
            }

            final Generation gen = batch.generation;
            final long[] sorted = offsets.clone();
            Arrays.sort(sorted);
            for (final long offset : sorted)
            {
                gen.markDone(offset);
            }
            final int acked = tracker.ackAll(sorted, 0, sorted.length, gen.id);
            if (acked != sorted.length && gen.id == tracker.generation())
            {
                throw new AssertionError(
                    "ackAll acked " + acked + " of " + sorted.length + " in the current generation");
            }
            return true;
        }

        private void rethrow()
        {
            final Throwable ex = error.get();
            if (null != ex)
            {
                throw new AssertionError("ack thread failed", ex);
            }
        }
    }
}
