package io.sluice.tuning;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuListsTest
{
    @Test
    void shouldParseSinglesAndRanges()
    {
        assertArrayEquals(new int[]{0, 1}, CpuLists.parse("0-1"));
        assertArrayEquals(new int[]{0, 2, 3, 4, 8}, CpuLists.parse("\t0,2-4,8\n"));
        assertArrayEquals(new int[]{5}, CpuLists.parse("5"));
        assertArrayEquals(new int[]{1, 2}, CpuLists.parse("2,1,1-2"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a", "1-", "-1", "3-1", "1,,2", "0x3"})
    void shouldRejectMalformedLists(final String list)
    {
        assertThrows(IllegalArgumentException.class, () -> CpuLists.parse(list));
    }

    @Test
    void shouldFormatRuns()
    {
        assertEquals("0-1", CpuLists.format(new int[]{1, 0}));
        assertEquals("0,2-4,8", CpuLists.format(new int[]{8, 4, 3, 2, 0, 3}));
        assertEquals("", CpuLists.format(new int[0]));
    }

    @Test
    void shouldRoundTrip()
    {
        assertEquals("0-3,8,10-11", CpuLists.format(CpuLists.parse("0-3,8,10-11")));
    }

    @Test
    void shouldFindCpus()
    {
        final int[] cpus = CpuLists.parse("0-1,4");
        assertTrue(CpuLists.contains(cpus, 4));
        assertFalse(CpuLists.contains(cpus, 2));
    }
}
