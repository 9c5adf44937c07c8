package io.sluice.bench.codecs;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;

/**
 * Encodes one RowBinary row per GitHub event into a chronicle-bytes buffer: {@code id UInt64} (from the string id),
 * {@code type LowCardinality(String)}, {@code actor_login String}, {@code repo_name String},
 * {@code created_at DateTime} (ISO-8601), {@code payload_size Nullable(UInt32)}, {@code payload_action
 * Nullable(String)}, {@code created_at_berlin DateTime64(3, 'Europe/Berlin')}. {@code scanOnly} is the same scan
 * without encoding, so the difference is the encoding cost. Scores are per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RowBinaryBenchmark
{
    private static final List<String> PATHS = List.of("id", "type", "actor.login", "repo.name", "created_at",
        "payload.size", "payload.action", "created_at");
    private static final String[] TYPES = {"UInt64", "LowCardinality(String)", "String", "String", "DateTime",
        "Nullable(UInt32)", "Nullable(String)", "DateTime64(3, 'Europe/Berlin')"};

    private final BenchData data = new BenchData();
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
    private final ColumnEncoder[] encoders = new ColumnEncoder[TYPES.length];
    private final EncodeScratch scratch = new EncodeScratch(1 << 16);
    private final JsonValueView value = new JsonValueView();
    private final Bytes<?> out = Bytes.allocateElasticDirect(16 << 20);

    /**
     * Compiles the encoders.
     */
    public RowBinaryBenchmark()
    {
        for (int c = 0; c < TYPES.length; c++)
        {
            encoders[c] = ColumnEncoder.forType(TYPES[c], EncoderOptions.DEFAULTS);
        }
    }

    /**
     * Scan and encode every row of the batch.
     *
     * @return bytes written, so the work is not eliminated.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public long scanAndEncode()
    {
        final Bytes<?> out = this.out;
        out.clear();
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            scanner.scan(data.slab, data.offsets[r], data.lengths[r]);
            final long rowStart = out.writePosition();
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                if (encoders[c].encode(value, out, scratch) != ConversionError.NONE)
                {
                    out.writePosition(rowStart);
                    break;
                }
            }
        }
        return out.writePosition();
    }

    /**
     * The same scan without encoding.
     *
     * @return a checksum, so the work is not eliminated.
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS)
    public long scanOnly()
    {
        long sum = 0;
        for (int r = 0; r < BenchData.RECORDS; r++)
        {
            scanner.scan(data.slab, data.offsets[r], data.lengths[r]);
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                sum += value.length();
            }
        }
        return sum;
    }

    /**
     * Releases the output buffer.
     */
    @TearDown
    public void release()
    {
        out.releaseLast();
    }
}
