package io.sluice.bench.codecs;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;

/**
 * Encodes one integer value per operation from JSON number text already found by a scan (the scan is not timed):
 * {@code uint64} 4,096 values of up to 64 bits (up to 20 digits) into UInt64, the baseline; {@code int128} values of
 * up to 127 bits (up to 39 digits, half negative) into Int128; {@code uint256} values of up to 256 bits (up to 78
 * digits) into UInt256. The cost per value grows with its digits; nothing is allocated (run with {@code -prof gc}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WideIntegerBenchmark
{
    private static final int VALUES = 4096;

    private final JsonValueView[] uint64 = values(64, false);
    private final JsonValueView[] int128 = values(127, true);
    private final JsonValueView[] uint256 = values(256, false);
    private final ColumnEncoder uint64Encoder = ColumnEncoder.forType("UInt64", EncoderOptions.DEFAULTS);
    private final ColumnEncoder int128Encoder = ColumnEncoder.forType("Int128", EncoderOptions.DEFAULTS);
    private final ColumnEncoder uint256Encoder = ColumnEncoder.forType("UInt256", EncoderOptions.DEFAULTS);
    private final EncodeScratch scratch = new EncodeScratch(256);
    private final Bytes<?> out = Bytes.allocateElasticDirect(VALUES * 32L + 64);

    /** Views of random integers' decimal text, laid out one after another in one direct buffer. */
    private static JsonValueView[] values(final int bits, final boolean signed)
    {
        final Random random = new Random(bits);
        final StringBuilder text = new StringBuilder();
        final int[] offsets = new int[VALUES + 1];
        for (int i = 0; i < VALUES; i++)
        {
            offsets[i] = text.length();
            final BigInteger v = new BigInteger(bits, random);
            text.append(signed && random.nextBoolean() ? v.negate() : v);
        }
        offsets[VALUES] = text.length();
        final byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes.length));
        buffer.putBytes(0, bytes);
        final JsonValueView[] views = new JsonValueView[VALUES];
        for (int i = 0; i < VALUES; i++)
        {
            views[i] = new JsonValueView();
            views[i].set(buffer, JsonKind.NUMBER, offsets[i], offsets[i + 1] - offsets[i], false);
        }
        return views;
    }

    private long encode(final ColumnEncoder encoder, final JsonValueView[] values)
    {
        final Bytes<?> out = this.out;
        out.clear();
        for (final JsonValueView v : values)
        {
            if (encoder.encode(v, out, scratch) != ConversionError.NONE)
            {
                throw new IllegalStateException("a value was refused");
            }
        }
        return out.writePosition();
    }

    /**
     * The baseline: UInt64.
     *
     * @return bytes written, so the work is not eliminated.
     */
    @Benchmark
    @OperationsPerInvocation(VALUES)
    public long uint64()
    {
        return encode(uint64Encoder, uint64);
    }

    /**
     * Int128 of up to 39 digits, half of them negative.
     *
     * @return bytes written.
     */
    @Benchmark
    @OperationsPerInvocation(VALUES)
    public long int128()
    {
        return encode(int128Encoder, int128);
    }

    /**
     * UInt256 of up to 78 digits.
     *
     * @return bytes written.
     */
    @Benchmark
    @OperationsPerInvocation(VALUES)
    public long uint256()
    {
        return encode(uint256Encoder, uint256);
    }

    /** Releases the output buffer. */
    @TearDown
    public void release()
    {
        out.releaseLast();
    }
}
