package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The words of a position mismatch: the table, the partition, the positions table and the group. */
class PostgresPositionsTest
{
    @Test
    void shouldSayNoPositionIsStoredRatherThanUpToNothing()
    {
        assertEquals("COPY of 3 rows: table \"fresh23\".\"two\" holds no position for partition 1 of topic fresh23.two "
            + "in positions table \"fresh23\".\"sluice_offsets\" (group g), where this batch expects 7: another member "
            + "wrote the partition since (it was reassigned), or a batch of it before this one was not written",
            PostgresPositions.mismatchText("COPY of 3 rows", "\"fresh23\".\"two\"", "\"fresh23\".\"sluice_offsets\"",
                "g", "fresh23.two", 1, "nothing stored", 7, 7, ""));
    }

    @Test
    void shouldNameTheStoredPositionAndTheExpectedRange()
    {
        assertEquals("w: table \"public\".\"orders\" holds partition 2 of topic orders up to offset 9 (next offset) in "
            + "positions table \"public\".\"sluice_offsets\" (group sluice-pg), where this batch expects 0 (no "
            + "position stored yet): another member wrote the partition since (it was reassigned), or a batch of it "
            + "before this one was not written (more)",
            PostgresPositions.mismatchText("w", "\"public\".\"orders\"", "\"public\".\"sluice_offsets\"", "sluice-pg",
                "orders", 2, "9", 0, 0, " (more)"));
        assertEquals(true, PostgresPositions.mismatchText("w", "t", "p", "g", "o", 0, "40", 3, 5, "")
            .contains("where this batch expects 3..5:"));
    }
}
