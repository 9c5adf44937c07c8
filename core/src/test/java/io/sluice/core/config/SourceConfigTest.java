package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.core.config.SluiceConfig.Source;
import io.sluice.core.config.SluiceConfig.TopicRule;
import io.sluice.core.config.SluiceConfig.TopicRule.Strategy;

/** The [[sources]] part of the configuration: every key, every strategy, every problem named by key and line. */
class SourceConfigTest
{
    private static final String KAFKA = "[kafka]\nbootstrap_servers = \"127.0.0.1:19092\"\n\n";

    private static String source(final String sourceKeys, final String topic)
    {
        return KAFKA + "[[sources]]\nname = \"s\"\n" + sourceKeys + "\n[[sources.topics]]\ntopic = " + topic + "\n";
    }

    private static String fileSource(final String topic)
    {
        return source("kind = \"file\"\npath = \"in.jsonl\"", topic);
    }

    private static List<ConfigProblem> problems(final String toml)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(toml)).problems();
    }

    private static String only(final String toml)
    {
        final List<ConfigProblem> p = problems(toml);
        assertEquals(1, p.size(), p.toString());
        return p.get(0).toString();
    }

    @Test
    void shouldReadAKafkaSourceWithEveryKey()
    {
        final SluiceConfig c = ConfigLoader.parse(KAFKA + """
            [[sources]]
            name = "firehose"
            kind = "kafka"
            pattern = 'events\\..*'
            group_id = "g"
            auto_offset_reset = "latest"
            topic_refresh_ms = 500
            create_topics = true
            partitions = 3
            replication_factor = 1
            max_new_topics_per_minute = 2000
            retry_backoff_ms = 10
            retry_backoff_max_ms = 100

            [[sources.topics]]
            topic = { strategy = "field", path = "user.id", template = "users.{value}", fallback = "users.unknown" }
            """);
        assertTrue(c.sinks().isEmpty());
        final Source s = c.source("firehose");
        assertEquals("kafka", s.kind());
        assertEquals("events\\..*", s.pattern());
        assertEquals(List.of(), s.inputTopics());
        assertEquals("g", s.groupId());
        assertEquals("latest", s.autoOffsetReset());
        assertEquals(500, s.topicRefreshMs());
        assertTrue(s.createTopics());
        assertEquals(3, s.partitions());
        assertEquals(1, s.replicationFactor());
        assertEquals(2000, s.maxNewTopicsPerMinute());
        assertEquals(10, s.retryBackoffMs());
        assertEquals(100, s.retryBackoffMaxMs());
        assertEquals(new TopicRule(Strategy.FIELD, null, "user.id", null, "users.{value}", "users.unknown", 0),
            s.rule());
        assertEquals("field user.id", s.rule().describe());
    }

    @Test
    void shouldTakeDefaults()
    {
        final Source s = ConfigLoader.parse(source("kind = \"kafka\"\ninput_topics = [\"a\", \"b\"]\ngroup_id = \"g\"",
            "\"orders\"")).sources().get(0);
        assertEquals(List.of("a", "b"), s.inputTopics());
        assertNull(s.pattern());
        assertEquals("earliest", s.autoOffsetReset());
        assertEquals(false, s.createTopics());
        assertEquals(1, s.partitions());
        assertEquals(-1, s.replicationFactor());
        assertEquals(100, s.maxNewTopicsPerMinute());
        assertEquals(200, s.retryBackoffMs());
        assertEquals(5000, s.retryBackoffMaxMs());
        assertEquals(64 << 20, s.replayBufferBytes());
        assertEquals(new TopicRule(Strategy.STATIC, null, null, null, "orders", null, 0), s.rule());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "'orders'|STATIC||||orders||0",
        "{ strategy = 'static', name = 'orders' }|STATIC||||orders||0",
        "{ strategy = 'static', template = 'orders' }|STATIC||||orders||0",
        "{ strategy = 'field', path = 'user.id', template = 'users.{value}' }|FIELD||user.id||users.{value}||0",
        "{ strategy = 'field', path = 'user_id' }|FIELD||user_id||{value}||0",
        "{ strategy = 'header', header = 'tenant', template = 'tenant.{value}', fallback = 'tenant.unknown' }"
            + "|HEADER|||tenant|tenant.{value}|tenant.unknown|0",
        "{ strategy = 'key', template = 'keys.{value}' }|KEY||||keys.{value}||0",
        "{ strategy = 'hash', path = 'user.id', buckets = 16, template = 'shard.{value}' }|HASH|FIELD|user.id||shard.{value}||16",
        "{ strategy = 'hash', header = 'tenant', buckets = 4 }|HASH|HEADER||tenant|{value}||4",
        "{ strategy = 'hash', buckets = 12, template = 'k.{value}' }|HASH|KEY|||k.{value}||12"})
    void shouldReadTheSeedsRules(final String topic, final Strategy strategy, final Strategy hashOf, final String path,
        final String header, final String template, final String fallback, final int buckets)
    {
        final TopicRule rule = ConfigLoader.parse(fileSource(topic.replace('\'', '"'))).sources().get(0).rule();
        assertEquals(new TopicRule(strategy, hashOf, path, header, template, fallback, buckets), rule);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{ strategy = 'field' }|sources[0].topics[0].topic.path (line 9): missing: field needs the JSON path",
        "{ strategy = 'hash', path = 'a' }|sources[0].topics[0].topic.buckets (line 9): missing: hash needs buckets",
        "{ strategy = 'hash', path = 'a', header = 'h', buckets = 2 }|hash reads one of path (a field), header or the key",
        "{ strategy = 'hash', buckets = 0 }|sources[0].topics[0].topic.buckets (line 9): 0 is out of range [1, 1000000]",
        "{ strategy = 'header' }|topic.header (line 9): missing: header needs the header name",
        "{ strategy = 'key', path = 'a' }|topic.path (line 9): not used by strategy = \"key\": path is for field and hash",
        "{ strategy = 'field', path = 'a', buckets = 3 }|topic.buckets (line 9): not used by strategy = \"field\"",
        "{ strategy = 'static' }|topic.name (line 9): static needs the topic name",
        "{ strategy = 'static', name = 'a', fallback = 'b' }|a static topic is never missing, so it has no fallback",
        "{ strategy = 'static', template = 'u.{value}' }|static has no value",
        "{ strategy = 'random', path = 'a' }|topic.strategy (line 9): \"random\" is not one of \"static\", \"field\"",
        "{ path = 'a' }|topic.strategy (line 9): missing (required)",
        "{ strategy = 'field', path = 'a..b' }|topic.path (line 9): JSON path 'a..b' has an empty segment at position 2",
        "{ strategy = 'field', path = 'a', template = 'users.{user_id}' }|topic.template (line 9): routing template "
            + "'users.{user_id}': unknown placeholder '{user_id}'",
        "{ strategy = 'field', path = 'a', template = '' }|the template is empty",
        "{ strategy = 'field', path = 'a', fallback = 'not legal' }|topic.fallback (line 9): \"not legal\" is not a legal "
            + "topic name (Kafka allows [a-zA-Z0-9._-], at most 249 characters); did you mean \"not_legal\"?",
        "{ strategy = 'field', path = 'a', fallback = '..' }|\"..\" is not a topic name",
        "{ strategy = 'field', path = 'a', bukets = 2 }|topic.bukets (line 9): unknown key; did you mean buckets?",
        "'orders/eu'|sources[0].topics[0].topic (line 9): \"orders/eu\" is not a legal topic name",
        "'__cluster_metadata'|sources[0].topics[0].topic (line 9): topic __cluster_metadata is internal to Kafka "
            + "(Kafka reserves it for the KRaft metadata log)",
        "{ strategy = 'static', name = '__consumer_offsets' }|topic.name (line 9): topic __consumer_offsets is internal",
        "{ strategy = 'field', path = 'a', fallback = '__remote_log_metadata' }|topic.fallback (line 9): topic "
            + "__remote_log_metadata is internal to Kafka",
        "{ strategy = 'field', path = 'a', fallback = '__transaction.state' }|topic.fallback (line 9): topic "
            + "__transaction.state collides with Kafka's internal topic __transaction_state",
        "{ strategy = 'field', path = 'a', fallback = ' __cluster_metadata' }|topic.fallback (line 9): \" "
            + "__cluster_metadata\" is not a legal topic name (Kafka allows [a-zA-Z0-9._-], at most 249 characters); "
            + "sanitised it would be __cluster_metadata, which is refused too: topic __cluster_metadata is internal",
        "'__consumer offsets'|sources[0].topics[0].topic (line 9): \"__consumer offsets\" is not a legal topic name "
            + "(Kafka allows [a-zA-Z0-9._-], at most 249 characters); sanitised it would be __consumer_offsets, which "
            + "is refused too",
        "{ strategy = 'field', path = 'a', fallback = '__share.group state' }|sanitised it would be "
            + "__share.group_state, which is refused too: topic __share.group_state collides with Kafka's internal "
            + "topic __share_group_state",
        "42|expected a topic name or an inline table"})
    void shouldNameEveryProblemOfARule(final String topic, final String expected)
    {
        final String problem = only(fileSource(topic.replace('\'', '"')));
        assertTrue(problem.contains(expected), problem);
        assertFalse(problem.contains("did you mean \"__"), "never suggests a name Kafka reserves: " + problem);
    }

    @Test
    void shouldCollectEveryProblemOfASourceAtOnce()
    {
        final List<ConfigProblem> p = problems(KAFKA + """
            [[sources]]
            name = "s"
            kind = "kafka"
            path = "x"
            partitions = 0
            retry_backoff_ms = 1000
            retry_backoff_max_ms = 10
            create_topic = true

            [[sources.topics]]
            topic = { strategy = "hash", path = "a" }
            """);
        final String all = p.toString();
        assertEquals(7, p.size(), all);
        assertTrue(
            all.contains(
                "sources[0].pattern (line 5): a kafka source needs pattern (a regular expression) or input_topics"),
            all);
        assertTrue(all.contains("sources[0].group_id (line 5): missing: a kafka source needs a consumer group"), all);
        assertTrue(all.contains("sources[0].path (line 7): only for kind = \"file\""), all);
        assertTrue(all.contains("sources[0].partitions (line 8): 0 partitions"), all);
        assertTrue(all.contains("sources[0].retry_backoff_max_ms (line 10): 10 is below retry_backoff_ms (1000)"), all);
        assertTrue(all.contains("sources[0].create_topic (line 11): unknown key; did you mean create_topics?"), all);
        assertTrue(all.contains("sources[0].topics[0].topic.buckets (line 14): missing: hash needs buckets"), all);
    }

    @Test
    void shouldRejectKafkaKeysOnOtherKinds()
    {
        final String p = problems(source("kind = \"stdin\"\ngroup_id = \"g\"\npattern = \"x\"", "\"t\"")).toString();
        assertTrue(
            p.contains("sources[0].group_id (line 7): only for kind = \"kafka\" (this source is kind = \"stdin\")"), p);
        assertTrue(p.contains("sources[0].pattern (line 8): only for kind = \"kafka\""), p);
    }

    @Test
    void shouldTakeACheckpointFileOnlyOnAFileSourceAndNotTheInputItself()
    {
        final SluiceConfig ok = ConfigLoader
            .parse(source("kind = \"file\"\npath = \"in.jsonl\"\ncheckpoint_file = \"in.pos\"", "\"t\""));
        assertEquals("in.pos", ok.sources().get(0).checkpointFile());
        assertNull(ConfigLoader.parse(fileSource("\"t\"")).sources().get(0).checkpointFile());
        final String stdin = only(source("kind = \"stdin\"\ncheckpoint_file = \"in.pos\"", "\"t\""));
        assertTrue(
            stdin.contains("sources[0].checkpoint_file (line 7): only for kind = \"file\" (this source is kind = "
                + "\"stdin\"; a kafka source resumes from its group's committed offsets, stdin cannot be re-read)"),
            stdin);
        final String itself = only(source("kind = \"file\"\npath = \"in.jsonl\"\ncheckpoint_file = \"in.jsonl\"",
            "\"t\""));
        assertTrue(itself.contains("sources[0].checkpoint_file (line 8): is the input file itself (path)"), itself);
        final String empty = only(source("kind = \"file\"\npath = \"in.jsonl\"\ncheckpoint_file = \" \"", "\"t\""));
        assertTrue(empty.contains("sources[0].checkpoint_file (line 8): empty"), empty);
    }

    @Test
    void shouldExplainThatTopicsIsTheRoutingBlock()
    {
        final String p = only(KAFKA + """
            [[sources]]
            name = "s"
            kind = "kafka"
            group_id = "g"
            pattern = "x"
            topics = ["a", "b"]
            """);
        assertTrue(p.contains("sources[0].topics (line 9): [[sources.topics]] is the routing block (topic = ...); the "
            + "topics a kafka source consumes go in input_topics = [...]"), p);
    }

    @Test
    void shouldRequireExactlyOneTopicsBlock()
    {
        final String none = only(KAFKA + "[[sources]]\nname = \"s\"\nkind = \"stdin\"\n");
        assertTrue(none.contains("sources[0].topics (line 5): missing (required)"), none);
        final String two = only(
            KAFKA + "[[sources]]\nname = \"s\"\nkind = \"stdin\"\n[[sources.topics]]\ntopic = \"a\"\n"
                + "[[sources.topics]]\ntopic = \"b\"\n");
        assertTrue(two.contains("2 [[sources.topics]] blocks: a source has exactly one"), two);
    }

    @Test
    void shouldRequireAPathForAFileSourceAndUniqueNames()
    {
        assertTrue(only(source("kind = \"file\"", "\"t\""))
            .contains("sources[0].path (line 5): missing: a file source needs"));
        final String dup = only(
            KAFKA + "[[sources]]\nname = \"s\"\nkind = \"stdin\"\n[[sources.topics]]\ntopic = \"a\"\n"
                + "[[sources]]\nname = \"s\"\nkind = \"embedded\"\n[[sources.topics]]\ntopic = \"b\"\n");
        assertTrue(dup.contains("sources[1].name (line 10): duplicate source name \"s\""), dup);
    }

    /**
     * One process has one standard input: a run refuses a second stdin source (it would take an arbitrary share of the
     * lines), while the file itself loads, as the dry run applies any source's rule to its own input.
     */
    @Test
    void shouldNameBothStdinSourcesThatCannotRunTogether()
    {
        final String stdin = "kind = \"stdin\"\n[[sources.topics]]\ntopic = \"a\"\n";
        final SluiceConfig two = ConfigLoader.parse(KAFKA + "[[sources]]\nname = \"first\"\n" + stdin
            + "[[sources]]\nname = \"second\"\n" + stdin);
        assertEquals(2, two.sources().size());
        final String why = two.stdinConflict();
        assertTrue(why != null && why.contains("source \"second\" reads stdin, which source \"first\" reads already"),
            String.valueOf(why));
        assertNull(ConfigLoader.parse(KAFKA + "[[sources]]\nname = \"first\"\n" + stdin
            + "[[sources]]\nname = \"second\"\nkind = \"file\"\npath = \"in.jsonl\"\n[[sources.topics]]\ntopic = \"b\"\n")
            .stdinConflict(), "a stdin source beside a file source");
    }

    @Test
    void shouldAcceptAConfigurationWithOnlySourcesButNotOneWithNothing()
    {
        assertEquals(1, ConfigLoader.parse(fileSource("\"t\"")).sources().size());
        assertTrue(only(KAFKA).contains("no [[sources]] or [[sinks]] defined: nothing to run"));
    }

    @Test
    void shouldNameTheSourceThatDoesNotExist()
    {
        final SluiceConfig c = ConfigLoader.parse(fileSource("\"t\""));
        final ConfigException e = assertThrows(ConfigException.class, () -> c.source("nope"));
        assertTrue(e.getMessage().contains("no source named \"nope\" (sources: s)"), e.getMessage());
    }

    @Test
    void shouldRejectASourcePatternThatNeedsBacktrackingNamingTheKeyAndLine()
    {
        final String p = only(source("kind = \"kafka\"\ngroup_id = \"g\"\npattern = 'in\\.(a+)++'", "\"out\""));
        assertTrue(p.startsWith("sources[0].pattern (line 8): not a regular expression Sluice can run"), p);
        assertTrue(p.contains("possessive quantifiers are not supported"), p);
    }
}
