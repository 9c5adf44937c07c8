package io.sluice.bench.codecs;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.utils.Utils;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import io.sluice.codecs.hash.Murmur2;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;

/**
 * murmur2 of the {@code repo.name} of each GitHub event (real key lengths, 5 to 90 bytes): Sluice over off-heap
 * bytes and over byte arrays, against Kafka's {@code Utils.murmur2}. The off-heap keys are packed one after another
 * in one direct buffer, as compact as the arrays the JVM allocates back to back, so that both read from cache.
 * Scores are per key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Murmur2Benchmark
{
    private final byte[][] keys = new byte[BenchData.RECORDS][];
    private final UnsafeBuffer slab;
    private final int[] offsets = new int[BenchData.RECORDS];
    private final int[] lengths = new int[BenchData.RECORDS];

    /**
     * Extracts the keys once.
     */
    public Murmur2Benchmark()
    {
        final BenchData data = new BenchData();
        final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(List.of("repo.name")), 64);
        int total = 0;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            scanner.scan(data.slab, data.offsets[r], data.lengths[r]);
            keys[r] = new byte[scanner.valueLength(0)];
            data.slab.getBytes(scanner.valueOffset(0), keys[r]);
            total += keys[r].length;
        }
        slab = new UnsafeBuffer(ByteBuffer.allocateDirect(total));
        int at = 0;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            slab.putBytes(at, keys[r]);
            offsets[r] = at;
            lengths[r] = keys[r].length;
            at += lengths[r];
        }
        if (!new String(keys[0], StandardCharsets.UTF_8).contains("/"))
        {
            throw new IllegalStateException("unexpected key " + new String(keys[0], StandardCharsets.UTF_8));
        }
    }

    /**
     * Sluice, reading the key in place in the off-heap record.
     *
     * @param bh sink.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void sluiceOffHeap(final Blackhole bh)
    {
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            bh.consume(Murmur2.bucket(Murmur2.hash(slab, offsets[r], lengths[r]), 16));
        }
    }

    /**
     * Sluice over byte arrays.
     *
     * @param bh sink.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void sluiceArray(final Blackhole bh)
    {
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            bh.consume(Murmur2.bucket(Murmur2.hash(keys[r]), 16));
        }
    }

    /**
     * Kafka's own implementation.
     *
     * @param bh sink.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void kafkaUtils(final Blackhole bh)
    {
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            bh.consume(Utils.toPositive(Utils.murmur2(keys[r])) % 16);
        }
    }
}
