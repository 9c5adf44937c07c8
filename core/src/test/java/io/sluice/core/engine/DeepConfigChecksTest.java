package io.sluice.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.TestSinkKind;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.gather.GatherPipeline;

/** The deep checks name the key a problem was written at, for the command line and for an embedder alike. */
class DeepConfigChecksTest
{
    private static final String SINK = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"
        [[sinks]]
        name = "s"
        kind = "test"
        pattern = 'a\\..*'
        group_id = "g"
        [sinks.plugin_config]
        endpoint = "http://127.0.0.1:1"
        database = "db{"
        target_table = "{topic_segment[x]}"
        """;

    private static List<String> keys(final String toml)
    {
        return assertThrows(ConfigException.class, () -> DeepConfigChecks.check(TestSinkKind.parse(toml))).problems()
            .stream().map(ConfigProblem::key).toList();
    }

    @Test
    void shouldNameThePluginConfigKeyOfATemplateNoBranchWrites()
    {
        assertEquals(List.of("sinks[0].plugin_config.target_table", "sinks[0].plugin_config.database"), keys(SINK));
        assertEquals(
            List.of("sinks[0].plugin_config.target_table", "sinks[0].plugin_config.database",
                "sinks[0].branches[1].target_table"),
            keys(SINK + """
                [[sinks.branches]]
                name = "a"
                when = { path = "t", equals = "x" }
                [[sinks.branches]]
                name = "b"
                target_table = "b{"
                """));
    }

    @Test
    void shouldRefuseAColumnMappingThatIsNeitherAPathNorAKafkaSource()
    {
        final String toml = """
            [kafka]
            bootstrap_servers = "127.0.0.1:1"
            [[sinks]]
            name = "s"
            kind = "test"
            topics = ["t"]
            group_id = "g"
            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:1"
            database = "db"
            [[sinks.branches]]
            name = "b"
            target_table = "t"
            columns = { ok_offset = "$offset", ok_header = "$header.trace-id", ok_path = "a.b", ok_dollar = "\\\\$id", \
            bad_source = "$nonsense", bad_header = "$header.", bad_path = "a..b", "" = "a" }
            """;
        final ConfigException e = assertThrows(ConfigException.class,
            () -> DeepConfigChecks.check(TestSinkKind.parse(toml)));
        final Map<String, String> byKey = new TreeMap<>();
        e.problems().forEach(p -> byKey.put(p.key(), p.message()));
        final String at = "sinks[0].branches[0].columns.";
        assertEquals(Set.of(at + "bad_source", at + "bad_header", at + "bad_path", at), byKey.keySet(),
            byKey.toString());
        assertTrue(byKey.get(at + "bad_source").contains("'$nonsense' is no Kafka "
            + "metadata source"), byKey.toString());
        assertTrue(byKey.get(at).contains("a column name is empty"),
            byKey.toString());
    }

    @Test
    void shouldRefuseTheConfigurationWhenAnEmbedderBuildsTheEngine()
    {
        final ConfigException e = assertThrows(ConfigException.class, () -> new SluiceEngine(TestSinkKind.parse(SINK),
            sink ->
            {
                throw new AssertionError("no driver is asked for before the checks");
            }, new GatherPipeline.RunOptions(false)));
        assertEquals(List.of("sinks[0].plugin_config.target_table", "sinks[0].plugin_config.database"),
            e.problems().stream().map(ConfigProblem::key).toList());
    }
}
