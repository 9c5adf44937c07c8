package io.sluice.engine;

import static io.sluice.engine.DestinationFixtures.unique;
import static io.sluice.engine.KafkaRecords.utf8;
import static io.sluice.engine.RefusedTopicsIT.STALL_MS;
import static io.sluice.engine.RefusedTopicsIT.exists;
import static io.sluice.engine.RefusedTopicsIT.field;
import static io.sluice.engine.RefusedTopicsIT.run;
import static io.sluice.engine.RefusedTopicsIT.text;
import static io.sluice.engine.RefusedTopicsIT.texts;
import static io.sluice.engine.RefusedTopicsIT.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.naming.ReservedTopics;
import io.sluice.core.scatter.ProduceErrors;

/**
 * Issue 25 item 2 on the real broker: every name Kafka reserves ({@link ReservedTopics}) is a permanent routing
 * failure found before any create or produce. With a fallback the record goes there (counted as refused, as case
 * T7); without one the run stops at once, well before {@code stalled_fail_after_ms}, naming the record, the topic and
 * why; from a field, the key or a header, as the value itself, after sanitising, or through a template. A case
 * variant is an ordinary topic. Reuses {@link RefusedTopicsIT}'s fixtures.
 */
class ReservedTopicsIT
{
    /** The case, the broker's own words: a CreateTopics for the metadata log, and what that means. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldFindThatTheBrokerRefusesTheMetadataLogButTakesItsCaseVariants() throws Exception
    {
        try (Admin a = TestServices.admin())
        {
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> a.createTopics(Set.of(new NewTopic("__cluster_metadata", 1, (short)1))).all().get());
            assertInstanceOf(InvalidRequestException.class, refused.getCause());
            assertTrue(refused.getCause().getMessage().contains("internal topic __cluster_metadata"),
                refused.getCause().getMessage());
            // transient by its class alone (the issue: retried until the stall limit); refused for good by its words
            assertEquals(ProduceErrors.Kind.TOPIC_REFUSED, ProduceErrors.classify(refused));
            // names are case-sensitive: the broker would create these (validated only, nothing created)
            a.createTopics(List.of(new NewTopic("__CLUSTER_METADATA", 1, (short)1),
                new NewTopic("__Consumer_Offsets", 1, (short)1)), new CreateTopicsOptions().validateOnly(true)).all()
                .get();
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldSendEveryReservedNameToTheFallbackAndCreateNone() throws Exception
    {
        final String s = unique("");
        final String input = "rsv-in-" + s;
        final String ok = "rsv" + s + ".ok";
        final String fallback = "rsv" + s + ".fb";
        final String upper = "__CLUSTER_METADATA";
        TestServices.createTopic(input, 1);
        final List<String> reserved = List.of("__consumer_offsets", "__transaction_state", "__share_group_state",
            "__cluster_metadata", "__remote_log_metadata", "  __cluster_metadata ", "__cluster metadata",
            "__cluster.metadata", "__consumer.offsets", "__remote.log_metadata");
        final List<String> routes = new ArrayList<>();
        routes.add(ok);
        routes.addAll(reserved);
        routes.add(upper);
        routes.add(ok);
        final List<byte[]> in = values(routes.toArray(new String[0]));
        TestServices.produce(input, in);
        try
        {
            final RefusedTopicsIT.Run r = run(input, "g-" + input, "create_topics = true\n", field("{value}",
                fallback));

            assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
            final List<String> expected = new ArrayList<>();
            for (int i = 1; i <= reserved.size(); i++)
            {
                expected.add(text(in, i));
            }
            assertEquals(expected, texts(fallback), "every reserved name, once each, in order");
            assertEquals(List.of(text(in, 0), text(in, routes.size() - 1)), texts(ok));
            assertEquals(List.of(text(in, reserved.size() + 1)), texts(upper), "a case variant is an ordinary topic");
            assertEquals(Map.of(new TopicPartition(input, 0), (long)in.size()), r.committed());
            assertEquals(reserved.size(), r.pipeline().stats().refused.get());
            assertEquals(reserved.size(), r.pipeline().stats().fallbacks.get());
            for (final String never : List.of("__remote_log_metadata", "__cluster.metadata", "__consumer.offsets",
                "__remote.log_metadata"))
            {
                assertFalse(exists(never), never + " was created");
            }
            assertTrue(r.millis() < STALL_MS / 4, r.millis() + " ms");
        }
        finally
        {
            ScatterEndToEndIT.deleteTopics(Set.of(input, ok, fallback, upper));
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldStopAtOnceNamingTheTopicAndWhyForEachReservedNameWithoutAFallback() throws Exception
    {
        for (final String name : List.of("__cluster_metadata", "__consumer_offsets", "__transaction_state",
            "__share_group_state", "__remote_log_metadata", "__share.group_state"))
        {
            final String s = unique("");
            final String input = "rsvs-in-" + s;
            final String ok = "rsvs" + s + ".ok";
            TestServices.createTopic(input, 1);
            final List<byte[]> in = values(ok, name, ok, ok);
            TestServices.produce(input, in);
            try
            {
                final RefusedTopicsIT.Run r = run(input, "g-" + input, "create_topics = true\n",
                    field("{value}", null));

                assertEquals(SluiceEngine.EXIT_FAILURE, r.exit(), name);
                assertTrue(r.millis() < STALL_MS / 4, name + ": at once, not after the stall limit: " + r.millis()
                    + " ms");
                assertTrue(r.failure().contains("record " + input + "-0@1: topic " + name + " "), r.failure());
                assertTrue(r.failure().contains(name.contains(".")
                    ? "collides with Kafka's internal topic __share_group_state"
                    : "is internal to Kafka (Kafka reserves it for " + ReservedTopics.NAMES.get(name) + ")"),
                    r.failure());
                assertTrue(r.failure().contains("the rule has no fallback"), r.failure());
                final Long committed = r.committed().get(new TopicPartition(input, 0));
                assertTrue(committed == null || committed <= 1, "nothing committed past the record: " + committed);
                final List<String> sent = texts(ok);
                assertTrue(sent.contains(text(in, 0)), "the record before it: " + sent);
                assertEquals(Set.copyOf(sent).size(), sent.size(), "no record sent twice: " + sent);
            }
            finally
            {
                ScatterEndToEndIT.deleteTopics(Set.of(input, ok));
            }
        }
        assertFalse(exists("__remote_log_metadata"));
        assertFalse(exists("__share.group_state"));
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldRefuseAReservedNameThatATemplateMakesFromTheKeyOrAHeader() throws Exception
    {
        final String s = unique("");
        final String input = "rsvk-in-" + s;
        final String fallback = "rsvk" + s + ".fb";
        TestServices.createTopic(input, 1);
        final List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        final String[] keys = {"rsvk" + s, "cluster_metadata", "consumer offsets", "rsvk" + s};
        final String[] headers = {"rsvk" + s, "__transaction", "__share_group", "rsvk" + s};
        for (int i = 0; i < keys.length; i++)
        {
            final RecordHeaders h = new RecordHeaders();
            h.add(new RecordHeader("h", utf8(headers[i])));
            records.add(new ProducerRecord<>(input, 0, utf8(keys[i]), utf8("{\"seq\":" + i + "}"), h));
        }
        KafkaRecords.produce(records);
        try
        {
            // the key through "__{value}", with a fallback
            final RefusedTopicsIT.Run byKey = run(input, "g1-" + input, "create_topics = true\n",
                "{ strategy = \"key\", template = \"__{value}\", fallback = \"" + fallback + "\" }");
            assertEquals(SluiceEngine.EXIT_OK, byKey.exit(), byKey.failure());
            assertEquals(List.of("{\"seq\":1}", "{\"seq\":2}"), texts(fallback));
            assertEquals(List.of("{\"seq\":0}", "{\"seq\":3}"), texts("__rsvk" + s));
            assertEquals(2, byKey.pipeline().stats().refused.get());

            // a header through "{value}_state", without one
            final RefusedTopicsIT.Run byHeader = run(input, "g2-" + input, "create_topics = true\n",
                "{ strategy = \"header\", header = \"h\", template = \"{value}_state\" }");
            assertEquals(SluiceEngine.EXIT_FAILURE, byHeader.exit());
            assertTrue(byHeader.millis() < STALL_MS / 4, byHeader.millis() + " ms");
            assertTrue(byHeader.failure().contains("record " + input + "-0@1: topic __transaction_state is internal "
                + "to Kafka (Kafka reserves it for the transaction coordinator's log)"), byHeader.failure());
            assertTrue(byHeader.failure().contains("the rule has no fallback"), byHeader.failure());
            final Long committed = byHeader.committed().get(new TopicPartition(input, 0));
            assertTrue(committed == null || committed <= 1, "not past the record: " + committed);
        }
        finally
        {
            ScatterEndToEndIT.deleteTopics(Set.of(input, fallback, "__rsvk" + s, "rsvk" + s + "_state"));
        }
    }
}
