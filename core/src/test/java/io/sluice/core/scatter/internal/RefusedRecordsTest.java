package io.sluice.core.scatter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;

/**
 * Records the broker refuses for good (issue 12, item 7), against the in-memory cluster: each permanent kind goes to
 * the rule's fallback once, or stops the pipeline at once naming the record, the topic and the error; nothing is
 * retried, so no later record is sent twice. Case T7 on the real broker is engine's RefusedTopicsIT.
 */
class RefusedRecordsTest
{
    private static final long STALL_MS = 60_000;

    @TempDir
    Path dir;

    private record Run(int exit, long millis, String failure, ScatterPipeline pipeline)
    {
    }

    private Run run(final FakeScatterDriver driver, final List<String> lines, final String sourceKeys,
        final String template, final String fallback) throws IOException
    {
        final Path file = dir.resolve("in-" + System.nanoTime() + ".jsonl");
        Files.write(file, lines);
        final String toml = """
            [kafka]
            bootstrap_servers = "fake:1"
            [checkpoint]
            commit_interval_ms = 50
            stalled_fail_after_ms = %d
            drain_timeout_ms = 3000
            [engine]
            ring_size = 64
            slot_bytes = 256
            status_interval_ms = 0
            [[sources]]
            name = "users"
            kind = "file"
            path = '%s'
            retry_backoff_ms = 20
            retry_backoff_max_ms = 100
            %s
            [[sources.topics]]
            topic = { strategy = "field", path = "u", template = "%s"%s }
            """.formatted(STALL_MS, file, sourceKeys, template,
            fallback == null ? "" : ", fallback = \"" + fallback + "\"");
        final SluiceEngine engine = new SluiceEngine(ConfigLoader.parse(toml), sink ->
        {
            throw new IllegalStateException("no sinks here");
        }, source -> driver, new GatherPipeline.RunOptions(false));
        final long start = System.nanoTime();
        final int exit = engine.run();
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        final ScatterPipeline p = engine.scatterPipelines().get(0);
        return new Run(exit, ms, p.control().failureReason(), p);
    }

