package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;

/** The deep checks name the key a problem was written at. */
class ConfigChecksTest
{
    private static final String SINK = """
        [kafka]
        bootstrap_servers = "127.0.0.1:1"
        [[sinks]]
        name = "s"
        kind = "clickhouse"
        pattern = 'a\\..*'
        group_id = "g"
        [sinks.plugin_config]
        endpoint = "http://127.0.0.1:1"
        database = "db{"
        target_table = "{topic_segment[x]}"
        """;

    private static List<String> keys(final String toml)
    {
        return assertThrows(ConfigException.class, () -> ConfigChecks.deep(ConfigLoader.parse(toml))).problems()
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
}
