package io.sluice.bench.sink;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import org.agrona.concurrent.UnsafeBuffer;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import com.clickhouse.client.api.internal.ClickHouseLZ4OutputStream;

import net.jpountz.lz4.LZ4Factory;
import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonPathSet;
import io.sluice.codecs.json.JsonScanner;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.ConversionError;
import io.sluice.codecs.rowbinary.EncodeScratch;
import io.sluice.codecs.rowbinary.EncoderOptions;

/**
 * What {@code plugin_config.compression} costs the engine per row: the body of one INSERT (RowBinary of
 * {@value #ROWS} real GitHub events, columns {@code id String, type String, created_at DateTime, payload String},
 * as SecuredClickHouseIT writes them) written through the same code client-v2 0.10.0 runs for each setting:
 * {@code none} copies it into the request stream; {@code lz4} goes through client-v2's
 * {@code ClickHouseLZ4OutputStream} (ClickHouse's LZ4 block format with its CityHash128 checksums, 64 KiB
 * uncompressed blocks, {@code LZ4Factory.fastestInstance()}: the client's defaults); {@code gzip} through
 * commons-compress's {@code gz} compressor, which client-v2 picks for {@code Content-Encoding: gzip}. Scores are per
 * row; {@code encodeRows} (scan and encode the same rows, the engine's own per-row work) is the scale they are
 * read against, in the same run. The setup prints the compressed size of each, so the trade (CPU per row against
 * bytes on the wire) is read from one run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InsertCompressionBenchmark
{
    /** Rows per INSERT body; a constant so that JMH reports time per row. */
    public static final int ROWS = 8192;

    private static final List<String> PATHS = List.of("id", "type", "created_at", "payload");
    private static final String[] TYPES = {"String", "String", "DateTime", "String"};

    private byte[] body;
    private UnsafeBuffer slab;
    private final int[] offsets = new int[ROWS];
    private final int[] lengths = new int[ROWS];
    private final JsonScanner scanner = new JsonScanner(JsonPathSet.compile(PATHS), JsonScanner.DEFAULT_MAX_DEPTH);
    private final ColumnEncoder[] encoders = new ColumnEncoder[TYPES.length];
    private final EncodeScratch scratch = new EncodeScratch(1 << 16);
    private final JsonValueView value = new JsonValueView();
    private final Bytes<?> rows = Bytes.allocateElasticDirect(64 << 20);
    private final CountingSink sink = new CountingSink();
    private final LZ4Factory lz4 = LZ4Factory.fastestInstance();
    private final CompressorStreamFactory compressors = CompressorStreamFactory.getSingleton();

    /** Discards what is written and counts it, as a socket would take it. */
    static final class CountingSink extends OutputStream
    {
        long bytes;

        @Override
        public void write(final int b)
        {
            bytes++;
        }

        @Override
        public void write(final byte[] b, final int off, final int len)
        {
            bytes += len;
        }
    }

    /**
     * Encodes the body once and prints the size each setting sends.
     *
     * @throws IOException never (in-memory streams)
     */
    @Setup
    public void encode() throws IOException
    {
        final List<byte[]> lines = lines();
        for (int c = 0; c < TYPES.length; c++)
        {
            encoders[c] = ColumnEncoder.forType(TYPES[c], EncoderOptions.DEFAULTS);
        }
        int total = 0;
        for (int r = 0; r < ROWS; r++)
        {
            total += lines.get(r % lines.size()).length;
        }
        slab = new UnsafeBuffer(ByteBuffer.allocateDirect(total));
        int at = 0;
        for (int r = 0; r < ROWS; r++)
        {
            final byte[] line = lines.get(r % lines.size());
            slab.putBytes(at, line);
            offsets[r] = at;
            lengths[r] = line.length;
            at += line.length;
        }
        encodeRows();
        body = new byte[(int)rows.writePosition()];
        rows.read(body);
        final long none = none();
        final long lz4Bytes = lz4();
        final long gzipBytes = gzip();
        System.out.printf("%nINSERT body of %d rows: none %d bytes (%.0f per row), lz4 %d (%.1f%%), gzip %d (%.1f%%)%n",
            ROWS, none, (double)none / ROWS, lz4Bytes, 100.0 * lz4Bytes / none, gzipBytes, 100.0 * gzipBytes / none);
    }

    /**
     * The engine's own work on the same rows, for scale: the one-pass JSON scan and the RowBinary encoding of the four
     * columns (what the route stage does per record before a batch is sealed).
     *
     * @return bytes encoded
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long encodeRows()
    {
        final Bytes<?> out = rows;
        out.clear();
        for (int r = 0; r < ROWS; r++)
        {
            scanner.scan(slab, offsets[r], lengths[r]);
            for (int c = 0; c < encoders.length; c++)
            {
                scanner.value(c, value);
                if (encoders[c].encode(value, out, scratch) != ConversionError.NONE)
                {
                    throw new IllegalStateException("row " + r + " column " + PATHS.get(c) + " does not encode");
                }
            }
        }
        return out.writePosition();
    }

    /**
     * {@code compression = "none"}.
     *
     * @return bytes sent
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long none()
    {
        sink.bytes = 0;
        sink.write(body, 0, body.length);
        return sink.bytes;
    }

    /**
     * {@code compression = "lz4"}.
     *
     * @return bytes sent
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long lz4() throws IOException
    {
        sink.bytes = 0;
        try (OutputStream o = new ClickHouseLZ4OutputStream(sink, lz4.fastCompressor(), 65536))
        {
            o.write(body);
        }
        return sink.bytes;
    }

    /**
     * {@code compression = "gzip"}.
     *
     * @return bytes sent
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long gzip() throws IOException
    {
        sink.bytes = 0;
        try (OutputStream o = compressors.createCompressorOutputStream(CompressorStreamFactory.GZIP, sink))
        {
            o.write(body);
        }
        catch (final CompressorException e)
        {
            throw new IOException(e);
        }
        return sink.bytes;
    }

    /**
     * A load-tolerant cross-check for shared machines (as {@code codecs.PairedComparison}): the four methods run
     * alternately, one body each, for many rounds in one JVM, timed by the thread's CPU clock; the fastest round of
     * each after warm-up is reported, with lz4 and gzip as multiples of the engine's own scan-and-encode.
     *
     * @param args optional number of rounds (default 200)
     * @throws IOException never
     */
    public static void main(final String[] args) throws IOException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final InsertCompressionBenchmark b = new InsertCompressionBenchmark();
        b.encode();
        final java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        final double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        long sink = 0;
        for (int round = 0; round < rounds; round++)
        {
            final long t0 = cpu.getCurrentThreadCpuTime();
            sink += b.encodeRows();
            final long t1 = cpu.getCurrentThreadCpuTime();
            sink += b.lz4();
            final long t2 = cpu.getCurrentThreadCpuTime();
            sink += b.gzip();
            final long t3 = cpu.getCurrentThreadCpuTime();
            if (round >= rounds / 3)
            {
                best[0] = Math.min(best[0], (t1 - t0) / (double)ROWS);
                best[1] = Math.min(best[1], (t2 - t1) / (double)ROWS);
                best[2] = Math.min(best[2], (t3 - t2) / (double)ROWS);
            }
        }
        final double kb = b.body.length / 1024.0 / ROWS;
        System.out.printf(java.util.Locale.ROOT, "paired, fastest of %d alternating rounds, thread CPU time per row "
            + "(%.2f KiB of RowBinary per row): scan+encode %.0f ns, lz4 %.0f ns (%.2fx of scan+encode, %.0f MB/s), "
            + "gzip %.0f ns (%.2fx, %.0f MB/s) [%d]%n", rounds - rounds / 3, kb, best[0], best[1], best[1] / best[0],
            kb * 1024 / best[1] * 1000, best[2], best[2] / best[0], kb * 1024 / best[2] * 1000, sink % 10);
    }

    private static List<byte[]> lines()
    {
        for (Path d = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent())
        {
            final Path f = d.resolve("examples/data/github-events.jsonl.gz");
            if (Files.exists(f))
            {
                final List<byte[]> out = new ArrayList<>();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                    Files.newInputStream(f)), StandardCharsets.UTF_8)))
                {
                    for (String line; (line = r.readLine()) != null;)
                    {
                        if (!line.isBlank())
                        {
                            out.add(line.getBytes(StandardCharsets.UTF_8));
                        }
                    }
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(e);
                }
                return out;
            }
        }
        throw new IllegalStateException("examples/data/github-events.jsonl.gz not found above the working directory");
    }
}
