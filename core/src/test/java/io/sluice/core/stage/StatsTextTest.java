package io.sluice.core.stage;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The stats an embedder holds ({@code GatherPipeline.stats()}) print their counters, not an identity hash. */
class StatsTextTest
{
    @Test
    void shouldPrintPipelineStatsCounters()
    {
        final PipelineStats s = new PipelineStats();
        s.recordsIn.set(10);
        s.rowsWritten.set(7);
        s.rowsDeleted.set(2);
        s.droppedTombstone.set(1);
        final String text = s.toString();
        assertTrue(text.startsWith("PipelineStats[recordsIn=10, "), text);
        assertTrue(text.contains("rowsWritten=7, rowsDeleted=2"), text);
        assertTrue(text.contains("droppedTombstone=1"), text);
        assertTrue(!text.contains("@"), text);
    }
}
