package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;

/**
 * The shipped examples take their ports from {@code SLUICE_KAFKA_PORT} and {@code SLUICE_CLICKHOUSE_HTTP_PORT} (the
 * variables scripts/services.sh and scripts/quickstart.sh use), so a quickstart on other ports never talks to
 * whatever listens on 19092 and 18123; unset, they are the services' defaults.
 */
class ExamplePortsTest
{
    private static Path example(final String name)
    {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("examples/" + name)))
        {
            root = root.getParent();
        }
        return root.resolve("examples/" + name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"github-events.toml", "scatter-users.toml", "users-three-lines.toml"})
    void shouldTakeThePortsFromTheEnvironment(final String name) throws IOException
    {
        final String toml = Files.readString(example(name));
        final SluiceConfig other = ConfigLoader.parse(toml, Map.of("SLUICE_KAFKA_PORT", "29292",
            "SLUICE_CLICKHOUSE_HTTP_PORT", "28323")::get);
        final SluiceConfig unset = ConfigLoader.parse(toml, Map.<String, String>of()::get);
        assertEquals("127.0.0.1:29292", other.kafka().bootstrapServers());
        assertEquals("127.0.0.1:19092", unset.kafka().bootstrapServers());
        for (final SluiceConfig.Sink s : other.sinks())
        {
            assertEquals(List.of(List.of("http://127.0.0.1:28323")), s.plugin().shards());
        }
        for (final SluiceConfig.Sink s : unset.sinks())
        {
            assertEquals(List.of(List.of("http://127.0.0.1:18123")), s.plugin().shards());
        }
        assertFalse(toml.contains("\"127.0.0.1:19092\""), "a hard-coded broker port is left in " + name);
        assertFalse(toml.contains("\"http://127.0.0.1:18123\""), "a hard-coded ClickHouse port is left in " + name);
    }
}
