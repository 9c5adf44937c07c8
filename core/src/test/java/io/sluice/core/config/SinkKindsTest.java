package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The registry of sink kinds and what the loader does with a sink's kind: find it, or list the kinds there are. */
class SinkKindsTest
{
    private static final String SINK = """
        [kafka]
        bootstrap_servers = "k:9092"
        [[sinks]]
        name = "s"
        kind = "%s"
        topics = ["t"]
        group_id = "g"
        [sinks.plugin_config]
        endpoint = "anywhere"
        target_table = "t"
        max_rows = 7
        """;

    @Test
    void shouldFindAKindByNameAndRefuseTwoOfOneName()
    {
        final TestSinkKind kind = new TestSinkKind();
        final SinkKinds kinds = SinkKinds.of(List.of(kind));
        assertSame(kind, kinds.find("test"));
        assertNull(kinds.find("clickhouse"));
        assertEquals(List.of("test"), kinds.names());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SinkKinds.of(List.of(kind, new TestSinkKind())));
        assertTrue(e.getMessage().contains("two sink kinds are named \"test\""), e.getMessage());
    }

    @Test
    void shouldReadASinkThroughItsKind()
    {
        final SluiceConfig.Sink sink = TestSinkKind.parse(SINK.formatted("test")).sink("s");
        assertEquals("test", sink.plugin().kind());
        assertEquals("sinks[0].plugin_config", sink.plugin().configPath());
        assertEquals(List.of(List.of("anywhere")), sink.plugin().shards());
        assertEquals(7, sink.plugin().maxRows());
        assertEquals(7, sink.branches().get(0).maxRows(), "the branch takes the kind's batching as its default");
        assertEquals("rewrite", sink.plugin().identifier(), "the kind's default identifier policy");
    }

    @Test
    void shouldNameAnUnknownKindWithTheKindsThereAre()
    {
        final ConfigException e = assertThrows(ConfigException.class,
            () -> TestSinkKind.parse(SINK.formatted("postgres")));
        assertTrue(e.getMessage().contains("sinks[0].kind (line 5): \"postgres\" is not one of \"test\""),
            e.getMessage());
        // its own keys are not reported as unknown: they belong to a kind that is not installed
        assertTrue(!e.getMessage().contains("endpoint"), e.getMessage());
    }

    @Test
    void shouldReportAKeyTheKindDoesNotHaveWithItsLine()
    {
        final ConfigException e = assertThrows(ConfigException.class,
            () -> TestSinkKind.parse(SINK.formatted("test") + "compression = \"lz4\"\n"));
        assertTrue(e.getMessage().contains("sinks[0].plugin_config.compression (line 12): unknown key"),
            e.getMessage());
    }
}
