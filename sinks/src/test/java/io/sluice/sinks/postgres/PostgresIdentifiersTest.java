package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sluice.core.gather.sink.SinkException;

class PostgresIdentifiersTest
{
    @Test
    void shouldQuoteEveryNameAndDoubleEmbeddedQuotes()
    {
        assertEquals("\"orders\"", PostgresIdentifiers.quote("orders"));
        assertEquals("\"Orders\"", PostgresIdentifiers.quote("Orders"));
        assertEquals("\"orders.eu\"", PostgresIdentifiers.quote("orders.eu"));
        assertEquals("\"a\"\"b\"", PostgresIdentifiers.quote("a\"b"));
        assertEquals("\"\"\"\"\"\"", PostgresIdentifiers.quote("\"\""));
        assertEquals("\"x y; DROP TABLE t; --\"", PostgresIdentifiers.quote("x y; DROP TABLE t; --"));
        assertEquals("\"it's\"", PostgresIdentifiers.quote("it's"));
    }

    @Test
    void shouldNeverSplitAQualifiedNameOnDots()
    {
        assertEquals("\"public\".\"orders.eu\"", PostgresIdentifiers.qualified("public", "orders.eu"));
        assertEquals("\"acme.cdc\".\"inventory.orders\"", PostgresIdentifiers.qualified("acme.cdc",
            "inventory.orders"));
        final PostgresCatalog catalog = new PostgresCatalog(() -> null, "test", null);
        assertEquals("\"public\".\"orders.eu\"", catalog.qualifiedName("public", "orders.eu"));
        assertEquals("\"My \"\"col\"\"\"", catalog.quoteColumn("My \"col\""));
    }

    @Test
    void shouldCountBytesNotCharactersAtTheLimit() throws SinkException
    {
        final String twoByte63 = "a" + "é".repeat(31);
        assertEquals(32, twoByte63.length());
        assertEquals(63, PostgresIdentifiers.utf8Length(twoByte63));
        assertSame(twoByte63, PostgresIdentifiers.requireValid("table", twoByte63));
        final String threeByte63 = "€".repeat(21);
        assertSame(threeByte63, PostgresIdentifiers.requireValid("table", threeByte63));
        final String ascii63 = "x".repeat(63);
        assertSame(ascii63, PostgresIdentifiers.requireValid("table", ascii63));

        for (final String tooLong : new String[]{"é".repeat(32), "€".repeat(21) + "a", "x".repeat(64),
            "\uD83D\uDE00".repeat(16)})
        {
            final int bytes = PostgresIdentifiers.utf8Length(tooLong);
            assertEquals(64, bytes, tooLong);
            final SinkException e = assertThrows(SinkException.class,
                () -> PostgresIdentifiers.requireValid("table", tooLong));
            assertTrue(e.getMessage().contains("\"" + tooLong + "\"") && e.getMessage().contains("64 bytes")
                && e.getMessage().contains("63"), e.getMessage());
            assertFalse(e.retriable());
            assertEquals("42622", PostgresErrors.sqlstate(e.code()));
        }
    }

    @Test
    void shouldRefuseEmptyNamesAndNul()
    {
        final SinkException empty = assertThrows(SinkException.class,
            () -> PostgresIdentifiers.requireValid("schema", ""));
        assertTrue(empty.getMessage().contains("schema name is empty"), empty.getMessage());
        final SinkException nul = assertThrows(SinkException.class,
            () -> PostgresIdentifiers.requireValid("table", "a\0b"));
        assertTrue(nul.getMessage().contains("NUL") && nul.getMessage().contains("\"a\\0b\""), nul.getMessage());
    }
}
