package io.sluice.core.scatter;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A scatter pipeline's stats print their counters, not an identity hash. */
class ScatterStatsTextTest
{
    @Test
    void shouldPrintScatterStatsCounters()
    {
        final ScatterStats s = new ScatterStats();
        s.routed.set(5);
        s.produced.set(4);
        s.fallbacks.set(1);
        final String text = s.toString();
        assertTrue(text.startsWith("ScatterStats[routed=5, "), text);
        assertTrue(text.contains("produced=4") && text.contains("fallbacks=1"), text);
    }
}
