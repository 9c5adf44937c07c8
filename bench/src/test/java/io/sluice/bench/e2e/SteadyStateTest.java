package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@link BenchRun#putSteadyState}: CPU per row between 20 % and 80 % of the rows, start-up and tail left out. */
class SteadyStateTest
{
    private static Sampler.Sample sample(final long second, final double contenderCpu, final double clickhouseCpu,
        final double rows)
    {
        return new Sampler.Sample(second * 1_000_000_000L, clickhouseCpu, 0.1 * second, contenderCpu, Map.of(),
            Map.of(), second * 1_000_000_000L, rows, rows, Map.of());
    }

    @Test
    void shouldTakeTheSpanFromTwentyToEightyPercentOfTheRows()
    {
        final List<Sampler.Sample> samples = new ArrayList<>();
        // a start-up second costing 5 s of CPU for 0 rows, then 2 us of contender CPU and 1 us of ClickHouse CPU per
        // row, 100,000 rows a second, up to 1,000,000 rows; then a tail second of CPU with no rows
        samples.add(sample(0, 0, 0, 0));
        samples.add(sample(1, 5, 0, 0));
        for (int s = 2; s <= 11; s++)
        {
            final double rows = (s - 1) * 100_000.0;
            samples.add(sample(s, 5 + rows * 2e-6, rows * 1e-6, rows));
        }
        samples.add(sample(12, 5 + 2 + 3, 1, 1_000_000));
        final Map<String, Object> run = new HashMap<>();
        BenchRun.putSteadyState(run, samples, 0, 12_000_000_000L);
        assertEquals(600_000.0, (double)run.get("steady_rows"), 1e-9);
        assertEquals(6.0, (double)run.get("steady_s"), 1e-9);
        assertEquals(2.0, (double)run.get("steady_contender_cpu_us_per_row"), 1e-9);
        assertEquals(1.0, (double)run.get("steady_clickhouse_cpu_us_per_row"), 1e-9);
        assertEquals(0.1 * 6 / 600_000 * 1e6, (double)run.get("steady_broker_cpu_us_per_row"), 1e-9);
    }

    @Test
    void shouldLeaveItOutWithoutRowsOrWithOneBatch()
    {
        final Map<String, Object> none = new HashMap<>();
        BenchRun.putSteadyState(none, List.of(sample(0, 0, 0, Double.NaN), sample(1, 1, 1, Double.NaN)), 0,
            2_000_000_000L);
        assertFalse(none.containsKey("steady_rows"));
        // every row written at once: no span between 20 % and 80 %
        final Map<String, Object> once = new HashMap<>();
        BenchRun.putSteadyState(once, List.of(sample(0, 0, 0, 0), sample(1, 1, 1, 1000)), 0, 2_000_000_000L);
        assertFalse(once.containsKey("steady_rows"));
    }
}