    private static List<String> records(final String... users)
    {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < users.length; i++)
        {
            out.add("{\"u\":\"" + users[i] + "\",\"seq\":" + i + "}");
        }
        return out;
    }

    /** @return how often each value was handed to the producer, over every topic */
    private static Map<String, Integer> sendsPerValue(final FakeScatterDriver d)
    {
        final Map<String, Integer> out = new HashMap<>();
        synchronized (d.sendOrder)
        {
            for (final String s : d.sendOrder)
            {
                out.merge(s.substring(s.indexOf(' ') + 1), 1, Integer::sum);
            }
        }
        return out;
    }

    private static void assertProducedOnce(final FakeScatterDriver d, final List<String> lines)
    {
        assertEquals(lines.size(), d.total(), d.produced.toString());
        for (final String l : lines)
        {
            assertEquals(1, d.produced.values().stream().mapToLong(v -> v.stream().filter(l::equals).count()).sum(),
                l + " in " + d.produced);
        }
    }

    @Test
    void shouldSendARecordTooLargeForItsTopicToTheFallbackOnceAndNothingTwice() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        // the broker's answer for a record above the topic's max.message.bytes; the fallback has a larger limit
        d.refuse = v -> v.startsWith("users.big ")
            ? new RecordTooLargeException("The request included a message larger than the max message size the "
                + "server will accept.")
            : null;
        final List<String> lines = records("a", "b", "big", "a", "b");
        final Run r = run(d, lines, "create_topics = true", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(2)), d.produced.get("fb"));
        assertProducedOnce(d, lines);
        // the refused record was sent twice (its topic, then the fallback); every other record once: no re-read
        final Map<String, Integer> sends = sendsPerValue(d);
        assertEquals(2, sends.get(lines.get(2)));
        for (final int i : new int[]{0, 1, 3, 4})
        {
            assertEquals(1, sends.get(lines.get(i)), lines.get(i));
        }
        assertEquals(1, r.pipeline().stats().refused.get());
        assertEquals(1, r.pipeline().stats().fallbacks.get());
    }

    @Test
    void shouldStopWhenTheFallbackRefusesTheRecordTooNamingBoth() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        // over max.request.size: the producer refuses it inside send, whatever the topic
        d.refuseNow = v -> v.contains("\"big\"")
            ? new RecordTooLargeException("The message is 9437310 bytes when serialized which is larger than 1048576, "
                + "which is the value of the max.request.size configuration.")
            : null;
        final List<String> lines = records("a", "big", "b");
        final Run r = run(d, lines, "create_topics = true", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit());
        assertTrue(r.millis() < STALL_MS / 4, r.millis() + " ms");
        assertTrue(r.failure().contains("line 2: the broker refused the record for topic fb for good "
            + "(RecordTooLargeException): The message is 9437310 bytes"), r.failure());
        assertTrue(r.failure().contains("it was on its way to the fallback"), r.failure());
        assertEquals(null, d.produced.get("fb"));
        // tried on its topic, then on the fallback; never again
        assertEquals(2, sendsPerValue(d).get(lines.get(1)));
    }

    @Test
    void shouldStopAtOnceNamingTheRecordTheTopicAndTheErrorWithoutAFallback() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        d.refuseNow = v -> v.contains("\"big\"") ? new RecordTooLargeException("larger than max.request.size") : null;
        final List<String> lines = records("a", "big", "b", "a");
        final Run r = run(d, lines, "create_topics = true", "users.{value}", null);
        assertEquals(SluiceEngine.EXIT_FAILURE, r.exit());
        assertTrue(r.millis() < STALL_MS / 4, "stopped at once, not after the stall limit: " + r.millis() + " ms");
        assertTrue(r.failure().contains("line 2: the broker refused the record for topic users.big for good "
            + "(RecordTooLargeException): larger than max.request.size; the rule has no fallback"), r.failure());
        sendsPerValue(d).forEach((v, n) -> assertEquals(1, n, v));
    }

    @Test
    void shouldSendEveryRecordOfATopicTheBrokerRefusesToTheFallbackAndNoLaterOneTwice() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        d.refuse = v -> v.startsWith("users.secret ")
            ? new TopicAuthorizationException("Not authorized to access topics: [users.secret]")
            : null;
        final List<String> lines = records("a", "secret", "b", "secret", "a", "secret", "b");
        final Run r = run(d, lines, "create_topics = true", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        // each once; the first one is re-sent when its refusal comes back, which may be after the later ones went to
        // the fallback directly (docs/routing.md, order in the fallback)
        assertEquals(Set.of(lines.get(1), lines.get(3), lines.get(5)), Set.copyOf(d.produced.get("fb")));
        assertEquals(3, d.produced.get("fb").size(), String.valueOf(d.produced.get("fb")));
        assertProducedOnce(d, lines);
        for (final int i : new int[]{0, 2, 4, 6})
        {
            assertEquals(1, sendsPerValue(d).get(lines.get(i)), lines.get(i));
        }
        assertEquals(TopicEntry.REFUSED, r.pipeline().topics().entry(r.pipeline().topics().intern("users.secret"))
            .state());
        assertEquals(3, r.pipeline().stats().refused.get());
    }

    @Test
    void shouldRefuseANameThatCollidesWithAnExistingTopicNamingBoth() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver("x.eu");
        final List<String> lines = records("us", "eu", "us");
        final Run withFallback = run(d, lines, "create_topics = true", "x_{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, withFallback.exit(), withFallback.failure());
        assertEquals(List.of(lines.get(1)), d.produced.get("fb"));
        assertTrue(!d.topics.contains("x_eu"), "never asked the broker to create it");

        final FakeScatterDriver d2 = new FakeScatterDriver("x.eu");
        final Run without = run(d2, lines, "create_topics = true", "x_{value}", null);
        assertEquals(SluiceEngine.EXIT_FAILURE, without.exit());
        assertTrue(without.millis() < STALL_MS / 4, without.millis() + " ms");
        assertTrue(without.failure().contains("line 2: topic x_eu collides with the existing topic x.eu"),
            without.failure());
    }

    @Test
    void shouldRefuseAnInternalTopicWithoutAskingTheBroker() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver("__consumer_offsets");
        final List<String> lines = records("a", "__consumer_offsets", "b");
        final Run r = run(d, lines, "create_topics = true", "{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(1)), d.produced.get("fb"));
        assertEquals(null, d.produced.get("__consumer_offsets"));

        final Run stop = run(new FakeScatterDriver("__consumer_offsets"), lines, "create_topics = true", "{value}",
            null);
        assertEquals(SluiceEngine.EXIT_FAILURE, stop.exit());
        assertTrue(stop.failure().contains("topic __consumer_offsets is internal to Kafka"), stop.failure());
    }

    /** Issue 25 item 2: each reserved name, as the value itself, after sanitising, or from a template. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{value}|__consumer_offsets|__consumer_offsets",
        "{value}|__transaction_state|__transaction_state",
        "{value}|__share_group_state|__share_group_state",
        "{value}|__cluster_metadata|__cluster_metadata",
        "{value}|__remote_log_metadata|__remote_log_metadata",
        "{value}|'  __cluster_metadata  '|__cluster_metadata",
        "{value}|__cluster metadata|__cluster_metadata",
        "{value}|__cluster\u00e9metadata|__cluster_metadata",
        "{value}|__cluster.metadata|__cluster.metadata",
        "{value}|__consumer.offsets|__consumer.offsets",
        "__{value}|cluster_metadata|__cluster_metadata",
        "__cluster_{value}|metadata|__cluster_metadata",
        "{value}_state|__transaction|__transaction_state"})
    void shouldRefuseAReservedNameBeforeAnyCreateOrSendTakingTheFallbackElseStoppingAtOnce(final String template,
        final String value, final String topic) throws IOException
    {
        final List<String> lines = records("a", value, "b");
        for (final String createTopics : List.of("create_topics = true", "create_topics = false"))
        {
            final FakeScatterDriver d = new FakeScatterDriver("fb", "a", "b", "a_state", "__a", "__cluster_a",
                "b_state", "__b", "__cluster_b");
            final Run r = run(d, lines, createTopics, template, "fb");
            assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
            assertEquals(List.of(lines.get(1)), d.produced.get("fb"), createTopics);
            assertEquals(null, d.produced.get(topic));
            assertTrue(!d.asked.contains(topic), "never asked the broker for it: " + d.asked);
            assertEquals(1, r.pipeline().stats().refused.get());
            assertEquals(1, r.pipeline().stats().fallbacks.get());
            assertEquals(TopicEntry.REFUSED,
                r.pipeline().topics().entry(r.pipeline().topics().intern(topic)).state());

            final FakeScatterDriver d2 = new FakeScatterDriver("a", "b", "a_state", "__a", "__cluster_a", "b_state",
                "__b", "__cluster_b");
            final Run stop = run(d2, lines, createTopics, template, null);
            assertEquals(SluiceEngine.EXIT_FAILURE, stop.exit());
            assertTrue(stop.millis() < STALL_MS / 4, "at once, not after the stall limit: " + stop.millis() + " ms");
            assertTrue(stop.failure().contains("line 2: topic " + topic + " "), stop.failure());
            assertTrue(stop.failure().contains(topic.contains(".")
                ? "collides with Kafka's internal topic"
                : "is internal to Kafka"), stop.failure());
            assertTrue(stop.failure().contains("(routing rule field u, template '" + template + "'); the rule has "
                + "no fallback"), stop.failure());
            assertTrue(!d2.asked.contains(topic), d2.asked.toString());
            assertEquals(null, d2.produced.get(topic));
        }
    }

    @Test
    void shouldRouteACaseVariantOfAReservedNameAsAnOrdinaryTopic() throws IOException
    {
        // Kafka topic names are case-sensitive: __CLUSTER_METADATA is not the metadata log
        final FakeScatterDriver d = new FakeScatterDriver();
        final List<String> lines = records("__CLUSTER_METADATA", "__Consumer_Offsets");
        final Run r = run(d, lines, "create_topics = true", "{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(0)), d.produced.get("__CLUSTER_METADATA"));
        assertEquals(List.of(lines.get(1)), d.produced.get("__Consumer_Offsets"));
        assertEquals(null, d.produced.get("fb"));
        assertEquals(0, r.pipeline().stats().refused.get());
    }

    @Test
    void shouldRefuseWhatTheBrokerListsAsInternalWithoutAskingForIt() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        d.internal = Set.of("__future_state");
        final List<String> lines = records("a", "__future_state", "__future.state", "a");
        final Run r = run(d, lines, "create_topics = true", "{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(1), lines.get(2)), d.produced.get("fb"));
        assertTrue(!d.asked.contains("__future_state") && !d.asked.contains("__future.state"), d.asked.toString());
        assertEquals(2, r.pipeline().stats().refused.get());
    }

    @Test
    void shouldTakeTheBrokersRefusalOfAnInternalTopicAsPermanentNotRetryIt() throws IOException
    {
        // a name only the broker knows is internal: Kafka 4.1 answers CreateTopics for its metadata log so
        final FakeScatterDriver d = new FakeScatterDriver();
        d.refuseCreate = n -> n.equals("__newer_log")
            ? new InvalidRequestException("Creation of internal topic __newer_log is prohibited.")
            : null;
        final List<String> lines = records("a", "__newer_log", "b", "__newer_log", "a");
        final Run r = run(d, lines, "create_topics = true", "{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(1), lines.get(3)), d.produced.get("fb"));
        assertProducedOnce(d, lines);
        assertEquals(1, d.asked.stream().filter("__newer_log"::equals).count(), "asked once, never again: " + d.asked);

        final FakeScatterDriver d2 = new FakeScatterDriver();
        d2.refuseCreate = d.refuseCreate;
        final Run stop = run(d2, lines, "create_topics = true", "{value}", null);
        assertEquals(SluiceEngine.EXIT_FAILURE, stop.exit());
        assertTrue(stop.millis() < STALL_MS / 4, stop.millis() + " ms");
        assertTrue(stop.failure().contains("line 2: cannot create topic __newer_log: "), stop.failure());
        assertTrue(stop.failure().contains("Creation of internal topic __newer_log is prohibited."), stop.failure());
        assertTrue(stop.failure().contains("the rule has no fallback"), stop.failure());
    }

    @Test
    void shouldTreatAnUnknownTopicUnderCreateTopicsFalseAsPermanent() throws IOException
    {
        final List<String> lines = records("a", "gone", "a");
        final FakeScatterDriver d = new FakeScatterDriver("users.a", "fb");
        final Run r = run(d, lines, "create_topics = false", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(1)), d.produced.get("fb"));
        assertProducedOnce(d, lines);

        final Run stop = run(new FakeScatterDriver("users.a"), lines, "create_topics = false", "users.{value}", null);
        assertEquals(SluiceEngine.EXIT_FAILURE, stop.exit());
        assertTrue(stop.millis() < STALL_MS / 4, stop.millis() + " ms");
        assertTrue(stop.failure().contains("topic users.gone does not exist and create_topics = false"),
            stop.failure());
    }

    @Test
    void shouldSendToTheFallbackWhatTheBrokerRefusesToCreate() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        d.refuseCreate = n -> n.equals("users.bad")
            ? new PolicyViolationException("topic names may not contain 'bad'")
            : n.equals("users.worse") ? new InvalidTopicException("Topic name is invalid") : null;
        final List<String> lines = records("a", "bad", "worse", "a");
        final Run r = run(d, lines, "create_topics = true", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertEquals(List.of(lines.get(1), lines.get(2)), d.produced.get("fb"));
        assertProducedOnce(d, lines);
    }

    @Test
    void shouldCreateTheFallbackAtStartOutsideTheNewTopicRateLimit() throws IOException
    {
        final FakeScatterDriver d = new FakeScatterDriver();
        final List<String> lines = records("a", "b", "a");
        final Run r = run(d, lines, "create_topics = true\nmax_new_topics_per_minute = 1", "users.{value}", "fb");
        assertEquals(SluiceEngine.EXIT_OK, r.exit(), r.failure());
        assertTrue(d.topics.contains("fb"));
        // the one new topic a minute went to users.a, not to the fallback: users.b waits, its record takes fb
        assertEquals(List.of(lines.get(0), lines.get(2)), d.produced.get("users.a"));
        assertEquals(List.of(lines.get(1)), d.produced.get("fb"));
        assertEquals(2, r.pipeline().stats().topicsCreated.get());
    }
}
