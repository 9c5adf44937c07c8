package io.sluice.bench.ack;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.sluice.core.ack.AckTracker;

/**
 * The per-partition {@link AckTracker} on one thread: register a run of {@link #RUN} offsets (the source), acknowledge
 * them (the insert worker) either in order or in a shuffled order (as batches of several tables complete out of
 * order), then read the watermark (the commit). Scores are per offset; {@code -prof gc} should show 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AckTrackerBenchmark {
    /** Offsets per invocation. */
    static final int RUN = 4096;

    private final AckTracker tracker = new AckTracker("bench", 0, 0, 1 << 18);
    private final int[] shuffled = new int[RUN];
    private long next;

    /** Prepares a fixed random permutation of the run. */
    @Setup
    public void setUp() {
        for (int i = 0; i < RUN; i++) {
            shuffled[i] = i;
        }
        final Random random = new Random(42);
        for (int i = RUN - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final int t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
    }

    /**
     * Register, acknowledge in order, watermark.
     *
     * @return the watermark
     */
    @Benchmark
    @OperationsPerInvocation(RUN)
    public long inOrder() {
        final AckTracker t = tracker;
        final long base = next;
        final int gen = t.generation();
        for (int i = 0; i < RUN; i++) {
            t.tryRegister(base + i);
        }
        for (int i = 0; i < RUN; i++) {
            t.ack(base + i, gen);
        }
        next = base + RUN;
        return t.watermark();
    }

    /**
     * Register, acknowledge in a shuffled order, watermark.
     *
     * @return the watermark
     */
    @Benchmark
    @OperationsPerInvocation(RUN)
    public long outOfOrder() {
        final AckTracker t = tracker;
        final long base = next;
        final int gen = t.generation();
        for (int i = 0; i < RUN; i++) {
            t.tryRegister(base + i);
        }
        final int[] order = shuffled;
        for (int i = 0; i < RUN; i++) {
            t.ack(base + order[i], gen);
        }
        next = base + RUN;
        return t.watermark();
    }
}
