package io.sluice.bench.stage;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.sluice.core.stage.PaddedAtomicLong;
import io.sluice.core.stage.PipelineStats;

/**
 * Two threads count at once into two counters of one stats object, as the source thread ({@code recordsIn}) and the
 * route stage ({@code recordsRouted}) do per record, with the write the stages use (a plain read and an ordered
 * write: {@code lazySet(get() + 1)}). {@code padded} writes the fields of a real {@link PipelineStats}
 * ({@link PaddedAtomicLong}); {@code unpadded} two plain {@link AtomicLong}s allocated one after the other, the
 * layout before. On two cores the unpadded pair shares a cache line and each write invalidates the other thread's
 * copy; the score is counts per microsecond per thread (higher is better).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar CounterSharingBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
public class CounterSharingBenchmark
{
    /** Two counters allocated one after the other, as the stats objects had them. */
    @State(Scope.Group)
    public static class Unpadded
    {
        final AtomicLong in = new AtomicLong();
        final AtomicLong routed = new AtomicLong();
    }

    /** The stats object the engine uses. */
    @State(Scope.Group)
    public static class Padded
    {
        final PipelineStats stats = new PipelineStats();
    }

    /** @return the source's count */
    @Benchmark
    @Group("unpadded")
    @GroupThreads(1)
    public long unpaddedSource(final Unpadded s)
    {
        final AtomicLong c = s.in;
        c.lazySet(c.get() + 1);
        return c.get();
    }

    /** @return the route stage's count */
    @Benchmark
    @Group("unpadded")
    @GroupThreads(1)
    public long unpaddedRoute(final Unpadded s)
    {
        final AtomicLong c = s.routed;
        c.lazySet(c.get() + 1);
        return c.get();
    }

    /** @return the source's count */
    @Benchmark
    @Group("padded")
    @GroupThreads(1)
    public long paddedSource(final Padded s)
    {
        final AtomicLong c = s.stats.recordsIn;
        c.lazySet(c.get() + 1);
        return c.get();
    }

    /** @return the route stage's count */
    @Benchmark
    @Group("padded")
    @GroupThreads(1)
    public long paddedRoute(final Padded s)
    {
        final AtomicLong c = s.stats.recordsRouted;
        c.lazySet(c.get() + 1);
        return c.get();
    }
}
