package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.gather.sink.ColumnSpec;
import io.sluice.core.gather.sink.TableSchema;

/**
 * The session every sink connection runs in, against the real PostgreSQL: whatever a role, database or the URL's
 * {@code options} set, constant DEFAULTs read back through {@code to_json} keep every digit. With
 * {@code extra_float_digits = -10} the server prints 0.1234567890123 as 0.12346, and each record without the column
 * would be written with that rounded value.
 */
class PostgresSessionIT
{
    private static final String SCHEMA = "session_it_" + Long.toHexString(System.nanoTime());

    @Test
    void shouldReadFloatDefaultsWithEveryDigitWhateverTheSessionDefault() throws Exception
    {
        final Properties props = PgTestServer.props();
        final String url = PgTestServer.url().replaceFirst("^jdbc:", "");
        final PostgresConfig config = (PostgresConfig)ConfigLoader.parse("""
            [kafka]
            bootstrap_servers = "k:9092"

            [[sinks]]
            name = "pg"
            kind = "postgres"
            pattern = 't'
            group_id = "g"

            [sinks.plugin_config]
            url = "%s?options=-c%%20extra_float_digits%%3D-10"
            username = "%s"
            password = "%s"
            target_table = "t"
            """.formatted(url, props.getProperty("user"), props.getProperty("password"))).sink("pg").plugin();
        try (Connection c = PgTestServer.open(); Statement s = c.createStatement())
        {
            s.execute("CREATE SCHEMA " + SCHEMA);
            s.execute("CREATE TABLE " + SCHEMA + ".t (f8 double precision DEFAULT 0.1234567890123, "
                + "f4 real DEFAULT 3.1415927, n numeric DEFAULT 0.1234567890123)");
        }
        try
        {
            try (Connection c = PostgresConnections.connect(config);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT current_setting('extra_float_digits')"))
            {
                r.next();
                assertEquals("3", r.getString(1), "the engine's session, over the URL's options");
            }
            final PostgresCatalog catalog = new PostgresCatalog(() -> PostgresConnections.connect(config),
                config.jdbcUrl(), new PostgresCatalog.Creation(false, null, null));
            final TableSchema t = catalog.describe(SCHEMA, "t");
            final Map<String, ColumnSpec> specs = t.columns().stream()
                .collect(Collectors.toMap(ColumnSpec::name, c -> c));
            assertEquals("0.1234567890123", catalog.evaluateDefault(specs.get("f8")));
            assertEquals("3.1415927", catalog.evaluateDefault(specs.get("f4")));
            assertEquals("0.1234567890123", catalog.evaluateDefault(specs.get("n")));
        }
        finally
        {
            try (Connection c = PgTestServer.open(); Statement s = c.createStatement())
            {
                s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
        }
    }
}
