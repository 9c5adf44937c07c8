package io.sluice.bench.route;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

import org.openjdk.jmh.infra.Blackhole;

import io.sluice.bench.codecs.ExtractionBenchmark;
import io.sluice.bench.codecs.RowBinaryBenchmark;

/**
 * The record path's CPU per record on a shared machine, by thread CPU time rather than wall time: the very benchmark
 * methods of {@link ExtractionBenchmark} (Sluice's scan and Jackson streaming, 7 paths; the whole record with every
 * member skipped by structure against validated in full), {@link RowBinaryBenchmark}
 * (scan, scan + encode of 8 columns) and {@link SealerBenchmark} (the whole route stage: copy, scan, classify,
 * encode, seal, hand-off; plus the insert worker thread's CPU), run alternately one batch of 8,192 records each, for
 * many rounds in one JVM. Printed per step: the median and the fastest round after the first third (warm-up), in ns
 * of the measuring thread's CPU per record. Other processes' load then costs wall time, not these figures (except
 * through shared caches), so before/after runs on a busy machine compare.
 *
 * <pre>
 * java $SLUICE_JVM_FLAGS -cp bench/target/benchmarks.jar io.sluice.bench.route.RecordPathCpu [rounds]
 * </pre>
 */
public final class RecordPathCpu
{
    private static final int RECORDS = 8192;

    private RecordPathCpu()
    {
    }

    /**
     * Runs the rounds and prints the table.
     *
     * @param args optional number of rounds (default 60)
     * @throws Exception if a benchmark fails to set up
     */
    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        final ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        final Blackhole bh = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        final ExtractionBenchmark extraction = new ExtractionBenchmark();
        final RowBinaryBenchmark rows = new RowBinaryBenchmark();
        final SealerBenchmark sealer = new SealerBenchmark();
        sealer.setUp();
        final String[] names = {"scan, 7 paths (Sluice)", "Jackson streaming, 7 paths",
            "whole record, members skipped", "whole record, validated", "scan, 8 columns",
            "scan + RowBinary, 8 columns", "route stage (copy .. hand-off)", "  insert worker thread"};
        final double[][] perRecord = new double[names.length][rounds];
        long sink = 0;
        for (int round = 0; round < rounds; round++)
        {
            long t0 = cpu.getCurrentThreadCpuTime();
            extraction.sluiceScan(bh);
            long t1 = cpu.getCurrentThreadCpuTime();
            perRecord[0][round] = (t1 - t0) / (double)RECORDS;
            t0 = cpu.getCurrentThreadCpuTime();
            extraction.jacksonStreaming(bh);
            t1 = cpu.getCurrentThreadCpuTime();
            perRecord[1][round] = (t1 - t0) / (double)RECORDS;
            t0 = cpu.getCurrentThreadCpuTime();
            extraction.skipWhole(bh);
            t1 = cpu.getCurrentThreadCpuTime();
            perRecord[2][round] = (t1 - t0) / (double)RECORDS;
            t0 = cpu.getCurrentThreadCpuTime();
            extraction.validateWhole(bh);
            t1 = cpu.getCurrentThreadCpuTime();
            perRecord[3][round] = (t1 - t0) / (double)RECORDS;
            t0 = cpu.getCurrentThreadCpuTime();
            sink += rows.scanOnly();
            t1 = cpu.getCurrentThreadCpuTime();
            perRecord[4][round] = (t1 - t0) / (double)RECORDS;
            t0 = cpu.getCurrentThreadCpuTime();
            sink += rows.scanAndEncode();
            t1 = cpu.getCurrentThreadCpuTime();
            perRecord[5][round] = (t1 - t0) / (double)RECORDS;
            final long w0 = sealer.workerCpuNanos();
            t0 = cpu.getCurrentThreadCpuTime();
            sink += sealer.routeAndSeal();
            t1 = cpu.getCurrentThreadCpuTime();
            final long w1 = sealer.workerCpuNanos();
            perRecord[6][round] = (t1 - t0) / (double)RECORDS;
            perRecord[7][round] = (w1 - w0) / (double)RECORDS;
        }
        sealer.tearDown();
        rows.release();
        final int from = rounds / 3;
        System.out.printf(Locale.ROOT,
            "thread CPU per record, ns (%d rounds of %d records after %d warm-up rounds; %s)%n",
            rounds - from, RECORDS, from, System.getProperty("java.vm.version"));
        System.out.printf(Locale.ROOT, "  %-32s %8s %8s%n", "step", "median", "fastest");
        for (int k = 0; k < names.length; k++)
        {
            final double[] measured = Arrays.copyOfRange(perRecord[k], from, rounds);
            Arrays.sort(measured);
            System.out.printf(Locale.ROOT, "  %-32s %8.0f %8.0f%n", names[k], measured[measured.length / 2],
                measured[0]);
        }
        System.out.println("  [" + (sink & 1) + "]");
    }
}
