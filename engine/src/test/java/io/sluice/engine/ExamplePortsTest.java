package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
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

    @ParameterizedTest
    @ValueSource(strings = {"github-events-postgres.toml", "orders-exactly-once.toml"})
    void shouldTakeThePostgresPortFromTheEnvironment(final String name) throws IOException
    {
        final String toml = Files.readString(example(name));
        final SluiceConfig other = ConfigLoader.parse(toml, Map.of("SLUICE_KAFKA_PORT", "29292",
            "SLUICE_POSTGRES_PORT", "25432", "PGPASSWORD", "x")::get);
        final SluiceConfig unset = ConfigLoader.parse(toml, Map.of("PGPASSWORD", "x")::get);
        assertEquals("127.0.0.1:29292", other.kafka().bootstrapServers());
        assertEquals("127.0.0.1:19092", unset.kafka().bootstrapServers());
        for (final SluiceConfig.Sink s : other.sinks())
        {
            assertTrue(s.plugin().shards().get(0).get(0).contains("127.0.0.1:25432/"), s.plugin().shards().toString());
        }
        for (final SluiceConfig.Sink s : unset.sinks())
        {
            assertTrue(s.plugin().shards().get(0).get(0).contains("127.0.0.1:15432/"), s.plugin().shards().toString());
        }
        assertFalse(toml.contains(":15432/analytics\""), "a hard-coded PostgreSQL port is left in " + name);
    }

    /** The exactly-once example (docs/effectively-once.md links it) splits by a field into three tables. */
    @Test
    void shouldSplitTheExactlyOnceExampleIntoThreeTables() throws IOException
    {
        final SluiceConfig c = ConfigLoader.parse(Files.readString(example("orders-exactly-once.toml")),
            Map.of("PGPASSWORD", "x")::get);
        final SluiceConfig.Sink sink = c.sinks().get(0);
        assertTrue(sink.plugin().exactlyOnce(), "delivery = \"exactly_once\"");
        assertEquals(List.of("orders_eu", "orders_us", "orders_other"),
            sink.branches().stream().map(SluiceConfig.Branch::targetTable).toList());
        final String sql = Files.readString(example("orders-exactly-once.sql"));
        for (final SluiceConfig.Branch b : sink.branches())
        {
            assertTrue(sql.contains("CREATE TABLE IF NOT EXISTS \"public\".\"" + b.targetTable() + "\""),
                "examples/orders-exactly-once.sql creates " + b.targetTable());
        }
    }
}
