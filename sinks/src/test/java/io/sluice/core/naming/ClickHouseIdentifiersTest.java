package io.sluice.core.naming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.core.naming.ClickHouseLexer.EscapeRules;
import io.sluice.core.naming.ClickHouseLexer.Token;
import io.sluice.core.naming.ClickHouseLexer.Type;
import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;

class ClickHouseIdentifiersTest
{
    /** Kept here too for tests that look for it on this class; the list lives in {@link HostileNames}. */
    public static final List<String> HOSTILE_NAMES = HostileNames.NAMES;

    static Stream<String> hostileNames()
    {
        return HostileNames.NAMES.stream();
    }

    // ---- exact escapes ----

    static Stream<Arguments> escapes()
    {
        return Stream.of(
            Arguments.of("events", "`events`"),
            Arguments.of("table", "`table`"),
            Arguments.of("orders.eu", "`orders.eu`"),
            Arguments.of("a`b", "`a\\`b`"),
            Arguments.of("a\\b", "`a\\\\b`"),
            Arguments.of("\\`", "`\\\\\\``"),
            Arguments.of("a'b", "`a'b`"),
            Arguments.of("a\"b", "`a\"b`"),
            Arguments.of("a\nb", "`a\\nb`"),
            Arguments.of("\r\t\b\f", "`\\r\\t\\b\\f`"),
            Arguments.of("\u0000", "`\\0`"),
            Arguments.of("\u00001", "`\\01`"),
            Arguments.of("\u0001\u001B\u001F", "`\\x01\\x1b\\x1f`"),
            Arguments.of("\u000B", "`\\x0b`"),
            Arguments.of("\u007F", "`\\x7f`"),
            Arguments.of("\\N", "`\\\\N`"),
            Arguments.of("é😀", "`é😀`"),
            Arguments.of("\u0085\u2028", "`\u0085\u2028`"),
            Arguments.of("x; DROP TABLE t; --", "`x; DROP TABLE t; --`"));
    }

    @ParameterizedTest
    @MethodSource("escapes")
    void shouldBackquoteAndEscapeIdentifiers(final String identifier, final String expected)
    {
        assertEquals(expected, ClickHouseIdentifiers.quote(identifier));
    }

    @Test
    void shouldQuoteStringLiteralsWithSingleQuotes()
    {
        assertEquals("''", ClickHouseIdentifiers.quoteString(""));
        assertEquals("'it\\'s'", ClickHouseIdentifiers.quoteString("it's"));
        assertEquals("'a`b\"c'", ClickHouseIdentifiers.quoteString("a`b\"c"));
        assertEquals("'a\\\\b\\n\\0'", ClickHouseIdentifiers.quoteString("a\\b\n\u0000"));
    }

    @Test
    void shouldQualifyATableWithItsDatabase()
    {
        assertEquals("`db`.`table`", ClickHouseIdentifiers.qualified("db", "table"));
        assertEquals("`my.db`.`orders.eu`", ClickHouseIdentifiers.qualified("my.db", "orders.eu"));
    }

