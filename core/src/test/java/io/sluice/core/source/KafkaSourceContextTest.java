package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;

/** The Kafka source's settings: defaults from the configuration schema, and conclude() naming a bad key. */
class KafkaSourceContextTest
{
    private static KafkaSourceContext valid()
    {
        return new KafkaSourceContext().configPath("sinks[events]").name("events").bootstrapServers("k:9092")
            .groupId("g").topics(List.of("t"));
    }

    @Test
    void shouldStartFromTheSchemaDefaults()
    {
        final KafkaSourceContext c = valid().conclude();
        assertEquals("earliest", c.autoOffsetReset());
        assertEquals(2000, c.topicRefreshMs());
        assertEquals(1000, c.commitIntervalMs());
        assertEquals(300_000, c.stalledFailAfterMs());
        assertEquals(30_000, c.drainTimeoutMs());
        assertEquals(8 << 20, c.maxRecordBytes());
        assertEquals(100, c.pollTimeoutMs());
        assertEquals(Map.of(), c.consumerProperties());
        assertFalse(c.copyKeyAndHeaders());
        assertFalse(c.untilCaughtUp());
        assertTrue(c.concluded());
    }

    @Test
    void shouldNameTheKeyOfABadValue()
    {
        assertProblem("sinks[events].topic_refresh_ms: must be > 0, was 0", valid().topicRefreshMs(0));
        assertProblem("checkpoint.commit_interval_ms: must be > 0, was -1", valid().commitIntervalMs(-1));
        assertProblem("checkpoint.stalled_fail_after_ms: must be > 0, was 0", valid().stalledFailAfterMs(0));
        assertProblem("checkpoint.drain_timeout_ms: must be >= 0, was -5", valid().drainTimeoutMs(-5));
        assertProblem("engine.max_record_bytes: must be > 0, was 0", valid().maxRecordBytes(0));
        assertProblem("sinks[events].poll_timeout_ms: must be > 0, was 0", valid().pollTimeoutMs(0));
        assertProblem("sinks[events].group_id: is required", valid().groupId(" "));
        assertProblem("sinks[events].kafka.bootstrap_servers: is required", valid().bootstrapServers(null));
        assertProblem("sinks[events].name: is required", valid().name(null));
        assertProblem("sinks[events].auto_offset_reset: is required", valid().autoOffsetReset(""));
        assertEquals(0, valid().drainTimeoutMs(0).conclude().drainTimeoutMs(), "no drain wait is allowed");
    }

    @Test
    void shouldBeReadOnlyOnceConcluded()
    {
        final List<String> topics = new ArrayList<>(List.of("a"));
        final KafkaSourceContext c = valid().topics(topics).conclude();
        topics.add("b");
        assertEquals(List.of("a"), c.topics(), "a copy is taken");
        assertThrows(IllegalStateException.class, () -> c.topicRefreshMs(5000));
        assertThrows(IllegalStateException.class, c::conclude);
    }

    @Test
    void shouldRefuseAContextThatIsNotConcluded()
    {
        assertThrows(IllegalArgumentException.class,
            () -> new KafkaSource(valid(), null, null, null, null, null, null, null, null));
    }

    private static void assertProblem(final String expected, final KafkaSourceContext c)
    {
        final ConfigException e = assertThrows(ConfigException.class, c::conclude);
        assertEquals(expected, e.problems().get(0).toString());
    }
}
