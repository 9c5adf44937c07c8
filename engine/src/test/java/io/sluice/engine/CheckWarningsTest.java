package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;

/** check warns of what is valid but likely not meant. */
class CheckWarningsTest
{
    private static final String TOML = """
        [kafka]
        bootstrap_servers = "k:9092"
        [[sinks]]
        name = "pg"
        kind = "postgres"
        topics = ["orders"]
        group_id = "g"
        [sinks.plugin_config]
        url = "postgresql://db:5432/a"
        username = "u"
        schema = "sales"
        target_table = "orders"
        delivery = "exactly_once"
        %s
        """;

    @Test
    void shouldWarnThatADottedOffsetsTableIsOneTableInTheSinksSchema()
    {
        final List<String> w = CheckCommand.warnings(ConfigLoader.parse(TOML.formatted(
            "offsets_table = \"public.sluice_offsets\"")));
        assertEquals(1, w.size(), w.toString());
        assertTrue(w.get(0).startsWith("sinks[0].plugin_config.offsets_table = \"public.sluice_offsets\" is one table "
            + "named so, dot included, in the sink's schema (\"sales\".\"public.sluice_offsets\"), not a table of "
            + "schema \"public\""), w.get(0));
        assertEquals(List.of(), CheckCommand.warnings(ConfigLoader.parse(TOML.formatted(""))));
        assertEquals(List.of(), CheckCommand.warnings(ConfigLoader.parse(TOML.formatted(
            "offsets_table = \"positions\""))));
    }
}
