package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class TabSeparatedTest
{
    @Test
    void shouldSplitRowsAndFieldsAndUnescape()
    {
        assertEquals(List.of(List.of("id", "UInt64", "", ""), List.of("s", "String", "DEFAULT", "'a\tb'")),
            TabSeparated.parse("id\tUInt64\t\t\ns\tString\tDEFAULT\t'a\\tb'\n"));
        assertEquals(List.of(List.of("x\\y\nz")), TabSeparated.parse("x\\\\y\\nz\n"));
        assertEquals(List.of(List.of("1")), TabSeparated.parse("1"));
        assertEquals(List.of(), TabSeparated.parse(""));
    }
}
