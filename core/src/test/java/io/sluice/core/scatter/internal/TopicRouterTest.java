package io.sluice.core.scatter.internal;

import static io.sluice.core.scatter.internal.Records.record;
import static io.sluice.core.scatter.internal.Records.utf8;
import static io.sluice.core.scatter.internal.Records.value;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig.TopicRule;
import io.sluice.ringbuffers.RecordEvent;

/**
 * The routing rule end to end (derive → render → sanitise → topic, or fallback, or missing), driven by the seed's
 * tables (strategies, value derivation, sanitising) and the cases R1–R7, with rules read from TOML as a user writes
 * them.
 */
class TopicRouterTest
{
    /** Parses a {@code topic = ...} line through the real configuration loader. */
    static TopicRule rule(final String topic)
    {
        return ConfigLoader.parse("[kafka]\nbootstrap_servers = \"x:1\"\n[[sources]]\nname = \"s\"\nkind = \"stdin\"\n"
            + "[[sources.topics]]\ntopic = " + topic + "\n").sources().get(0).rule();
    }

    static TopicRouter router(final String topic)
    {
        return new TopicRouter(rule(topic));
    }

    /** @return the topic, "fallback:" + topic, or "missing: " + reason */
    static String route(final TopicRouter router, final RecordEvent record)
    {
        final int result = router.route(record);
        return switch (result)
        {
            case TopicRouter.ROUTED -> router.topicName();
            case TopicRouter.FALLBACK -> "fallback:" + router.topicName();
            default -> "missing: " + router.reason();
        };
    }

    // ---- the seed's strategy table ----

    @Test
    void shouldRouteByEachStrategyOfTheSeed()
    {
        final RecordEvent r = record(utf8("{\"user\":{\"id\":42},\"type\":\"click\"}"), utf8("k-1"), "tenant",
            "acme corp");

        assertEquals("orders", route(router("\"orders\""), r));
        assertEquals("orders", route(router("{ strategy = \"static\", name = \"orders\" }"), r));
        assertEquals("users.42",
            route(router("{ strategy = \"field\", path = \"user.id\", template = \"users.{value}\" }"), r));
        assertEquals("tenant.acme_corp", route(router(
            "{ strategy = \"header\", header = \"tenant\", template = \"tenant.{value}\", fallback = \"tenant.unknown\" }"),
            r));
        assertEquals("keys.k-1", route(router("{ strategy = \"key\", template = \"keys.{value}\" }"), r));
        final int bucket = Utils.toPositive(Utils.murmur2(utf8("42"))) % 16;
        assertEquals("shard." + bucket, route(router(
            "{ strategy = \"hash\", path = \"user.id\", buckets = 16, template = \"shard.{value}\" }"), r));
    }

    @Test
    void shouldNameWhatEachStrategyRequiresWhenItIsMissing()
    {
        final RecordEvent bare = record(utf8("{}"), null);
        assertEquals("missing: field user.id: no value at the path",
            route(router("{ strategy = \"field\", path = \"user.id\", template = \"users.{value}\" }"), bare));
        assertEquals("missing: header tenant: the record has no header tenant",
            route(router("{ strategy = \"header\", header = \"tenant\" }"), bare));
        assertEquals("missing: key: the record has no key", route(router("{ strategy = \"key\" }"), bare));
        assertEquals("missing: hash of key into 4 buckets: the record has no key",
            route(router("{ strategy = \"hash\", buckets = 4 }"), bare));
        assertEquals("missing: hash of header h into 4 buckets: the record has no header h",
            route(router("{ strategy = \"hash\", header = \"h\", buckets = 4 }"), bare));
        assertEquals("missing: field user.id: the record has no value (a tombstone), so there is no field to read",
            route(router("{ strategy = \"field\", path = \"user.id\" }"), record(null, null)));
        assertEquals("missing: header tenant: header tenant is null",
            route(router("{ strategy = \"header\", header = \"tenant\" }"), record(utf8("{}"), null, "tenant", null)));
    }

    @Test
    void shouldReadTheLastHeaderOfAName()
    {
        final TopicRouter r = router("{ strategy = \"header\", header = \"tenant\", template = \"t.{value}\" }");
        assertEquals("t.b", route(r, record(utf8("{}"), null, "tenant", "a", "other", "x", "tenant", "b")));
        assertEquals("missing: header tenant: header tenant is null",
            route(r, record(utf8("{}"), null, "tenant", "a", "tenant", null)));
    }

