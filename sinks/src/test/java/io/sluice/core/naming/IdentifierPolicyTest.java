package io.sluice.core.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdentifierPolicyTest
{
    /** ClickHouse's unquoted identifier rule ("Syntax → Identifiers"). */
    private static final Pattern UNQUOTED_IDENTIFIER = Pattern.compile("^[a-zA-Z_][0-9a-zA-Z_]*$");

    // ---- the seed's table: what the sink does with orders.eu ----

    @Test
    void shouldQuoteVerbatimOrRewriteAsTheSeedShows()
    {
        assertEquals("orders.eu", IdentifierPolicy.QUOTE.apply("orders.eu"));
        assertEquals("`orders.eu`", ClickHouseIdentifiers.quote(IdentifierPolicy.QUOTE.apply("orders.eu")));
        assertEquals("orders_eu", IdentifierPolicy.REWRITE.apply("orders.eu"));
    }

    // ---- D2: leading digits and reserved words ----

    @ParameterizedTest
    @DisplayName("D2: leading digits and reserved words")
    @CsvSource(delimiter = '|', value = {
        "1test|_1test", "01802_empsalary|_01802_empsalary", "table|table", "RÖKSKÅP_1|R_KSK_P_1"})
    void shouldPrefixALeadingDigitAndReplaceNonAscii(final String name, final String expected)
    {
        final String rewritten = IdentifierPolicy.REWRITE.apply(name);

        assertEquals(expected, rewritten);
        assertTrue(UNQUOTED_IDENTIFIER.matcher(rewritten).matches());
        assertEquals("`" + expected + "`", ClickHouseIdentifiers.quote(rewritten), "SQL still quotes it");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "orders-eu|orders_eu", "a b|a_b", "a😀b|a_b", "😀|_", "9|_9", "_9|_9", "é1|_1", "١|_", "cafe\u0301|cafe_",
        "Select|Select", "x.y.z|x_y_z", "a`b|a_b"})
    void shouldRewriteEveryCodePointOutsideTheUnquotedSet(final String name, final String expected)
    {
        assertEquals(expected, IdentifierPolicy.REWRITE.apply(name));
    }

    @Test
    void shouldRewriteStatementSyntaxToAPlainName()
    {
        assertEquals("___DROP_TABLE_t____", IdentifierPolicy.REWRITE.apply("'; DROP TABLE t; --"));
    }

    @Test
    void shouldReplaceAnUnpairedSurrogateWithOneUnderscore()
    {
        assertEquals("a_b", IdentifierPolicy.REWRITE.apply("a\uD800b"));
    }

    @Test
    void shouldAlwaysRewriteToAnUnquotedIdentifier()
    {
        final Random random = new Random(5);
        for (int n = 0; n < 10_000; n++)
        {
            final String name = TopicNameSanitizerTest.randomString(random);
            if (name.isEmpty())
            {
                continue;
            }
            final String rewritten = IdentifierPolicy.REWRITE.apply(name);
            final int prefix = name.charAt(0) >= '0' && name.charAt(0) <= '9' ? 1 : 0;

            assertTrue(UNQUOTED_IDENTIFIER.matcher(rewritten).matches(), rewritten);
            assertEquals(name.codePointCount(0, name.length()) + prefix, rewritten.length());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders.eu", "table", "x`; DROP TABLE t; --", "日本語", " "})
    void shouldKeepANameVerbatimUnderQuote(final String name)
    {
        assertEquals(name, IdentifierPolicy.QUOTE.apply(name));
    }

    @ParameterizedTest
    @EnumSource(IdentifierPolicy.class)
    void shouldRejectAnEmptyName(final IdentifierPolicy policy)
    {
        assertThrows(IllegalArgumentException.class, () -> policy.apply(""));
        assertThrows(NullPointerException.class, () -> policy.apply(null));
    }

    // ---- configuration ----

    @ParameterizedTest
    @CsvSource({"rewrite,REWRITE", "quote,QUOTE", "REWRITE,REWRITE", "Quote,QUOTE"})
    void shouldParseTheConfigurationValue(final String value, final IdentifierPolicy expected)
    {
        assertEquals(expected, IdentifierPolicy.parse(value));
    }

    @ParameterizedTest
    @EnumSource(IdentifierPolicy.class)
    void shouldRoundTripTheConfigurationValue(final IdentifierPolicy policy)
    {
        assertEquals(policy, IdentifierPolicy.parse(policy.configValue()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "rewrite ", "quoted", "none", "verbatim"})
    void shouldRejectAnUnknownPolicyNamingIt(final String value)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> IdentifierPolicy.parse(value));

        assertEquals("identifier policy '" + value + "' is not one of: rewrite, quote", error.getMessage());
    }

    @Test
    void shouldRejectANullPolicy()
    {
        assertThrows(NullPointerException.class, () -> IdentifierPolicy.parse(null));
    }
}
