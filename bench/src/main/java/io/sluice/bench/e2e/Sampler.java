package io.sluice.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Samples, on a thread of its own every {@code intervalMillis} while one benchmark run goes on, what the contenders
 * cannot report themselves: the CPU time of the ClickHouse server, of the Kafka broker and of the contender's
 * process (each in total and per thread name, from {@link ProcFs}), the rows in the benchmark database, the records
 * its consumer group has committed, and whatever else the run asks for ({@link Probe}). A value is read at any
 * moment of the run by linear interpolation between the two samples around it, so that CPU can be taken over a
 * contender's own window (first record read to last row written) instead of its process's lifetime.
 *
 * <p>The sampling has a cost, the same for every contender: per sample, one {@code system.parts} query to ClickHouse,
 * one offsets request to the broker and the {@code /proc} reads (about a millisecond of CPU altogether). Samples are
 * written by the sampling thread and read by others only after {@link #close()}.
 */
final class Sampler implements AutoCloseable
{
    /** Something read once per sample; NaN when unknown. */
    interface Probe
    {
        double read() throws Exception;
    }

    /**
     * One sample: {@code nanos} is when the CPU times were read, {@code rowsNanos} half-way through the query of the
     * rows (which ClickHouse answers later when it is busy); the thread maps are {@link ProcFs#threadKey thread} to CPU
     * seconds so far.
     */
    record Sample(long nanos, double clickhouseCpu, double brokerCpu, double contenderCpu,
        Map<String, Double> clickhouseThreads, Map<String, Double> contenderThreads, long rowsNanos, double rows,
        double committed, Map<String, Double> extra)
    {
    }

    private final long clickhousePid;
    private final boolean serverTree;
    private final long brokerPid;
    private final Probe rows;
    private final Probe committed;
    private final Map<String, Probe> extra;
    private final long intervalNanos;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile long contenderPid = -1;
    private volatile boolean running = true;
    private volatile String lastError;

    /**
     * @param clickhousePid the ClickHouse server's pid, or -1
     * @param brokerPid the Kafka broker's pid, or -1
     * @param rows the rows in the benchmark's tables now, or null
     * @param committed the records the run's consumer group has committed, or null
     * @param extra further values to sample, by name (may be empty)
     * @param intervalMillis time between samples
     */
    Sampler(final long clickhousePid, final long brokerPid, final Probe rows, final Probe committed,
        final Map<String, Probe> extra, final long intervalMillis)
    {
        this(clickhousePid, false, brokerPid, rows, committed, extra, intervalMillis);
    }

    /**
     * @param serverPid the database server's pid, or -1 (its CPU goes in the samples' clickhouse fields)
     * @param serverTree whether the server is a process tree (PostgreSQL: the postmaster and its backends, {@link
     *     ProcFs#treeCpuSeconds}) rather than one process of threads
     * @param brokerPid the Kafka broker's pid, or -1
     * @param rows the rows in the benchmark's tables now, or null
     * @param committed the records the run's consumer group has committed, or null
     * @param extra further values to sample, by name (may be empty)
     * @param intervalMillis time between samples
     */
    Sampler(final long serverPid, final boolean serverTree, final long brokerPid, final Probe rows,
        final Probe committed, final Map<String, Probe> extra, final long intervalMillis)
    {
        this.clickhousePid = serverPid;
        this.serverTree = serverTree;
        this.brokerPid = brokerPid;
        this.rows = rows;
        this.committed = committed;
        this.extra = extra;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.thread = new Thread(this::loop, "bench-sampler");
        this.thread.setDaemon(true);
        sample(); // the first sample before anything starts
        this.thread.start();
    }

    /** @param pid the contender's process, once it runs (its threads are sampled from the next sample on) */
    void contender(final long pid)
    {
        contenderPid = pid;
    }

    private void loop()
    {
        long next = System.nanoTime() + intervalNanos;
        while (running)
        {
            final long wait = next - System.nanoTime();
            if (wait > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                catch (final InterruptedException e)
                {
                    break;
                }
            }
            if (!running)
            {
                break;
            }
            sample();
            next += intervalNanos;
            if (next - System.nanoTime() < 0)
            {
                next = System.nanoTime() + intervalNanos; // fell behind: no burst of samples
            }
        }
    }

    private void sample()
    {
        final long pid = contenderPid;
        final long nanos = System.nanoTime();
        final double ch = serverTree ? ProcFs.treeCpuSeconds(clickhousePid) : ProcFs.cpuSeconds(clickhousePid);
        final double broker = ProcFs.cpuSeconds(brokerPid);
        final double contender = ProcFs.cpuSeconds(pid);
        final Map<String, Double> chThreads = ProcFs.threadCpuSeconds(clickhousePid);
        final Map<String, Double> contenderThreads = ProcFs.threadCpuSeconds(pid);
        final long asked = System.nanoTime();
        final double r = read(rows);
        final long rowsNanos = asked + (System.nanoTime() - asked) / 2;
        final double c = read(committed);
        final Map<String, Double> x = new TreeMap<>();
        for (final Map.Entry<String, Probe> e : extra.entrySet())
        {
            x.put(e.getKey(), read(e.getValue()));
        }
        final Sample s = new Sample(nanos, ch, broker, contender, chThreads, contenderThreads, rowsNanos, r, c, x);
        synchronized (samples)
        {
            samples.add(s);
        }
    }

    private double read(final Probe p)
    {
        if (p == null)
        {
            return Double.NaN;
        }
        try
        {
            return p.read();
        }
        catch (final Exception e)
        {
            lastError = e.toString();
            return Double.NaN;
        }
    }

    /** Takes a last sample and stops sampling. */
    @Override
    public void close()
    {
        running = false;
        thread.interrupt();
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        sample();
    }

    /** @return the samples so far, oldest first */
    List<Sample> samples()
    {
        synchronized (samples)
        {
            return List.copyOf(samples);
        }
    }

    /** @return the last sample */
    Sample last()
    {
        synchronized (samples)
        {
            return samples.get(samples.size() - 1);
        }
    }

    /** @return the last error a probe threw, or null */
    String lastError()
    {
        return lastError;
    }

    /**
     * @param f the value (NaN where a sample lacks it)
     * @param nanos a moment ({@link System#nanoTime()})
     * @return {@code f} at that moment: interpolated linearly between the last sample at or before it and the first
     *     at or after it that have the value; the one of them that has it if only one does; NaN if neither
     */
    double at(final ToDoubleFunction<Sample> f, final long nanos)
    {
        return valueAt(samples(), f, nanos, Double.NaN);
    }

    /**
     * @param ifNoneBefore the value if no sample at or before {@code nanos} has it (but a later one does)
     * @see #at(ToDoubleFunction, long)
     */
    static double valueAt(final List<Sample> samples, final ToDoubleFunction<Sample> f, final long nanos,
        final double ifNoneBefore)
    {
        Sample before = null;
        double a = Double.NaN;
        for (final Sample s : samples)
        {
            final double v = f.applyAsDouble(s);
            if (Double.isNaN(v))
            {
                continue;
            }
            if (s.nanos() - nanos <= 0)
            {
                before = s;
                a = v;
                continue;
            }
            if (before == null)
            {
                return Double.isNaN(ifNoneBefore) ? v : ifNoneBefore;
            }
            return a + (v - a) * (double)(nanos - before.nanos()) / (s.nanos() - before.nanos());
        }
        return a;
    }

    /**
     * @param threads the per-thread map of a sample ({@link ProcFs#threadCpuSeconds})
     * @param from start ({@link System#nanoTime()})
     * @param to end
     * @return per thread-name group, the CPU seconds its threads used between the two moments: each thread's own
     *     difference (a thread first seen after {@code from} counts from 0: it started inside; one last seen before
     *     {@code to} counts up to its last sample: it ended inside), summed per group
     */
    Map<String, Double> threadsBetween(final Function<Sample, Map<String, Double>> threads, final long from,
        final long to)
    {
        return threadsBetween(samples(), intervalNanos, threads, from, to);
    }

    /** @see #threadsBetween(Function, long, long) */
    static Map<String, Double> threadsBetween(final List<Sample> all, final long intervalNanos,
        final Function<Sample, Map<String, Double>> threads, final long from, final long to)
    {
        final java.util.Set<String> keys = new java.util.TreeSet<>();
        for (final Sample s : all)
        {
            if (s.nanos() - from >= -intervalNanos && s.nanos() - to <= intervalNanos)
            {
                keys.addAll(threads.apply(s).keySet());
            }
        }
        final Map<String, Double> out = new TreeMap<>();
        for (final String key : keys)
        {
            final ToDoubleFunction<Sample> f = s -> threads.apply(s).getOrDefault(key, Double.NaN);
            final double end = valueAt(all, f, to, Double.NaN);
            final double start = valueAt(all, f, from, 0);
            if (!Double.isNaN(end))
            {
                out.merge(ProcFs.groupOf(key), Math.max(0, end - (Double.isNaN(start) ? 0 : start)), Double::sum);
            }
        }
        return out;
    }

    /**
     * @param finalRows the rows the run ended with
     * @return the estimated moment the last row became visible: half-way between the last rows query that saw fewer
     *     rows and the first that saw {@code finalRows}; {@link Long#MIN_VALUE} if no sample saw them
     */
    long lastRowNanos(final double finalRows)
    {
        return lastRowNanos(samples(), finalRows);
    }

    /** @see #lastRowNanos(double) */
    static long lastRowNanos(final List<Sample> all, final double finalRows)
    {
        long before = Long.MIN_VALUE;
        for (final Sample s : all)
        {
            if (Double.isNaN(s.rows()))
            {
                continue;
            }
            if (s.rows() >= finalRows)
            {
                return before == Long.MIN_VALUE ? s.rowsNanos() : before + (s.rowsNanos() - before) / 2;
            }
            before = s.rowsNanos();
        }
        return Long.MIN_VALUE;
    }

    /**
     * @param since the moment times are given from
     * @return the samples as columns for a JSON record: seconds since {@code since}, CPU seconds, rows, committed
     */
    Map<String, List<Double>> columns(final long since)
    {
        final Map<String, List<Double>> m = new java.util.LinkedHashMap<>();
        for (final String k : List.of("t_s", "clickhouse_cpu_s", "broker_cpu_s", "contender_cpu_s", "rows_t_s", "rows",
            "committed"))
        {
            m.put(k, new ArrayList<>());
        }
        for (final Sample s : samples())
        {
            m.get("t_s").add((s.nanos() - since) / 1e9);
            m.get("clickhouse_cpu_s").add(s.clickhouseCpu());
            m.get("broker_cpu_s").add(s.brokerCpu());
            m.get("contender_cpu_s").add(s.contenderCpu());
            m.get("rows_t_s").add((s.rowsNanos() - since) / 1e9);
            m.get("rows").add(s.rows());
            m.get("committed").add(s.committed());
        }
        return m;
    }

    /** @return the time between samples, in nanoseconds */
    long intervalNanos()
    {
        return intervalNanos;
    }
}