    // ---- the seed's value derivation table ----

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"v\":\"acme\"}|v.acme",
        "{\"v\":42}|v.42",
        "{\"v\":true}|v.true",
        "{\"v\":false}|v.false",
        "{\"v\":-1.5e3}|v.-1.5e3",
        "{\"v\":\"a\\u00e9\"}|v.a_",
        "{\"v\":\"x\\/y\"}|v.x_y",
        "{\"v\":null}|missing: field v: null at the path",
        "{\"v\":{\"a\":1}}|missing: field v: an object at the path (only a string, number or boolean routes)",
        "{\"v\":[1,2]}|missing: field v: an array at the path (only a string, number or boolean routes)",
        "{\"w\":1}|missing: field v: no value at the path",
        "{}|missing: field v: no value at the path",
        "[1]|missing: field v: no value at the path",
        "42|missing: field v: no value at the path",
        "{\"v\" 1}|missing: field v: no value at the path: the record is not valid JSON (unexpected byte at byte 5)",
        "{\"v\":\"\\x\"}|missing: field v: no value at the path: the record is not valid JSON (invalid escape sequence in a string at byte 6)",
        "{\"v\":7,\"x\":oops}|v.7"})
    void shouldDeriveTheValueAsTheSeedSays(final String json, final String expected)
    {
        assertEquals(expected,
            route(router("{ strategy = \"field\", path = \"v\", template = \"v.{value}\" }"), value(json)));
    }

    // ---- the seed's sanitising table, through the whole rule ----

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "Az09._-|Az09._-",
        "a b|a_b",
        "a/b|a_b",
        "a+b*c|a_b_c",
        "`  acme  `|acme",
        "`\\t acme \\n`|acme"})
    void shouldSanitiseAsTheSeedSays(final String value, final String expected)
    {
        final String json = "{\"v\":\"" + value + "\"}";
        assertEquals(expected, route(router("{ strategy = \"field\", path = \"v\" }"), value(json)));
    }

    @Test
    void shouldCutAt249AndTreatEmptyAsMissing()
    {
        final TopicRouter r = router("{ strategy = \"field\", path = \"v\", fallback = \"unrouted\" }");
        assertEquals("a".repeat(249), route(r, value("{\"v\":\"" + "a".repeat(400) + "\"}")));
        assertEquals("fallback:unrouted", route(r, value("{\"v\":\"   \"}")));
        assertEquals("field v: blank value at the path", r.reason());
        assertEquals("fallback:unrouted", route(r, value("{\"v\":\"..\"}")));
        assertEquals("field v: the name '..' is not a topic name after sanitising (empty, '.' or '..')", r.reason());
        assertEquals("fallback:unrouted", route(r, value("{\"v\":\".\"}")));
        assertEquals("...", route(r, value("{\"v\":\"...\"}")));
    }

    @Test
    void shouldTreatABlankKeyOrHeaderAsMissingForEveryStrategy()
    {
        final RecordEvent blank = record(utf8("{}"), utf8("  "), "h", "\t");
        assertEquals("missing: key: blank value as the key", route(router("{ strategy = \"key\" }"), blank));
        assertEquals("missing: header h: blank value in header h",
            route(router("{ strategy = \"header\", header = \"h\" }"), blank));
        assertEquals("missing: hash of key into 3 buckets: blank value as the key",
            route(router("{ strategy = \"hash\", buckets = 3 }"), blank));
        assertEquals("missing: key: blank value as the key",
            route(router("{ strategy = \"key\" }"), record(utf8("{}"), new byte[0])));
    }

    // ---- R1, R2: murmur2 and the masked sign bit, through the hash strategy ----

    @ParameterizedTest(name = "key {0} of {1} buckets -> {2}")
    @CsvSource({
        "100:48069, 12, 9",
        "wu, 10, 0",
        "f562ac3b-2224-4e25-a0ab-56094e10c239, 10, 5",
        "354afe16-939a-4ea8-8e17-8bb0840b6886, 10, 4"})
    void shouldPutKeysInTheBucketsOfR1AndR2(final String key, final int buckets, final int bucket)
    {
        final String expected = "shard." + bucket;
        assertEquals(expected, route(router("{ strategy = \"hash\", buckets = " + buckets
            + ", template = \"shard.{value}\" }"), record(utf8("{}"), utf8(key))));
        assertEquals(expected, route(router("{ strategy = \"hash\", path = \"k\", buckets = " + buckets
            + ", template = \"shard.{value}\" }"), value("{\"k\":\"" + key + "\"}")));
        assertEquals(expected, route(router("{ strategy = \"hash\", header = \"k\", buckets = " + buckets
            + ", template = \"shard.{value}\" }"), record(utf8("{}"), null, "k", key)));
    }

    @Test
    void shouldAgreeWithKafkasPartitionerOnRandomKeys()
    {
        final Random random = new Random(20240601);
        final int[] bucketCounts = {1, 2, 3, 7, 10, 12, 16, 100, 997, 1_000_000};
        final TopicRouter[] routers = new TopicRouter[bucketCounts.length];
        for (int i = 0; i < bucketCounts.length; i++)
        {
            routers[i] = router("{ strategy = \"hash\", buckets = " + bucketCounts[i] + " }");
        }
        final RecordEvent e = record(utf8("{}"), utf8("x"));
        for (int n = 0; n < 20_000; n++)
        {
            final byte[] key = new byte[1 + random.nextInt(40)];
            for (int i = 0; i < key.length; i++)
            {
                // printable, non-blank keys: a blank key is missing by the seed's rule, whatever its hash
                key[i] = (byte)(0x21 + random.nextInt(0x5e));
            }
            Records.fill(e, utf8("{}"), key);
            for (int i = 0; i < bucketCounts.length; i++)
            {
                final int expected = BuiltInPartitioner.partitionForKey(key, bucketCounts[i]);
                assertEquals(TopicRouter.ROUTED, routers[i].route(e));
                assertEquals(Integer.toString(expected), routers[i].topicName(), () -> "key " + new String(key,
                    StandardCharsets.US_ASCII));
            }
        }
    }

    // ---- R3, R4, R5: sanitising through the full rule ----

    static Stream<Arguments> r3()
    {
        final List<String> illegal = List.of("/", "\\", ",", "\u0000", ":", "\"", "'", ";", "*", "?", "\t", "\r", "\n",
            "=");
        return illegal.stream().map(c -> Arguments.of(c, "Is " + c + "illegal"));
    }

    @ParameterizedTest(name = "R3 {1}")
    @MethodSource("r3")
    void shouldReplaceEveryCharacterKafkaRejects(final String c, final String value)
    {
        final TopicRouter r = router("{ strategy = \"header\", header = \"v\" }");
        assertEquals("Is__illegal", route(r, record(utf8("{}"), null, "v", value)));
        assertDoesNotThrow(() -> Topic.validate(r.topicName()));
    }

    @ParameterizedTest(name = "R3/R4 {0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "orders/eu|orders_eu",
        "café|caf_",
        "`  user events  `|user_events",
        "foo:bar|foo_bar",
        "foo=bar|foo_bar",
        "foo bar|foo_bar"})
    void shouldSanitiseTheValuesOfR3AndR4(final String v, final String expected)
    {
        final TopicRouter field = router("{ strategy = \"field\", path = \"v\" }");
        assertEquals(expected, route(field, value("{\"v\":\"" + v + "\"}")));
        assertDoesNotThrow(() -> Topic.validate(field.topicName()));
        assertEquals(expected, route(router("{ strategy = \"key\" }"), record(utf8("{}"), utf8(v))));
    }

    @ParameterizedTest(name = "R5 {0}")
    @CsvSource({"200, 200", "249, 249", "250, 249", "300, 249"})
    void shouldCutAt249CharactersAsR5Says(final int length, final int expected)
    {
        final TopicRouter r = router("{ strategy = \"key\" }");
        assertEquals("a".repeat(expected), route(r, record(utf8("{}"), utf8("a".repeat(length)))));
        assertDoesNotThrow(() -> Topic.validate(r.topicName()));
    }

    @Test
    void shouldTrimBeforeCuttingAsR5Says()
    {
        final TopicRouter r = router("{ strategy = \"key\" }");
        assertEquals("ab" + "c".repeat(247), route(r, record(utf8("{}"), utf8("ab" + "c".repeat(248) + "   "))));
    }

    // ---- R6: missing, null or blank never becomes "null" ----

    @ParameterizedTest(name = "R6 {0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"user\":{\"id\":42}}|42",
        "{\"user\":{}}|fallback:unrouted",
        "{\"user\":{\"id\":null}}|fallback:unrouted",
        "{\"user\":{\"id\":\"\"}}|fallback:unrouted",
        "{\"user\":{\"id\":\"  \"}}|fallback:unrouted",
        "{}|fallback:unrouted"})
    void shouldNeverRouteMissingNullOrBlankToATopicCalledNull(final String json, final String expected)
    {
        assertEquals(expected, route(router("{ strategy = \"field\", path = \"user.id\", fallback = \"unrouted\" }"),
            value(json)));
    }

    @Test
    void shouldFailTheRecordOfR6WithoutAFallback()
    {
        final TopicRouter r = router("{ strategy = \"field\", path = \"user.id\" }");
        assertEquals(TopicRouter.MISSING, r.route(value("{\"user\":{\"id\":null}}")));
        assertNull(r.topicName());
        assertEquals(TopicRouter.WHY_NULL, r.why());
        assertEquals("field user.id: null at the path", r.reason());
    }

    // ---- R7: numeric path segments ----

    @ParameterizedTest(name = "R7 {0} on {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "heads.0.value|{\"heads\":{\"0\":{\"value\":250}}}|250",
        "items.1.sku|{\"items\":[{\"sku\":\"A-1\"},{\"sku\":\"B/2\"}]}|B_2",
        "items.5.sku|{\"items\":[{\"sku\":\"A-1\"},{\"sku\":\"B/2\"}]}|missing: field items.5.sku: no value at the path",
        "items.0.sku|{\"items\":{\"sku\":\"x\"}}|missing: field items.0.sku: no value at the path"})
    void shouldIndexArraysAndNameKeysWithNumericSegments(final String path, final String json, final String expected)
    {
        assertEquals(expected, route(router("{ strategy = \"field\", path = \"" + path + "\" }"), value(json)));
    }

    // ---- every produced name passes Kafka's own validation ----

    @ParameterizedTest
    @ValueSource(strings = {"{value}", "users.{value}", "{value}.{value}", "t-{value}-x"})
    void shouldOnlyProduceNamesKafkaAccepts(final String template)
    {
        final Random random = new Random(template.hashCode());
        final TopicRouter r = router("{ strategy = \"key\", template = \"" + template + "\" }");
        final RecordEvent e = record(utf8("{}"), utf8("x"));
        for (int i = 0; i < 5_000; i++)
        {
            final byte[] key = new byte[random.nextInt(300)];
            random.nextBytes(key);
            Records.fill(e, utf8("{}"), key);
            if (r.route(e) == TopicRouter.ROUTED)
            {
                final String name = r.topicName();
                assertDoesNotThrow(() -> Topic.validate(name));
            }
        }
    }

    // ---- zero allocation on the hot path ----

    @Test
    void shouldNotAllocatePerRecord()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory
            .getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        final TopicRouter[] routers = {
            router(
                "{ strategy = \"field\", path = \"user.id\", template = \"users.{value}\", fallback = \"unrouted\" }"),
            router("{ strategy = \"header\", header = \"tenant\", template = \"tenant.{value}\" }"),
            router("{ strategy = \"key\", template = \"keys.{value}\" }"),
            router("{ strategy = \"hash\", path = \"user.id\", buckets = 16, template = \"shard.{value}\" }"),
            router("\"orders\"")};
        final RecordEvent[] records = {
            record(utf8("{\"user\":{\"id\":\"caf\\u00e9 42\"},\"x\":[1,2,3]}"), utf8("k"), "tenant", "acme corp"),
            record(utf8("{\"user\":{\"id\":null}}"), null),
            record(utf8("{\"user\":{\"id\":12345}}"), utf8("  "), "tenant", "   ")};
        int sink = 0;
        for (int i = 0; i < 200_000; i++)
        {
            for (final TopicRouter r : routers)
            {
                sink += r.route(records[i % records.length]) + r.topicLength();
            }
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 300_000; i++)
        {
            for (final TopicRouter r : routers)
            {
                sink += r.route(records[i % records.length]) + r.topicLength();
            }
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(0, allocated, "bytes allocated over 1.5M rule evaluations (" + sink + ")");
    }
}
