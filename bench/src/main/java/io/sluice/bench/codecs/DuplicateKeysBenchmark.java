package io.sluice.bench.codecs;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import io.sluice.codecs.json.DuplicateKeys;
import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;

/**
 * What the duplicate-key policies cost on the GitHub events of {@link ExtractionBenchmark} (keys all distinct):
 * {@code first} may stop once every path is found, {@code fail} and {@code last} must read the whole record. With
 * the 7 paths of {@link ExtractionBenchmark} ({@code paths = 7}) the last one, {@code created_at}, follows the large
 * {@code payload}, so stopping early saves little; with only {@code type} ({@code paths = 1}, what a split's
 * classifier typically reads) {@code first} stops after the second member. {@link #elements} scans the same records
 * as the elements of top-level arrays of 8 (the array-splitting option). Scores are per record.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DuplicateKeysBenchmark
{
    private static final int PER_ARRAY = 8;

    /** The policy under test. */
    @Param({"first", "fail", "last"})
    public String policy;

    /** 7: the paths of {@link ExtractionBenchmark}; 1: {@code type} alone. */
    @Param({"7", "1"})
    public int paths;

    private final BenchData data = new BenchData();
    private JsonScanner scanner;
    private UnsafeBuffer arrays;
    private int[] arrayOffsets;
    private int[] arrayLengths;

    /** Builds the scanner for the policy and the array documents. */
    @Setup
    public void setUp()
    {
        scanner = new JsonScanner(JsonPathSet.compile(paths == 1 ? List.of("type") : ExtractionBenchmark.PATHS),
            JsonScanner.DEFAULT_MAX_DEPTH, DuplicateKeys.fromConfig(policy));
        final int count = BenchData.RECORDS / PER_ARRAY;
        arrays = new UnsafeBuffer(ByteBuffer.allocateDirect((int)data.totalBytes + BenchData.RECORDS + 2 * count));
        arrayOffsets = new int[count];
        arrayLengths = new int[count];
        int at = 0;
        for (int a = 0; a < count; a++)
        {
            arrayOffsets[a] = at;
            arrays.putByte(at++, (byte)'[');
            for (int e = 0; e < PER_ARRAY; e++)
            {
                if (e > 0)
                {
                    arrays.putByte(at++, (byte)',');
                }
                final byte[] record = data.records[a * PER_ARRAY + e];
                arrays.putBytes(at, record);
                at += record.length;
            }
            arrays.putByte(at++, (byte)']');
            arrayLengths[a] = at - arrayOffsets[a];
        }
    }

    /**
     * One scan per record under the policy.
     *
     * @param bh sink for the results.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void scan(final Blackhole bh)
    {
        final JsonScanner scanner = this.scanner;
        final BenchData data = this.data;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            int sum = scanner.scan(data.slab, data.offsets[r], data.lengths[r]);
            for (int p = 0; p < paths; p++)
            {
                sum += scanner.kind(p) + scanner.valueOffset(p) + scanner.valueLength(p);
            }
            bh.consume(sum);
        }
    }

    /**
     * The records as elements of top-level arrays, one {@code nextElement} per record.
     *
     * @param bh sink for the results.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public void elements(final Blackhole bh)
    {
        final JsonScanner scanner = this.scanner;
        for (int a = 0; a < arrayOffsets.length; a++)
        {
            int sum = scanner.beginElements(arrays, arrayOffsets[a], arrayLengths[a]);
            int index;
            while ((index = scanner.nextElement()) >= 0)
            {
                for (int p = 0; p < paths; p++)
                {
                    sum += scanner.kind(p) + scanner.valueOffset(p) + scanner.valueLength(p);
                }
                sum += index;
            }
            bh.consume(sum + index);
        }
    }
}
