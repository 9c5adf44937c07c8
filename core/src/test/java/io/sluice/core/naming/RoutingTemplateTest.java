package io.sluice.core.naming;

import static io.sluice.core.naming.TopicNameSanitizerTest.buffer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RoutingTemplateTest
{
    // ---- the seed's routing rules ----

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "users.{value}|42|users.42",
        "users.{value}|acme|users.acme",
        "tenant.{value}|acme corp|tenant.acme_corp",
        "keys.{value}|k-1|keys.k-1",
        "shard.{value}|9|shard.9",
        "tenant.unknown|ignored|tenant.unknown",
        "orders|ignored|orders"})
    void shouldRenderTheSeedsTemplates(final String template, final String value, final String expectedTopic)
    {
        final RoutingTemplate parsed = RoutingTemplate.parse(template);

        assertEquals(template, parsed.template());
        assertEquals(expectedTopic, parsed.topicFor(value));
        assertEquals(expectedTopic, renderAndSanitize(parsed, value));
        assertDoesNotThrow(() -> Topic.validate(expectedTopic));
    }

    @Test
    void shouldKnowWhetherTheValueIsUsed()
    {
        assertTrue(RoutingTemplate.parse("users.{value}").usesValue());
        assertTrue(RoutingTemplate.parse("{value}").usesValue());
        assertFalse(RoutingTemplate.parse("orders").usesValue());
        assertFalse(RoutingTemplate.parse("{{value}}").usesValue());
    }

    @Test
    void shouldSubstituteEveryOccurrenceOfTheValue()
    {
        final RoutingTemplate template = RoutingTemplate.parse("{value}.x.{value}-{value}");

        assertEquals("a.x.a-a", template.render("a"));
        assertEquals("a.x.a-a", renderAndSanitize(template, "a"));
        assertEquals(3 * 5 + 4, template.maxRenderedLength(5));
    }

    @Test
    void shouldWriteLiteralBracesDoubled()
    {
        final RoutingTemplate template = RoutingTemplate.parse("{{value}}.{value}.}}{{");

        assertTrue(template.usesValue());
        assertEquals("{value}.v.}{", template.render("v"));
        assertEquals("_value_.v.__", template.topicFor("v"));
    }

    // ---- R3, R4 through a template: the whole rendered name is sanitised ----

    @Test
    void shouldSanitiseAFieldValueWithASlash()
    {
        assertEquals("orders_eu", RoutingTemplate.parse("{value}").topicFor("orders/eu"));
        assertEquals("region.orders_eu", RoutingTemplate.parse("region.{value}").topicFor("orders/eu"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "café|caf_", "'  user events  '|user_events", "foo:bar|foo_bar", "foo=bar|foo_bar", "foo bar|foo_bar"})
    void shouldSanitiseTheRenderedName(final String value, final String expected)
    {
        final RoutingTemplate template = RoutingTemplate.parse("{value}");

        assertEquals(expected, template.topicFor(value));
        assertEquals(expected, renderAndSanitize(template, value));
    }

    @Test
    void shouldSanitiseLiteralTextToo()
    {
        assertEquals("my_topics_a", RoutingTemplate.parse("my topics/{value}").topicFor("a"));
    }

    @Test
    void shouldCutTheRenderedNameAt249Characters()
    {
        final RoutingTemplate template = RoutingTemplate.parse("users.{value}");

        assertEquals("users." + "a".repeat(243), template.topicFor("a".repeat(400)));
        assertEquals("users." + "a".repeat(243), renderAndSanitize(template, "a".repeat(400)));
    }

    // ---- R6 (template part): missing, null or blank never becomes a topic ----

    @Test
    void shouldRenderANumberAsItsText()
    {
        assertEquals("42", RoutingTemplate.parse("{value}").topicFor("42"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "  ", "\t\n", "\u00A0", "\u3000"})
    void shouldTreatABlankValueAsMissingWhateverTheTemplate(final String blank)
    {
        for (final String text : new String[]{"{value}", "users.{value}", "{value}.events", "a.{value}.{value}"})
        {
            final RoutingTemplate template = RoutingTemplate.parse(text);

            assertNull(template.render(blank), text);
            assertNull(template.topicFor(blank), text);
            final UnsafeBuffer dst = new UnsafeBuffer(new byte[64]);
            final byte[] utf8 = blank.getBytes(StandardCharsets.UTF_8);
            assertEquals(TopicNameSanitizer.MISSING, template.render(new UnsafeBuffer(utf8), 0, utf8.length, dst, 0));
            assertEquals(TopicNameSanitizer.MISSING, TopicNameSanitizer.sanitize(dst, 0, TopicNameSanitizer.MISSING,
                dst, 0), "MISSING passes through sanitising");
        }
    }

    @Test
    void shouldNeverRenderNullAsTheTextNull()
    {
        final RoutingTemplate template = RoutingTemplate.parse("users.{value}");

        assertThrows(NullPointerException.class, () -> template.render(null));
        assertThrows(NullPointerException.class, () -> template.topicFor(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "..", " . "})
    void shouldTreatAValueThatRendersToADotNameAsMissing(final String value)
    {
        assertNull(RoutingTemplate.parse("{value}").topicFor(value));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "' bob '|users.bob", "'\tbob\n'|users.bob", "'\u00A0bob\u3000'|users.bob", "'b o b'|users.b_o_b"})
    void shouldTrimTheValueBeforeSubstitutingIt(final String value, final String expected)
    {
        final RoutingTemplate template = RoutingTemplate.parse("users.{value}");

        assertEquals(expected, template.topicFor(value));
        assertEquals(expected, renderAndSanitize(template, value));
    }

    // ---- parsing errors ----

    @ParameterizedTest
    @ValueSource(strings = {
        "{Value}", "{ value }", "{val}", "users.{topic}", "{value", "users.{value", "value}", "users.{value}}",
        "{}", "{{value}", "a{b{value}", "}", "{", "   ", ".", "..", "\u3000"})
    void shouldRejectAMalformedTemplateNamingIt(final String text)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> RoutingTemplate.parse(text));

        assertTrue(error.getMessage().startsWith("routing template '" + text + "': "), error.getMessage());
    }

    @Test
    void shouldExplainAnUnknownPlaceholder()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> RoutingTemplate.parse("users.{user_id}"));

        assertEquals("routing template 'users.{user_id}': unknown placeholder '{user_id}' at index 6; the only " +
            "placeholder is {value} (write '{{' and '}}' for literal braces)", error.getMessage());
    }

    @Test
    void shouldRejectAnEmptyOrNullTemplate()
    {
        assertThrows(IllegalArgumentException.class, () -> RoutingTemplate.parse(""));
        assertThrows(NullPointerException.class, () -> RoutingTemplate.parse(null));
    }

    @Test
    void shouldRejectATemplateWhoseValueWouldAlwaysBeCut()
    {
        assertThrows(IllegalArgumentException.class, () -> RoutingTemplate.parse("a".repeat(249) + "{value}"));
        assertEquals("a".repeat(248) + "x", RoutingTemplate.parse("a".repeat(248) + "{value}").topicFor("xyz"));
    }

    // ---- buffer contract ----

    @Test
    void shouldRenderBytesAtTheGivenOffsets()
    {
        final RoutingTemplate template = RoutingTemplate.parse("tenant.{value}");
        final UnsafeBuffer value = buffer("##  acme corp  ##");
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[40]);
        dst.setMemory(0, 40, (byte)'#');

        final int length = template.render(value, 2, 13, dst, 3);

        assertEquals("tenant.acme corp".length(), length);
        assertEquals("###tenant.acme corp#####################", dst.getStringWithoutLengthAscii(0, 40));
        assertTrue(length <= template.maxRenderedLength(13));
    }

    @Test
    void shouldRenderAStaticTemplateWithoutAValue()
    {
        final RoutingTemplate template = RoutingTemplate.parse("orders");
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[6]);

        assertEquals(6, template.render(null, 0, 0, dst, 0));
        assertEquals("orders", dst.getStringWithoutLengthAscii(0, 6));
        assertEquals(6, template.maxRenderedLength(1000));
        assertEquals("orders", template.render(null));
    }

    @Test
    void shouldGrowAnExpandableBuffer()
    {
        final RoutingTemplate template = RoutingTemplate.parse("users.{value}");
        final ExpandableArrayBuffer dst = new ExpandableArrayBuffer(4);
        final UnsafeBuffer value = buffer("x".repeat(1000));

        assertEquals(1006, template.render(value, 0, 1000, dst, 0));
    }

    @Test
    void shouldReportAnOverflowingBound()
    {
        assertThrows(ArithmeticException.class,
            () -> RoutingTemplate.parse("{value}{value}").maxRenderedLength(Integer.MAX_VALUE));
    }

    @Test
    void shouldRenderTheSameBytesAsTheStringVersion()
    {
        final RoutingTemplate template = RoutingTemplate.parse(" é.{value}/{value} ");
        final Random random = new Random(3);
        for (int n = 0; n < 2_000; n++)
        {
            final String value = TopicNameSanitizerTest.randomString(random).replaceAll("[\\uD800-\\uDFFF]", "s");
            final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            final ExpandableArrayBuffer dst = new ExpandableArrayBuffer(16);

            final int length = template.render(new UnsafeBuffer(utf8), 0, utf8.length, dst, 0);
            final String rendered = template.render(value);

            if (rendered == null)
            {
                assertEquals(TopicNameSanitizer.MISSING, length);
                continue;
            }
            final byte[] bytes = new byte[length];
            dst.getBytes(0, bytes);
            assertArrayEquals(rendered.getBytes(StandardCharsets.UTF_8), bytes);
            assertTrue(length <= template.maxRenderedLength(utf8.length));
            assertEquals(template.topicFor(value), renderAndSanitize(template, value));
        }
    }

    // ---- zero allocation ----

    @Test
    void shouldNotAllocateWhenRenderingAndSanitising()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        final RoutingTemplate template = RoutingTemplate.parse("tenant.{value}.events");
        final UnsafeBuffer[] values = {buffer(" acme corp "), buffer("42"), buffer("café/€"), buffer("  ")};
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[256]);

        long sink = run(template, values, dst, 50_000);
        final long threadId = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        sink += run(template, values, dst, 100_000);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(sink != 0);
        assertTrue(allocated / 100_000.0 < 0.01, "allocated " + allocated + " bytes in 100,000 calls");
    }

    private static long run(
        final RoutingTemplate template, final UnsafeBuffer[] values, final UnsafeBuffer dst, final int iterations)
    {
        long sum = 0;
        for (int i = 0; i < iterations; i++)
        {
            final UnsafeBuffer value = values[i & 3];
            final int rendered = template.render(value, 0, value.capacity(), dst, 0);
            sum += TopicNameSanitizer.sanitize(dst, 0, rendered, dst, 0);
        }
        return sum;
    }

    /** The hot-path sequence: render into a buffer, then sanitise in place. */
    private static String renderAndSanitize(final RoutingTemplate template, final String value)
    {
        final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        final ExpandableArrayBuffer dst = new ExpandableArrayBuffer(16);
        final int rendered = template.render(new UnsafeBuffer(utf8), 0, utf8.length, dst, 0);
        final int length = TopicNameSanitizer.sanitize(dst, 0, rendered, dst, 0);
        return length == TopicNameSanitizer.MISSING ? null : dst.getStringWithoutLengthAscii(0, length);
    }
}
