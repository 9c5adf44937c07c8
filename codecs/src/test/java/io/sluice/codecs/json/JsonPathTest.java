package io.sluice.codecs.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class JsonPathTest
{
    @Test
    void shouldSplitOnDots()
    {
        final JsonPath path = JsonPath.parse("user.id");
        assertEquals(2, path.segmentCount());
        assertEquals("user", path.segment(0));
        assertEquals("id", path.segment(1));
        assertEquals(-1, path.arrayIndex(0));
        assertEquals("user.id", path.expression());
    }

    @Test
    void shouldTreatDigitSegmentsAsIndexAndKey()
    {
        final JsonPath path = JsonPath.parse("items.0.sku");
        assertEquals("0", path.segment(1));
        assertEquals(0, path.arrayIndex(1));
        assertEquals(12, JsonPath.parse("a.12").arrayIndex(1));
        assertEquals(-1, JsonPath.parse("a.01").arrayIndex(1), "leading zero: key only");
        assertEquals(Integer.MAX_VALUE, JsonPath.parse("a.2147483647").arrayIndex(1));
        assertEquals(-1, JsonPath.parse("a.2147483648").arrayIndex(1), "beyond int: key only");
        assertEquals(-1, JsonPath.parse("a.1x").arrayIndex(1));
    }

    @Test
    void shouldUnescapeDotAndBackslash()
    {
        final JsonPath dotted = JsonPath.parse("a\\.b.c");
        assertEquals(2, dotted.segmentCount());
        assertEquals("a.b", dotted.segment(0));
        final JsonPath backslash = JsonPath.parse("a\\\\.b");
        assertEquals(2, backslash.segmentCount());
        assertEquals("a\\", backslash.segment(0));
        assertEquals(JsonPath.parse("x\\.y"), JsonPath.parse("x\\.y"));
    }

    @Test
    void shouldRejectMalformedExpressionsNamingThem()
    {
        for (final String bad : new String[]{"", ".a", "a.", "a..b", "a\\", "a\\b", "\ud800x"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> JsonPath.parse(bad));
            assertTrue(ex.getMessage().contains("'" + bad + "'"), ex.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> JsonPath.parse(null));
    }

    @Test
    void shouldIndexDuplicatesByFirstOccurrence()
    {
        final JsonPathSet set = JsonPathSet.compile(List.of("a", "b.c", "a", "d"));
        assertEquals(4, set.size());
        assertEquals(0, set.indexOf("a"));
        assertEquals(1, set.indexOf("b.c"));
        assertEquals(3, set.indexOf("d"));
        assertEquals(-1, set.indexOf("zz"));
        assertEquals("a", set.expression(2));
        assertEquals(3, set.slotCount());
    }
}
