package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class SamplerTest
{
    private static Sampler.Sample sample(final long nanos, final double cpu, final double rows,
        final Map<String, Double> threads)
    {
        return new Sampler.Sample(nanos, cpu, Double.NaN, Double.NaN, Map.of(), threads, nanos, rows, Double.NaN,
            Map.of());
    }

    @Test
    void shouldInterpolateBetweenTheSamplesAroundAMoment()
    {
        final List<Sampler.Sample> s = List.of(sample(0, 1.0, 0, Map.of()), sample(100, 2.0, 0, Map.of()),
            sample(200, 4.0, 0, Map.of()));
        assertEquals(1.5, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 50, Double.NaN), 1e-9);
        assertEquals(3.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 150, Double.NaN), 1e-9);
        assertEquals(2.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 100, Double.NaN), 1e-9);
        // outside their span: the nearest sample
        assertEquals(1.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, -10, Double.NaN), 1e-9);
        assertEquals(4.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 300, Double.NaN), 1e-9);
    }

    @Test
    void shouldSkipSamplesWithoutTheValue()
    {
        // the contender's process: not started at the first sample, gone at the last
        final List<Sampler.Sample> s = List.of(sample(0, Double.NaN, 0, Map.of()), sample(100, 2.0, 0, Map.of()),
            sample(200, 3.0, 0, Map.of()), sample(300, Double.NaN, 0, Map.of()));
        assertEquals(3.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 250, Double.NaN), 1e-9);
        assertEquals(0.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 50, 0), 1e-9);
        assertEquals(2.0, Sampler.valueAt(s, Sampler.Sample::clickhouseCpu, 50, Double.NaN), 1e-9);
    }

    @Test
    void shouldDateTheLastRowHalfWayBetweenTheQueriesAroundIt()
    {
        final List<Sampler.Sample> s = List.of(sample(0, 0, 0, Map.of()), sample(100, 0, 40, Map.of()),
            sample(200, 0, 90, Map.of()), sample(300, 0, 100, Map.of()), sample(400, 0, 100, Map.of()));
        assertEquals(250, Sampler.lastRowNanos(s, 100));
        assertEquals(Long.MIN_VALUE, Sampler.lastRowNanos(s, 101));
    }

    @Test
    void shouldCountThreadsStartedInAWindowFromZeroAndThoseEndedUpToTheirLastSample()
    {
        // two threads of one name: pool/2 ends inside the window, pool/3 starts inside; their group's sum drops, but
        // each thread's own CPU only grows
        final List<Sampler.Sample> s = List.of(
            sample(0, 0, 0, Map.of("source/1", 1.0, "pool/2", 1.0)),
            sample(100, 0, 0, Map.of("source/1", 2.0, "pool/2", 1.5, "pool/3", 0.2)),
            sample(200, 0, 0, Map.of("source/1", 3.0, "pool/3", 0.4)));
        final Map<String, Double> w = Sampler.threadsBetween(s, 100, Sampler.Sample::contenderThreads, 50, 200);
        assertEquals(1.5, w.get("source"), 1e-9);
        // pool/2 up to its last value, not beyond (1.5 - 1.25), and pool/3 from 0 (it started inside)
        assertEquals(1.5 - 1.25 + 0.4, w.get("pool"), 1e-9);
        assertEquals(2, w.size());
    }

    private static boolean enough(final List<Sampler.Sample> all)
    {
        return all.size() >= 5 && all.get(all.size() - 1).clickhouseCpu() - all.get(0).clickhouseCpu() >= 0.1;
    }

    @Test
    void shouldSampleThisProcessAndItsProbesUntilClosed() throws Exception
    {
        final long me = ProcessHandle.current().pid();
        final AtomicLong rows = new AtomicLong();
        final Sampler s = new Sampler(me, -1, () -> rows.addAndGet(10), null, Map.of("one", () -> 1.0), 20);
        s.contender(me);
        // busy until at least 5 samples have seen 0.1 s of this process's CPU (bounded: a loaded machine samples late)
        final long end = System.nanoTime() + 60_000_000_000L;
        long x = 0;
        while (System.nanoTime() - end < 0 && !enough(s.samples()))
        {
            for (int i = 0; i < 100_000; i++)
            {
                x += x * 31 + 7;
            }
        }
        s.close();
        final List<Sampler.Sample> all = s.samples();
        assertTrue(all.size() >= 5 && x != 42, all.size() + " samples");
        final Sampler.Sample first = all.get(0);
        final Sampler.Sample last = s.last();
        assertTrue(last.clickhouseCpu() - first.clickhouseCpu() >= 0.1, first + " " + last);
        assertTrue(Double.isNaN(last.brokerCpu()));
        assertTrue(last.rows() > first.rows());
        assertTrue(Double.isNaN(last.committed()));
        assertEquals(1.0, last.extra().get("one"));
        assertTrue(last.contenderThreads().values().stream().mapToDouble(Double::doubleValue).sum() >= 0.1,
            last.contenderThreads().toString());
        assertTrue(last.contenderThreads().keySet().stream().allMatch(k -> k.matches(".+/[0-9]+")),
            last.contenderThreads().toString());
    }
}
