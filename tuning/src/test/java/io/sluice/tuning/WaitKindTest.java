package io.sluice.tuning;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WaitKindTest
{
    @ParameterizedTest
    @EnumSource(WaitKind.class)
    void shouldRoundTripConfigName(final WaitKind kind)
    {
        assertEquals(kind, WaitKind.parse(kind.configName()));
    }

    @Test
    void shouldUseTheDocumentedConfigNames()
    {
        assertEquals(WaitKind.BUSY_SPIN, WaitKind.parse("busy-spin"));
        assertEquals(WaitKind.YIELDING, WaitKind.parse("yielding"));
        assertEquals(WaitKind.SLEEPING, WaitKind.parse("sleeping"));
        assertEquals(WaitKind.BLOCKING, WaitKind.parse("blocking"));
        assertEquals(WaitKind.PHASED, WaitKind.parse("phased"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "BUSY-SPIN", "busy_spin", "spin", " phased", "park"})
    void shouldRejectUnknownValuesListingTheValidOnes(final String value)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WaitKind.parse(value));
        assertTrue(e.getMessage().contains('"' + value + '"'), e.getMessage());
        assertTrue(
            e.getMessage().contains("\"busy-spin\", \"yielding\", \"sleeping\", \"blocking\", \"phased\""),
            e.getMessage());
    }

    @Test
    void shouldRejectNull()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WaitKind.parse(null));
        assertTrue(e.getMessage().contains("valid values"), e.getMessage());
    }

    @Test
    void shouldSpinOnlyForBusySpinAndYielding()
    {
        assertTrue(WaitKind.BUSY_SPIN.spins());
        assertTrue(WaitKind.YIELDING.spins());
        assertFalse(WaitKind.SLEEPING.spins());
        assertFalse(WaitKind.BLOCKING.spins());
        assertFalse(WaitKind.PHASED.spins());
    }
}
