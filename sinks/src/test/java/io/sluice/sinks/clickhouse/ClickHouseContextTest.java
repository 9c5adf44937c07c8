package io.sluice.sinks.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;

/** A ClickHouse sink's settings: the schema's defaults, conclude() naming a bad key, the derived shards. */
class ClickHouseContextTest
{
    private static ClickHouseConfig valid()
    {
        return new ClickHouseConfig().configPath("sinks[0].plugin_config")
            .endpoints(List.of("http://127.0.0.1:8123"));
    }

    @Test
    void shouldStartFromTheSchemaDefaults()
    {
        final ClickHouseConfig c = valid().conclude();
        assertEquals(2, c.insertWorkers());
        assertEquals("default", c.database());
        assertNull(c.targetTable());
        assertEquals("default", c.username());
        assertEquals("", c.password());
        assertEquals(100_000, c.maxRows());
        assertEquals(16L << 20, c.maxBytes());
        assertEquals(1000, c.lingerMs());
        assertEquals("rewrite", c.identifier());
        assertFalse(c.createTable());
        assertFalse(c.nullAsDefault());
        assertEquals(60_000, c.insertTimeoutMs());
        assertEquals(200, c.retryBackoffMs());
        assertEquals(5000, c.retryBackoffMaxMs());
        assertEquals(5, c.breakerFailures());
        assertEquals(5000, c.breakerOpenMs());
        assertEquals(ClickHouseConfig.UNKNOWN_FIELDS_IGNORE, c.unknownFields());
        assertTrue(c.sslVerifyHostname());
        assertEquals(ClickHouseKeys.DEFAULT_COMPRESSION, c.compression());
        assertEquals(Map.of(), c.settings());
        assertEquals(ClickHouseConfig.DEFAULT_SCHEMA_REFRESH_MS, c.schemaRefreshMs());
        assertEquals(List.of(List.of("http://127.0.0.1:8123")), c.shards(), "one shard of the endpoints");
    }

    @Test
    void shouldNameTheKeyOfABadValue()
    {
        assertProblem("sinks[0].plugin_config.max_rows: must be >= 1, was -1", valid().maxRows(-1));
        assertProblem("sinks[0].plugin_config.linger_ms: must be >= 0, was -5", valid().lingerMs(-5));
        assertProblem("sinks[0].plugin_config.insert_workers: must be <= 64, was 65", valid().insertWorkers(65));
        assertProblem("sinks[0].plugin_config.compression: expected one of [none, lz4, gzip], was zstd",
            valid().compression("zstd"));
        assertProblem("sinks[0].plugin_config.create_table: create_table = true needs create_table_ddl or "
            + "create_table_like", valid().createTable(true));
        assertProblem("sinks[0].plugin_config.create_table_ddl: give create_table_ddl or create_table_like, not both",
            valid().createTableDdl("CREATE TABLE {table}").createTableLike("t"));
    }

    @Test
    void shouldBeReadOnlyOnceConcludedAndEqualByValue()
    {
        final ClickHouseConfig c = valid().conclude();
        assertThrows(IllegalStateException.class, () -> c.maxRows(5));
        assertThrows(IllegalStateException.class, c::conclude);
        assertEquals(valid().conclude(), c);
        assertEquals(valid().conclude().hashCode(), c.hashCode());
    }

    @Test
    void shouldBeWhatTheLoaderReads()
    {
        final ClickHouseConfig loaded = (ClickHouseConfig)ConfigLoader.parse("[kafka]\nbootstrap_servers = \"k:9092\"\n"
            + "[[sinks]]\nname = \"s\"\nkind = \"clickhouse\"\ntopics = [\"t\"]\ngroup_id = \"g\"\n"
            + "[sinks.plugin_config]\nendpoint = \"http://127.0.0.1:8123\"\ntarget_table = \"t\"\n")
            .sinks().get(0).plugin();
        assertTrue(loaded.concluded());
        assertEquals(valid().targetTable("t").conclude(), loaded);
    }

    private static void assertProblem(final String expected, final ClickHouseConfig c)
    {
        final ConfigException e = assertThrows(ConfigException.class, c::conclude);
        assertEquals(expected, e.problems().get(0).toString());
    }
}
