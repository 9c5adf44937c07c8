package io.sluice.bench.codecs;

import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Prints the codec benchmark comparison from JMH JSON result files: ns per record (the JMH mean with its error, and
 * the fastest measurement iteration), MB/s over the real record sizes, bytes allocated per record
 * ({@code -prof gc}), and the ratios against Jackson and Kafka measured in the same run. Ratios use the fastest
 * iteration of each benchmark, which is the figure least disturbed by other processes on a shared machine.
 * Used by {@code scripts/bench-codecs.sh}.
 */
public final class CodecsBenchReport
{
    private CodecsBenchReport()
    {
    }

    /**
     * Reads {@code label=file} arguments and prints the table.
     *
     * @param args one or more {@code label=path/to/jmh-result.json}.
     * @throws IOException if a file cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        final ObjectMapper mapper = new ObjectMapper();
        final Map<String, double[]> rows = new LinkedHashMap<>();
        for (final String arg : args)
        {
            final int eq = arg.indexOf('=');
            final String label = arg.substring(0, eq);
            for (final JsonNode result : mapper.readTree(new File(arg.substring(eq + 1))))
            {
                final String benchmark = result.path("benchmark").asText();
                final String name = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
                final double score = result.path("primaryMetric").path("score").asDouble();
                final double error = result.path("primaryMetric").path("scoreError").asDouble();
                final double alloc = result.path("secondaryMetrics").path("gc.alloc.rate.norm").path("score")
                    .asDouble(Double.NaN);
                double best = Double.MAX_VALUE;
                for (final JsonNode fork : result.path("primaryMetric").path("rawData"))
                {
                    for (final JsonNode iteration : fork)
                    {
                        best = Math.min(best, iteration.asDouble());
                    }
                }
                rows.put(name + (label.isEmpty() ? "" : " [" + label + "]"), new double[]{best, score, error, alloc});
            }
        }

        final double bytesPerRecord = averageRecordBytes();
        System.out.printf(Locale.ROOT, "%nrecords: %d GitHub events per invocation, %.0f bytes on average%n%n",
            BenchData.RECORDS, bytesPerRecord);
        System.out.printf(Locale.ROOT, "%-54s %20s %10s %8s %9s%n", "benchmark", "mean ns/op", "best ns/op",
            "MB/s", "B/op");
        for (final Map.Entry<String, double[]> row : rows.entrySet())
        {
            final double[] v = row.getValue();
            final boolean perRecord = row.getKey().startsWith("ExtractionBenchmark") ||
                row.getKey().startsWith("RowBinaryBenchmark");
            System.out.printf(Locale.ROOT, "%-54s %10.1f ±%8.1f %10.1f %8s %9.2f%n", row.getKey(), v[1], v[2], v[0],
                perRecord ? String.format(Locale.ROOT, "%.0f", bytesPerRecord / v[0] * 1e9 / 1e6) : "-", v[3]);
        }
        System.out.println("(MB/s and the ratios below use the best iteration)");

        System.out.println();
        ratio(rows, "ExtractionBenchmark.jacksonStreaming", "ExtractionBenchmark.sluiceScan",
            "extraction: Jackson streaming / Sluice");
        ratio(rows, "ExtractionBenchmark.jacksonTree", "ExtractionBenchmark.sluiceScan",
            "extraction: Jackson tree / Sluice");
        ratio(rows, "ExtractionBenchmark.jacksonStreaming", "ExtractionBenchmark.sluiceScan [no-bounds-checks]",
            "extraction: Jackson streaming / Sluice without Agrona bounds checks");
        ratio(rows, "Murmur2Benchmark.kafkaUtils", "Murmur2Benchmark.sluiceOffHeap",
            "murmur2: Kafka Utils.murmur2(byte[]) / Sluice off-heap");
        ratio(rows, "Murmur2Benchmark.kafkaUtils", "Murmur2Benchmark.sluiceArray",
            "murmur2: Kafka Utils.murmur2(byte[]) / Sluice byte[]");
        final double[] encode = rows.get("RowBinaryBenchmark.scanAndEncode");
        final double[] scan = rows.get("RowBinaryBenchmark.scanOnly");
        if (encode != null)
        {
            System.out.printf(Locale.ROOT, "RowBinary: %.2f M rows/s scan+encode (8 columns)", 1e3 / encode[0]);
            if (scan != null && encode[0] > scan[0])
            {
                System.out.printf(Locale.ROOT, ", %.0f ns/row of which encoding", encode[0] - scan[0]);
            }
            System.out.println();
        }
    }

    private static void ratio(final Map<String, double[]> rows, final String slow, final String fast,
        final String text)
    {
        final double[] a = rows.get(slow);
        final double[] b = rows.get(fast);
        if (a != null && b != null)
        {
            System.out.printf(Locale.ROOT, "%-70s %6.2fx%n", text, a[0] / b[0]);
        }
    }

    private static double averageRecordBytes()
    {
        final java.util.List<byte[]> lines = BenchData.readAll();
        long total = 0;
        for (int i = 0; i < BenchData.RECORDS; i++)
        {
            total += lines.get(i % lines.size()).length;
        }
        return (double)total / BenchData.RECORDS;
    }
}
