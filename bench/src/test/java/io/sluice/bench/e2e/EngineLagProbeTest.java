package io.sluice.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * {@link BenchRun#checkpointLag}: reads the engine's checkpoint lag by the names docs/metrics.md gives them (an
 * earlier version read names the engine no longer exported and reported zero lag for every run).
 */
class EngineLagProbeTest
{
    @Test
    void shouldSumTheRecordsAndTakeTheLongestStallOfTheDocumentedSeries() throws Exception
    {
        final String scrape = """
            # TYPE sluice_checkpoint_lag_records gauge
            sluice_checkpoint_lag_records{kind="clickhouse",partition="0",pipeline="p",topic="t"} 120.0
            sluice_checkpoint_lag_records{kind="postgres",partition="1",pipeline="q",topic="t"} 30.0
            sluice_table_checkpoint_lag_records{kind="clickhouse",pipeline="p",table="d.t"} 9999.0
            # TYPE sluice_checkpoint_lag_seconds gauge
            sluice_checkpoint_lag_seconds{kind="clickhouse",partition="0",pipeline="p",topic="t"} 0.25
            sluice_checkpoint_lag_seconds{kind="postgres",partition="1",pipeline="q",topic="t"} 1.5
            sluice_table_checkpoint_lag_seconds{kind="clickhouse",pipeline="p",table="d.t"} 99.0
            """;
        assertArrayEquals(new double[]{150, 1500}, BenchRun.checkpointLag(scrape), 1e-9);
        assertArrayEquals(new double[]{0, 0}, BenchRun.checkpointLag(""), 1e-9);
        final String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
        for (final String series : new String[]{"sluice_checkpoint_lag_records", "sluice_checkpoint_lag_seconds"})
        {
            assertTrue(doc.contains("| `" + series + "` |"), series + " is not a series of docs/metrics.md");
        }
    }
}
