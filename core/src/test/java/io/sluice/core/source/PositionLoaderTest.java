package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.sluice.core.ack.PositionStore;

/**
 * The messages of stored positions name the table, the positions table and the group in words, never the internal
 * position key (place and table joined).
 */
class PositionLoaderTest
{
    private static final String PLACE = "positions table \"fresh23\".\"public.sluice_offsets\" at "
        + "jdbc:postgresql://127.0.0.1:15432/sluice, group fresh23-offq";
    private static final String KEY = PositionStore.key(PLACE, "\"fresh23\".\"small_t\"");

    @Test
    void shouldNameTheTablePositionsTableAndGroupInWordsWhenAPositionIsAboveTheEnd()
    {
        final String m = PositionLoader.aboveEnd(new TopicPartition("fresh23.small", 2), Map.of(KEY, 30L), 0L, PLACE);
        assertTrue(m.startsWith("table \"fresh23\".\"small_t\" (positions table \"fresh23\".\"public.sluice_offsets\" "
            + "at jdbc:postgresql://127.0.0.1:15432/sluice, group fresh23-offq) holds partition 2 of topic "
            + "fresh23.small up to offset 30 (next offset), above the partition's end offset 0"), m);
        assertTrue(m.contains("delete the positions of this topic from " + PLACE), m);
        assertFalse(m.contains("\0") || m.contains("|"), m);
        // a position at the end offset is the old log's last record written: usable
        assertNull(PositionLoader.aboveEnd(new TopicPartition("t", 0), Map.of(KEY, 30L), 30L, PLACE));
        assertNull(PositionLoader.aboveEnd(new TopicPartition("t", 0), Map.of(KEY, 30L), null, PLACE));
    }

    @Test
    void shouldPutEveryHeldPositionInWords()
    {
        final String other = PositionStore.key(PLACE, "\"fresh23\".\"a|b\"");
        final String m = PositionLoader.held(Map.of(KEY, 12L, other, 3L));
        assertEquals("table \"fresh23\".\"a|b\" (" + PLACE + ") holds it up to offset 3 (next offset); table "
            + "\"fresh23\".\"small_t\" (" + PLACE + ") holds it up to offset 12 (next offset)", m);
        // a store read on its own keys its tables by name alone
        assertEquals("table \"s\".\"t\"", PositionStore.describeKey("\"s\".\"t\""));
    }
}