    @Test
    void shouldRejectAnEmptyIdentifier()
    {
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.quote(""));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.qualified("", "t"));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.qualified("db", ""));
        assertThrows(NullPointerException.class, () -> ClickHouseIdentifiers.quote(null));
        assertThrows(NullPointerException.class, () -> ClickHouseIdentifiers.quoteString(null));
    }

    @Test
    void shouldRejectUnpairedSurrogatesWhichHaveNoUtf8Form()
    {
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.quote("a\uD800"));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.quote("\uDC00a"));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseIdentifiers.quoteString("\uD83D"));
        assertEquals("`\uD83D\uDE00`", ClickHouseIdentifiers.quote("\uD83D\uDE00"));
    }

    // ---- hostile names round-trip as exactly one token ----

    @ParameterizedTest
    @MethodSource("hostileNames")
    void shouldQuoteAHostileNameAsExactlyOneTokenThatDecodesBackToIt(final String name)
    {
        final String quoted = ClickHouseIdentifiers.quote(name);

        final List<Token> tokens = ClickHouseLexer.tokens(quoted);

        assertEquals(1, tokens.size(), () -> "tokens of " + quoted + ": " + tokens);
        assertEquals(Type.QUOTED_IDENTIFIER, tokens.get(0).type());
        assertDecodesTo(name, tokens.get(0));
        assertSafeText(quoted);
    }

    @ParameterizedTest
    @MethodSource("hostileNames")
    void shouldQuoteAHostileStringLiteralAsExactlyOneToken(final String value)
    {
        final String quoted = ClickHouseIdentifiers.quoteString(value);

        final List<Token> tokens = ClickHouseLexer.tokens(quoted);

        assertEquals(1, tokens.size(), () -> "tokens of " + quoted + ": " + tokens);
        assertEquals(Type.STRING_LITERAL, tokens.get(0).type());
        assertDecodesTo(value, tokens.get(0));
        assertSafeText(quoted);
    }

    @ParameterizedTest
    @MethodSource("hostileNames")
    void shouldLeaveTheStatementAroundAHostileNameIntact(final String name)
    {
        final String sql = "SELECT count() FROM " + ClickHouseIdentifiers.qualified("db", name) +
            " WHERE name = " + ClickHouseIdentifiers.quoteString(name) + " AND 1 = 1";

        final List<Token> tokens = ClickHouseLexer.significantTokens(sql);

        final List<Type> expected = List.of(
            Type.BARE_WORD, Type.BARE_WORD, Type.PUNCTUATION, Type.PUNCTUATION, Type.BARE_WORD,
            Type.QUOTED_IDENTIFIER, Type.DOT, Type.QUOTED_IDENTIFIER, Type.BARE_WORD, Type.BARE_WORD,
            Type.PUNCTUATION, Type.STRING_LITERAL, Type.BARE_WORD, Type.NUMBER, Type.PUNCTUATION, Type.NUMBER);
        assertEquals(expected, tokens.stream().map(Token::type).toList(), sql);
        assertDecodesTo("db", tokens.get(5));
        assertDecodesTo(name, tokens.get(7));
        assertDecodesTo(name, tokens.get(11));
        assertEquals(List.of("SELECT", "count", "(", ")", "FROM"),
            tokens.subList(0, 5).stream().map(Token::text).toList());
        assertEquals(List.of("WHERE", "name", "="), tokens.subList(8, 11).stream().map(Token::text).toList());
        assertEquals(List.of("AND", "1", "=", "1"), tokens.subList(12, 16).stream().map(Token::text).toList());
    }

    @Test
    void shouldRoundTripRandomStrings()
    {
        final Random random = new Random(11);
        for (int n = 0; n < 5_000; n++)
        {
            final String name = TopicNameSanitizerTest.randomString(random).replaceAll("[\\uD800-\\uDFFF]", "s") +
                "`\\'\"".charAt(random.nextInt(4));
            final String quoted = ClickHouseIdentifiers.quote(name);
            final List<Token> tokens = ClickHouseLexer.tokens(quoted);
            assertEquals(1, tokens.size(), quoted);
            assertDecodesTo(name, tokens.get(0));
            assertSafeText(quoted);
        }
    }

    @Test
    void shouldQuoteEvenARewrittenReservedWord()
    {
        final String rewritten = IdentifierPolicy.REWRITE.apply("table");

        assertEquals("`table`", ClickHouseIdentifiers.quote(rewritten));
    }

    @Test
    void shouldOfferTheHostileNamesForReuse()
    {
        assertTrue(HOSTILE_NAMES.size() > 50);
        for (final String name : HOSTILE_NAMES)
        {
            assertTrue(!name.isEmpty() && name.codePoints().noneMatch(cp -> cp >= 0xD800 && cp <= 0xDFFF), name);
        }
    }

    private static void assertDecodesTo(final String expected, final Token token)
    {
        final byte[] utf8 = expected.getBytes(StandardCharsets.UTF_8);
        for (final EscapeRules rules : EscapeRules.values())
        {
            assertArrayEquals(utf8, ClickHouseLexer.decode(token.bytes(), rules), () -> rules + ": " + token.text());
        }
    }

    /** No raw control character, and after every backslash one of the escapes the class documents. */
    private static void assertSafeText(final String quoted)
    {
        for (int i = 0; i < quoted.length(); i++)
        {
            final char c = quoted.charAt(i);
            if (c < 0x20 || c == 0x7F)
            {
                fail("raw control character U+" + Integer.toHexString(c) + " in " + quoted);
            }
            if (c == '\\')
            {
                final char e = quoted.charAt(++i);
                if ("\\`'bfnrt0x".indexOf(e) < 0)
                {
                    fail("undocumented escape \\" + e + " in " + quoted);
                }
            }
        }
    }
}
