package io.sluice.bench.codecs;

import java.io.IOException;
import java.util.Locale;

import org.openjdk.jmh.infra.Blackhole;

/**
 * A load-tolerant cross-check of the JMH extraction figures for shared machines: Sluice's scan and Jackson
 * streaming (the very benchmark methods of {@link ExtractionBenchmark}) run alternately, one batch of 8,192 records
 * each, for many rounds in one JVM; the fastest batch of each is reported. Interference from other processes then
 * hits both sides alike instead of whichever JMH happened to be running. Not a replacement for the JMH run.
 */
public final class PairedComparison
{
    private PairedComparison()
    {
    }

    /**
     * Runs the comparison.
     *
     * @param args optional number of rounds (default 150).
     * @throws IOException never for this data.
     */
    public static void main(final String[] args) throws IOException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        final ExtractionBenchmark benchmark = new ExtractionBenchmark();
        final Blackhole bh = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        double bestSluice = Double.MAX_VALUE;
        double bestJackson = Double.MAX_VALUE;
        for (int round = 0; round < rounds; round++)
        {
            final long t0 = System.nanoTime();
            benchmark.sluiceScan(bh);
            final long t1 = System.nanoTime();
            benchmark.jacksonStreaming(bh);
            final long t2 = System.nanoTime();
            if (round >= rounds / 3)
            {
                bestSluice = Math.min(bestSluice, (t1 - t0) / (double)BenchData.RECORDS);
                bestJackson = Math.min(bestJackson, (t2 - t1) / (double)BenchData.RECORDS);
            }
        }
        final String checks = Boolean.getBoolean("agrona.disable.bounds.checks") ? "disabled" : "enabled";
        System.out.printf(Locale.ROOT, "paired, fastest of %d alternating batches: Sluice %.0f ns/record, " +
            "Jackson streaming %.0f ns/record, ratio %.2fx (bounds checks %s)%n", rounds - rounds / 3, bestSluice,
            bestJackson, bestJackson / bestSluice, checks);

        final RowBinaryBenchmark rows = new RowBinaryBenchmark();
        double bestScan = Double.MAX_VALUE;
        double bestEncode = Double.MAX_VALUE;
        for (int round = 0; round < rounds; round++)
        {
            final long t0 = System.nanoTime();
            bh.consume(rows.scanOnly());
            final long t1 = System.nanoTime();
            bh.consume(rows.scanAndEncode());
            final long t2 = System.nanoTime();
            if (round >= rounds / 3)
            {
                bestScan = Math.min(bestScan, (t1 - t0) / (double)BenchData.RECORDS);
                bestEncode = Math.min(bestEncode, (t2 - t1) / (double)BenchData.RECORDS);
            }
        }
        rows.release();
        System.out.printf(Locale.ROOT, "paired RowBinary, 8 columns: scan %.0f ns/row, scan+encode %.0f ns/row " +
            "(%.2f M rows/s, encoding %.0f ns/row) (bounds checks %s)%n", bestScan, bestEncode, 1e3 / bestEncode,
            bestEncode - bestScan, checks);
    }
}
