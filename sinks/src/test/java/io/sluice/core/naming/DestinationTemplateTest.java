package io.sluice.core.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseIdentifiers;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.core.naming.ClickHouseLexer.Token;
import io.sluice.core.naming.ClickHouseLexer.Type;
import io.sluice.core.naming.DestinationTemplate.Resolution;

class DestinationTemplateTest
{
    // ---- the seed's placeholder table and examples ----

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "events|orders.eu|events",
        "events_{topic}|orders|events_orders",
        "events_{topic}|orders.eu|events_orders.eu",
        "{topic}|orders.eu|orders.eu",
        "{topic_segment[0]}_events|orders.eu|orders_events",
        "{topic_segment[-1]}|orders.eu|eu",
        "{topic_segment[1]}|orders.eu|eu",
        "{topic_segment[-2]}|orders.eu|orders",
        "user_{topic_segment[-1]}|users.42|user_42",
        "{topic_segment[-1]}|orders-eu|orders-eu",
        "{topic_segment[0]}|orders-eu|orders-eu"})
    void shouldResolveTheSeedsTemplates(final String template, final String topic, final String expected)
    {
        final Resolution resolution = DestinationTemplate.parse(template).resolve(topic);

        assertTrue(resolution.ok(), resolution::toString);
        assertEquals(expected, resolution.name());
        assertNull(resolution.error());
        assertEquals(expected, resolution.nameOrThrow());
    }

    @Test
    void shouldTellALiteralFromATemplate()
    {
        assertTrue(DestinationTemplate.parse("events").isLiteral());
        assertTrue(DestinationTemplate.parse("{{topic}}").isLiteral());
        assertFalse(DestinationTemplate.parse("events_{topic}").isLiteral());
        assertFalse(DestinationTemplate.parse("{topic_segment[0]}").isLiteral());
        assertEquals("{topic}", DestinationTemplate.parse("{{topic}}").resolve("x").name());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "events|0", "{topic}|0", "{topic_segment[0]}|1", "{topic_segment[-1]}|1", "{topic_segment[9]}|10",
        "{topic_segment[-2]}_{topic_segment[-1]}|2", "{topic_segment[3]}_{topic_segment[-5]}|5"})
    void shouldKnowHowManySegmentsATopicNeeds(final String template, final int expected)
    {
        assertEquals(expected, DestinationTemplate.parse(template).requiredSegments());
    }

    // ---- D1: dots and hyphens must not break or re-scope the table name ----

    @ParameterizedTest
    @DisplayName("D1: dots and hyphens in a topic must not break or re-scope the table name")
    @CsvSource(delimiter = '|', value = {
        "{topic}|foo.bar.table-name|foo_bar_table_name",
        "{topic}|test-table-master|test_table_master",
        "kafka_{topic}|this.is.a.test.topic|kafka_this_is_a_test_topic"})
    void shouldRewriteDotsAndHyphensWithoutReScopingTheTable(
        final String template, final String topic, final String expected)
    {
        final String name = DestinationTemplate.parse(template).resolve(topic).nameOrThrow();
        final String table = IdentifierPolicy.REWRITE.apply(name);

        assertEquals(expected, table);
        assertIsOneTableIn(ClickHouseIdentifiers.qualified("analytics", table), table);
        assertIsOneTableIn(ClickHouseIdentifiers.qualified("analytics", IdentifierPolicy.QUOTE.apply(name)), name);
    }

    /** {@code `db`.`table`} is exactly database, dot, table: the name's own dots never add a level. */
    private static void assertIsOneTableIn(final String qualified, final String table)
    {
        final List<Token> tokens = ClickHouseLexer.significantTokens(qualified);

        assertEquals(List.of(Type.QUOTED_IDENTIFIER, Type.DOT, Type.QUOTED_IDENTIFIER),
            tokens.stream().map(Token::type).toList(), qualified);
        assertEquals("`analytics`", tokens.get(0).text());
        assertEquals(ClickHouseIdentifiers.quote(table), tokens.get(2).text());
    }

    // ---- D3: segments from the end ----

    @ParameterizedTest
    @DisplayName("D3: segments from the end")
    @CsvSource(delimiter = '|', value = {
        "{topic_segment[-1]}|acme.cdc.inventory.orders|orders",
        "{topic_segment[-2]}_{topic_segment[-1]}|acme.cdc.inventory.orders|inventory_orders",
        "{topic_segment[0]}|acme.cdc.inventory.orders|acme",
        "{topic_segment[-1]}|hello.dbo.table1|table1"})
    void shouldPickSegmentsCountingFromEitherEnd(final String template, final String topic, final String expected)
    {
        assertEquals(expected, DestinationTemplate.parse(template).resolve(topic).nameOrThrow());
    }

    @Test
    @DisplayName("D3: a segment the topic does not have fails the batch, never an empty or partial name")
    void shouldFailRatherThanProduceAPartialName()
    {
        final Resolution resolution = DestinationTemplate.parse("{topic_segment[9]}")
            .resolve("acme.cdc.inventory.orders");

        assertFalse(resolution.ok());
        assertNull(resolution.name());
        assertEquals("topic 'acme.cdc.inventory.orders' has 4 segments; template '{topic_segment[9]}' needs segment 9",
            resolution.error());
        final IllegalStateException thrown = assertThrows(IllegalStateException.class, resolution::nameOrThrow);
        assertEquals(resolution.error(), thrown.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{topic_segment[9]}|a.b|topic 'a.b' has 2 segments; template '{topic_segment[9]}' needs segment 9",
        "{topic_segment[2]}|a.b|topic 'a.b' has 2 segments; template '{topic_segment[2]}' needs segment 2",
        "{topic_segment[-3]}|a.b|topic 'a.b' has 2 segments; template '{topic_segment[-3]}' needs segment -3",
        "{topic_segment[1]}|orders-eu|topic 'orders-eu' has 1 segment; template '{topic_segment[1]}' needs segment 1",
        "x_{topic_segment[0]}_{topic_segment[5]}|a.b.c|" +
            "topic 'a.b.c' has 3 segments; template 'x_{topic_segment[0]}_{topic_segment[5]}' needs segment 5"})
    void shouldNameTheTopicAndTheTemplateWhenSegmentsAreMissing(
        final String template, final String topic, final String expected)
    {
        final Resolution resolution = DestinationTemplate.parse(template).resolve(topic);

        assertFalse(resolution.ok());
        assertEquals(expected, resolution.error());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{topic_segment[1]}|a..b|topic 'a..b' has an empty segment 1",
        "{topic_segment[-1]}|a.b.|topic 'a.b.' has an empty segment -1",
        "{topic_segment[0]}|.a|topic '.a' has an empty segment 0",
        "t_{topic_segment[-2]}|a..b|topic 'a..b' has an empty segment -2",
        "{topic_segment[0]}|''|topic '' has an empty segment 0",
        "{topic}|''|topic '' is empty"})
    void shouldRefuseAnEmptySegmentOrAnEmptyName(final String template, final String topic, final String start)
    {
        final Resolution resolution = DestinationTemplate.parse(template).resolve(topic);

        assertFalse(resolution.ok());
        assertTrue(resolution.error().startsWith(start), resolution.error());
        assertTrue(resolution.error().contains("template '" + template + "'"), resolution.error());
    }

    @Test
    void shouldResolveNonEmptySegmentsOfATopicWithEmptyOnes()
    {
        assertEquals("a", DestinationTemplate.parse("{topic_segment[0]}").resolve("a..b").nameOrThrow());
        assertEquals("b", DestinationTemplate.parse("{topic_segment[-1]}").resolve("a..b").nameOrThrow());
    }

    // ---- parsing errors ----

    @ParameterizedTest
    @ValueSource(strings = {
        "{value}", "{topics}", "{Topic}", "{ topic }", "{topic_segment}", "{topic_segment[]}", "{topic_segment[x]}",
        "{topic_segment[1.5]}", "{topic_segment[ 1]}", "{topic_segment[+1]}", "{topic_segment[01]}",
        "{topic_segment[-0]}", "{topic_segment[249]}", "{topic_segment[-250]}", "{topic_segment[9999999999]}",
        "{topic_segment(1)}", "{topic_segment[1]]}", "{topic", "topic}", "events_{topic}}", "{}", "{{topic}"})
    void shouldRejectAMalformedTemplateNamingIt(final String template)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> DestinationTemplate.parse(template));

        assertTrue(error.getMessage().startsWith("destination template '" + template + "': "), error.getMessage());
    }

    @Test
    void shouldPointAValuePlaceholderToTheSourceSide()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> DestinationTemplate.parse("t_{value}"));

        assertEquals("destination template 't_{value}': unknown placeholder '{value}' at index 2; the placeholders " +
            "are {topic}, {topic_segment[n]}, {topic_segment[-n]}; {value} belongs to a source's routing template, " +
            "a destination is resolved from the topic", error.getMessage());
    }

    @Test
    void shouldAcceptTheLargestUsefulIndices()
    {
        assertEquals(249, DestinationTemplate.parse("{topic_segment[248]}").requiredSegments());
        assertEquals(249, DestinationTemplate.parse("{topic_segment[-249]}").requiredSegments());
    }

    @Test
    void shouldRejectAnEmptyOrNullTemplateAndANullTopic()
    {
        assertThrows(IllegalArgumentException.class, () -> DestinationTemplate.parse(""));
        assertThrows(NullPointerException.class, () -> DestinationTemplate.parse(null));
        assertThrows(NullPointerException.class, () -> DestinationTemplate.parse("{topic}").resolve(null));
    }

    @Test
    void shouldKeepTheTemplateText()
    {
        final DestinationTemplate template = DestinationTemplate.parse("user_{topic_segment[-1]}");

        assertEquals("user_{topic_segment[-1]}", template.template());
        assertEquals("user_{topic_segment[-1]}", template.toString());
        assertEquals("ok(user_42)", template.resolve("users.42").toString());
    }
}
