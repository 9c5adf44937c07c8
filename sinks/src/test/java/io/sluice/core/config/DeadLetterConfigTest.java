package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.sinks.clickhouse.ClickHouseConfig;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@code dead_letter} as a policy beside fail and skip, {@code dead_letter_topic} with its creation keys on sinks and
 * sources, and {@code [sinks.plugin_config.settings]}: what the loader accepts and the problems it names.
 */
class DeadLetterConfigTest
{
    private static String sink(final String sinkKeys, final String pluginKeys)
    {
        return """
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "s"
            kind = "clickhouse"
            pattern = 'events\\..*'
            group_id = "g"
            """ + sinkKeys + """

            [sinks.plugin_config]
            endpoint = "http://ch:8123"
            target_table = "events"
            """ + pluginKeys;
    }

    private static String source(final String kind, final String keys)
    {
        return """
            [kafka]
            bootstrap_servers = "k:9092"

            [[sources]]
            name = "src"
            """ + kind + keys + """

            [[sources.topics]]
            topic = { strategy = "field", path = "user.id", template = "users.{value}" }
            """;
    }

    private static List<ConfigProblem> problems(final String toml)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(toml)).problems();
    }

    @Test
    void shouldTakeDeadLetterAsAPolicyWithATopicTemplate()
    {
        final SluiceConfig.Sink s = ConfigLoader.parse(sink("""
            on_error = "dead_letter"
            unmatched = "skip"
            dead_letter_topic = "dlq.{topic}"
            create_topics = true
            partitions = 3
            """, "")).sink("s");
        assertEquals(ErrorPolicy.DEAD_LETTER, s.onError());
        assertEquals(ErrorPolicy.SKIP, s.unmatched());
        assertEquals(new DeadLetterConfig("dlq.{topic}", true, 3, -1), s.deadLetter());
        assertNull(ConfigLoader.parse(sink("", "")).sink("s").deadLetter());
    }

    @Test
    void shouldNameAPolicyWithoutATopicAndATopicWithoutAPolicy()
    {
        final List<ConfigProblem> p = problems(sink("unmatched = \"dead_letter\"\n", ""));
        assertEquals(1, p.size(), p.toString());
        assertEquals("sinks[0].unmatched", p.get(0).key());
        assertTrue(p.get(0).message().startsWith("\"dead_letter\" needs dead_letter_topic"), p.get(0).message());

        final List<ConfigProblem> unused = problems(sink("dead_letter_topic = \"dlq\"\n", ""));
        assertEquals("sinks[0].dead_letter_topic", unused.get(0).key());
        assertTrue(unused.get(0).message().startsWith("no policy sends records there"), unused.get(0).message());

        final List<ConfigProblem> bad = problems(
            sink("on_error = \"dead_letter\"\ndead_letter_topic = \"dlq.{value}\"\n",
                ""));
        assertEquals("sinks[0].dead_letter_topic", bad.get(0).key());
        assertTrue(bad.get(0).message().contains("{value}"), bad.get(0).message());

        assertEquals("sinks[0].on_error", problems(sink("on_error = \"deadletter\"\n", "")).get(0).key());
    }

    @Test
    void shouldTakeOnErrorAndADeadLetterTopicOnASource()
    {
        final SluiceConfig.Source s = ConfigLoader.parse(source("kind = \"kafka\"\ninput_topics = [\"in\"]\n"
            + "group_id = \"g\"\n",
            "on_error = \"dead_letter\"\ndead_letter_topic = \"dlq.{topic}\"\n"
                + "create_topics = true\n"))
            .source("src");
        assertEquals(ErrorPolicy.DEAD_LETTER, s.onError());
        assertEquals(new DeadLetterConfig("dlq.{topic}", true, 1, -1), s.deadLetter());
        assertEquals(ErrorPolicy.FAIL, ConfigLoader.parse(source("kind = \"stdin\"\n", "")).source("src").onError());

        final List<ConfigProblem> file = problems(source("kind = \"stdin\"\n",
            "on_error = \"dead_letter\"\ndead_letter_topic = \"dlq.{topic}\"\n"));
        assertEquals("sources[0].dead_letter_topic", file.get(0).key());
        assertTrue(file.get(0).message().startsWith("a stdin source has no input topic"), file.get(0).message());
        assertEquals("sources[0].on_error", problems(source("kind = \"stdin\"\n", "on_error = \"skip\"\n")).get(0)
            .key(), "a source's record goes to the dead-letter topic or fails its batch: never silently away");
    }

    @Test
    void shouldPassInsertSettingsThroughAsTextAndNameABadOne()
    {
        final ClickHouseConfig c = (ClickHouseConfig)ConfigLoader.parse(sink("", """
            [sinks.plugin_config.settings]
            insert_quorum = 2
            max_insert_block_size = "1048576"
            async_insert = true
            """)).sink("s").plugin();
        assertEquals(Map.of("insert_quorum", "2", "max_insert_block_size", "1048576", "async_insert", "true"),
            c.settings());
        assertEquals(List.of("insert_quorum", "max_insert_block_size", "async_insert"), List.copyOf(c.settings()
            .keySet()), "in file order");

        final List<ConfigProblem> p = problems(sink("", """
            [sinks.plugin_config.settings]
            "insert-quorum" = "1"
            max_threads = "1\\n2"
            """));
        assertEquals(2, p.size(), p.toString());
        assertEquals("sinks[0].plugin_config.settings.insert-quorum", p.get(0).key());
        assertTrue(p.get(0).message().startsWith("not a ClickHouse setting name"), p.get(0).message());
        assertEquals("sinks[0].plugin_config.settings.max_threads", p.get(1).key());
        assertEquals("the value has a control character (U+000A) at position 1", p.get(1).message());
    }

    @Test
    void shouldRefuseADeadLetterTopicKafkaReserves()
    {
        final List<ConfigProblem> src = problems(source("kind = \"stdin\"\n",
            "on_error = \"dead_letter\"\ndead_letter_topic = \"__consumer_offsets\"\n"));
        assertEquals("sources[0].dead_letter_topic", src.get(0).key());
        assertTrue(src.get(0).message().startsWith("topic __consumer_offsets is internal to Kafka"),
            src.get(0).message());
        final List<ConfigProblem> sink = problems(sink("on_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"__transaction.state\"\n", ""));
        assertEquals("sinks[0].dead_letter_topic", sink.get(0).key());
        assertTrue(sink.get(0).message().contains("collides with Kafka's internal topic __transaction_state"),
            sink.get(0).message());
        // a case variant is an ordinary name; a template is judged per record when it is rendered
        assertEquals("__DLQ", ConfigLoader.parse(sink("on_error = \"dead_letter\"\ndead_letter_topic = \"__DLQ\"\n",
            "")).sink("s").deadLetter().topic());
        ConfigLoader.parse(sink("on_error = \"dead_letter\"\ndead_letter_topic = \"__CONSUMER_OFFSETS\"\n", ""));
        ConfigLoader.parse(sink("on_error = \"dead_letter\"\ndead_letter_topic = \"__{topic}\"\n", ""));
    }

    @Test
    void shouldRefuseALiteralDeadLetterTopicThatSanitisingWouldChangeOrMakeReserved()
    {
        // as the run would use it: trimmed and with illegal characters replaced; judged at check, with key and line
        final List<ConfigProblem> src = problems(source("kind = \"file\"\npath = \"in.jsonl\"\n",
            "on_error = \"dead_letter\"\ndead_letter_topic = \" __cluster_metadata\"\n"));
        assertEquals(1, src.size(), src.toString());
        assertEquals("sources[0].dead_letter_topic", src.get(0).key());
        assertEquals(9, src.get(0).line(), src.toString());
        assertTrue(src.get(0).message().contains("\" __cluster_metadata\" is not a legal topic name")
            && src.get(0).message().contains("sanitised it would be __cluster_metadata, which is refused too: topic "
                + "__cluster_metadata is internal to Kafka"),
            src.get(0).message());
        assertFalse(src.get(0).message().contains("did you mean"), src.get(0).message());

        final List<ConfigProblem> spaced = problems(source("kind = \"file\"\npath = \"in.jsonl\"\n",
            "on_error = \"dead_letter\"\ndead_letter_topic = \"hostile dlq\"\n"));
        assertTrue(spaced.get(0).message().contains("\"hostile dlq\" is not a legal topic name")
            && spaced.get(0).message().endsWith("did you mean \"hostile_dlq\"?"), spaced.get(0).message());

        final List<ConfigProblem> sink = problems(sink("on_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"__transaction state \"\n", ""));
        assertEquals("sinks[0].dead_letter_topic", sink.get(0).key());
        assertTrue(sink.get(0).message().contains("sanitised it would be __transaction_state, which is refused too"),
            sink.get(0).message());
        final List<ConfigProblem> cut = problems(sink("on_error = \"dead_letter\"\n"
            + "dead_letter_topic = \"dlq/orders\"\n", ""));
        assertTrue(cut.get(0).message().endsWith("did you mean \"dlq_orders\"?"), cut.get(0).message());
        // a template is sanitised per record, as routed names are: its literal text is not judged as a name
        ConfigLoader.parse(sink("on_error = \"dead_letter\"\ndead_letter_topic = \"dlq {topic}\"\n", ""));
    }
}
