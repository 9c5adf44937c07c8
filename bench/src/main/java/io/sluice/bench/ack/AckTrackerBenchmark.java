package io.sluice.bench.ack;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.sluice.core.ack.AckTracker;

/**
 * Throughput of {@link AckTracker}, in nanoseconds per offset.
 *
 * <ul>
 *   <li>{@code registerAckWatermark}: one offset at a time on one thread (register, ack, watermark).</li>
 *   <li>{@code registerAckBatch}: 64 offsets registered, acked in a shuffled order, then one watermark: the shape of
 *   a poll batch.</li>
 *   <li>{@code registerAckWatermarkCachedClock}: the same with a cached clock, without the two
 *   {@link System#nanoTime()} calls.</li>
 *   <li>{@code ackOneThread} / {@code ackTwoThreads}: 4096 offsets registered, acked in order by one thread, or by
 *   two threads at once (each takes every other offset, so both hit the same slots: worst-case contention; or each
 *   takes one half), one {@code ack} per offset or one {@code ackAll} per thread, then one watermark.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar AckTrackerBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AckTrackerBenchmark
{
    private static final int BATCH = 64;
    private static final int CONTENDED_BATCH = 4096;

    /**
     * One tracker and a shuffled ack order for the single-threaded benchmarks.
     */
    @State(Scope.Thread)
    public static class SingleThread
    {
        AckTracker tracker;
        int generation;
        long next;
        final int[] order = new int[BATCH];

        /**
         * Creates the tracker (window 65536) and a fixed shuffled ack order.
         */
        @Setup(Level.Trial)
        public void setUp()
        {
            tracker = new AckTracker("bench", 0, 0, 65536);
            generation = tracker.generation();
            next = 0;
            final Random random = new Random(42);
            for (int i = 0; i < BATCH; i++)
            {
                order[i] = i;
            }
            for (int i = BATCH - 1; i > 0; i--)
            {
                final int j = random.nextInt(i + 1);
                final int swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
        }
    }

    /**
     * Registers, acks and commits one offset.
     *
     * @param state the tracker.
     * @return the watermark.
     */
    @Benchmark
    public long registerAckWatermark(final SingleThread state)
    {
        final AckTracker tracker = state.tracker;
        final long offset = state.next++;
        tracker.tryRegister(offset);
        tracker.ack(offset, state.generation);
        return tracker.watermark();
    }

    /**
     * One tracker whose clock is a cached value (what an engine gets from a clock its duty cycle updates, such as
     * Agrona's {@code CachedNanoClock}), so the score is the tracker's own cost without {@link System#nanoTime()}.
     */
    @State(Scope.Thread)
    public static class CachedClock
    {
        AckTracker tracker;
        int generation;
        long next;
        long now = 1;

        /**
         * Creates the tracker (window 65536) over the cached clock.
         */
        @Setup(Level.Trial)
        public void setUp()
        {
            tracker = new AckTracker("bench", 0, 0, 65536, () -> now);
            generation = tracker.generation();
        }
    }

    /**
     * {@link #registerAckWatermark} with a cached clock instead of {@link System#nanoTime()}.
     *
     * @param state the tracker.
     * @return the watermark.
     */
    @Benchmark
    public long registerAckWatermarkCachedClock(final CachedClock state)
    {
        final AckTracker tracker = state.tracker;
        final long offset = state.next++;
        tracker.tryRegister(offset);
        tracker.ack(offset, state.generation);
        return tracker.watermark();
    }

    /**
     * Registers 64 offsets, acks them in a shuffled order, then computes the watermark once.
     *
     * @param state the tracker.
     * @return the watermark.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long registerAckBatch(final SingleThread state)
    {
        final AckTracker tracker = state.tracker;
        final int generation = state.generation;
        final int[] order = state.order;
        final long first = state.next;
        for (int i = 0; i < BATCH; i++)
        {
            tracker.tryRegister(first + i);
        }
        for (int i = 0; i < BATCH; i++)
        {
            tracker.ack(first + order[i], generation);
        }
        state.next = first + BATCH;
        return tracker.watermark();
    }

    /**
     * A tracker (window 8192) and a second ack thread that acks its share of each batch while the benchmark thread
     * acks the rest.
     */
    @State(Scope.Thread)
    public static class TwoThreads
    {
        /** {@code interleaved}: each thread takes every other offset; {@code halves}: each takes one half. */
        @Param({"interleaved", "halves"})
        public String split;

        /** {@code single}: one {@code ack} call per offset; {@code batch}: one {@code ackAll} call per share. */
        @Param({"single", "batch"})
        public String ack;

        AckTracker tracker;
        int generation;
        long next;
        boolean interleaved;
        boolean batch;
        final long[][] shares = new long[2][CONTENDED_BATCH / 2];
        Thread helper;
        volatile long batchStart = -1;
        volatile long helperDone = -1;
        volatile boolean running;

        /**
         * Creates the tracker (window 8192) and starts the helper thread.
         */
        @Setup(Level.Trial)
        public void setUp()
        {
            tracker = new AckTracker("bench", 0, 0, 8192);
            generation = tracker.generation();
            interleaved = "interleaved".equals(split);
            batch = "batch".equals(ack);
            running = true;
            helper = new Thread(this::helperLoop, "ack-helper");
            helper.setDaemon(true);
            helper.start();
        }

        /**
         * Stops the helper thread.
         *
         * @throws InterruptedException if interrupted while joining.
         */
        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            helper.join();
        }

        private void helperLoop()
        {
            long seen = -1;
            while (running)
            {
                final long start = batchStart;
                if (start == seen)
                {
                    Thread.onSpinWait();
                    continue;
                }
                seen = start;
                ackShare(start, 1);
                helperDone = start;
            }
        }

        void ackShare(final long start, final int share)
        {
            final AckTracker tracker = this.tracker;
            final int generation = this.generation;
            final int half = CONTENDED_BATCH / 2;
            final long first = interleaved ? start + share : start + (long)share * half;
            final int step = interleaved ? 2 : 1;
            if (batch)
            {
                final long[] offsets = shares[share];
                for (int i = 0; i < half; i++)
                {
                    offsets[i] = first + (long)i * step;
                }
                tracker.ackAll(offsets, 0, half, generation);
            }
            else
            {
                for (int i = 0; i < half; i++)
                {
                    tracker.ack(first + (long)i * step, generation);
                }
            }
        }
    }

    /**
     * Registers 4096 offsets; this thread and the helper ack them at the same time; then one watermark.
     *
     * @param state the tracker and helper.
     * @return the watermark.
     */
    @Benchmark
    @OperationsPerInvocation(CONTENDED_BATCH)
    public long ackTwoThreads(final TwoThreads state)
    {
        final AckTracker tracker = state.tracker;
        final long start = state.next;
        for (int i = 0; i < CONTENDED_BATCH; i++)
        {
            tracker.tryRegister(start + i);
        }
        state.batchStart = start;
        state.ackShare(start, 0);
        while (state.helperDone != start)
        {
            Thread.onSpinWait();
        }
        state.next = start + CONTENDED_BATCH;
        return tracker.watermark();
    }

    /**
     * The same batch as {@link #ackTwoThreads}, acked in order by this thread alone: the baseline for the cost of
     * contention.
     *
     * @param state the tracker.
     * @return the watermark.
     */
    @Benchmark
    @OperationsPerInvocation(CONTENDED_BATCH)
    public long ackOneThread(final SingleThread state)
    {
        final AckTracker tracker = state.tracker;
        final int generation = state.generation;
        final long start = state.next;
        for (int i = 0; i < CONTENDED_BATCH; i++)
        {
            tracker.tryRegister(start + i);
        }
        for (int i = 0; i < CONTENDED_BATCH; i++)
        {
            tracker.ack(start + i, generation);
        }
        state.next = start + CONTENDED_BATCH;
        return tracker.watermark();
    }
}
