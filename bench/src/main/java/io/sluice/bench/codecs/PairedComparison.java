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
        System.out.printf(Locale.ROOT, "paired, fastest of %d alternating batches: Sluice %.0f ns/record, " +
            "Jackson streaming %.0f ns/record, ratio %.2fx (bounds checks %s)%n", rounds - rounds / 3, bestSluice,
            bestJackson, bestJackson / bestSluice,
            Boolean.getBoolean("agrona.disable.bounds.checks") ? "disabled" : "enabled");
    }
}
