package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.core.config.SinkKeys;
import io.sluice.core.config.SinkSettings;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;

/**
 * {@link PostgresDriver#checkReachable} against the real, secured PostgreSQL (issue 22 item 7): each user logs in as
 * the server requires (password, SCRAM over TLS with verify-full, client certificate), and a wrong password, a
 * missing database, a CA that did not sign the server's certificate and an unknown session setting are refused as
 * not retriable, naming the server's reason. Every session's time zone is UTC whatever the JVM's.
 */
class PostgresDriverIT
{
    private static Map<String, String> secrets;
    private static Path secure;
    private static String url;

    @BeforeAll
    static void readSecrets() throws Exception
    {
        secure = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure"));
        secrets = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(secure.resolve("secrets.env")))
        {
            if (!line.startsWith("#") && line.indexOf('=') > 0)
            {
                secrets.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        url = System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    private static PostgresConfig config(final String jdbcUrl, final String user, final String password,
        final String sslMode, final String ca, final String certificate, final Map<String, String> settings)
    {
        final SinkSettings s = new SinkSettings("postgres", "sinks[0].plugin_config", List.of(List.of(jdbcUrl)), 1,
            "public", "t", 1000, 1 << 20, 100, "quote", false, false, false, 100, 1000, 5, 1000, 10_000);
        return new PostgresConfig(s, jdbcUrl, user, password, sslMode,
            ca == null ? null : secure.resolve(ca).toString(),
            certificate == null ? null : secure.resolve(certificate + ".pem").toString(),
            certificate == null ? null : secure.resolve(certificate + ".pk8").toString(), null, null, "append",
            List.of(), settings, 30_000);
    }

    private static void reach(final PostgresConfig c) throws SinkException
    {
        try (PostgresDriver d = new PostgresDriver())
        {
            d.checkReachable(new SinkSpec("pg", c, c.shards(), "public", "t"));
        }
    }

    private static SinkException refused(final PostgresConfig c)
    {
        final SinkException e = assertThrows(SinkException.class, () -> reach(c));
        assertFalse(e.retriable(), e.getMessage());
        assertTrue(e.getMessage().startsWith("PostgreSQL refused sink pg: "), e.getMessage());
        return e;
    }

    @Test
    void shouldLetEachUserInAsTheServerRequires() throws Exception
    {
        reach(config(url, secrets.get("SLUICE_TEST_POSTGRES_USER"), secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"),
            "disable", null, null, Map.of("synchronous_commit", "off")));
        reach(config(url, secrets.get("SLUICE_TEST_POSTGRES_SCRAM_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_SCRAM_PASSWORD"), "verify-full", "ca.pem", null, Map.of()));
        reach(config(url, secrets.get("SLUICE_TEST_POSTGRES_CERT_USER"), "", "verify-full", "ca.pem", "client",
            Map.of()));
    }

    @Test
    void shouldRefuseAWrongPasswordAMissingDatabaseAForeignCaAndAnUnknownSetting()
    {
        final String user = secrets.get("SLUICE_TEST_POSTGRES_USER");
        final String password = secrets.get("SLUICE_TEST_POSTGRES_PASSWORD");
        final SinkException wrong = refused(config(url, user, password + "x", "disable", null, null, Map.of()));
        assertTrue(wrong.getMessage().contains("28P01"), wrong.getMessage());
        assertFalse(wrong.getMessage().contains(password), wrong.getMessage());

        final String missing = url.substring(0, url.lastIndexOf('/') + 1) + "no_such_db_" + System.nanoTime();
        final SinkException db = refused(config(missing, user, password, "disable", null, null, Map.of()));
        assertTrue(db.getMessage().contains("3D000"), db.getMessage());

        final SinkException ca = refused(config(url, secrets.get("SLUICE_TEST_POSTGRES_SCRAM_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_SCRAM_PASSWORD"), "verify-full", "other-ca.pem", null, Map.of()));
        assertTrue(ca.getMessage().contains("TLS handshake"), ca.getMessage());

        final SinkException setting = refused(config(url, user, password, "disable", null, null,
            Map.of("no_such_parameter", "1")));
        assertTrue(setting.getMessage().contains("no_such_parameter"), setting.getMessage());
    }

    @Test
    void shouldOpenEverySessionInUtc() throws Exception
    {
        final PostgresConfig c = config(url, secrets.get("SLUICE_TEST_POSTGRES_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), "disable", null, null, Map.of());
        final java.util.TimeZone jvm = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Asia/Shanghai"));
        try (Connection conn = PostgresConnections.connect(c);
            Statement s = conn.createStatement();
            ResultSet r = s.executeQuery("SELECT current_setting('TimeZone'), current_setting('statement_timeout'), "
                + "current_setting('idle_in_transaction_session_timeout')"))
        {
            assertTrue(r.next());
            assertTrue("UTC".equals(r.getString(1)), r.getString(1));
            assertTrue("30s".equals(r.getString(2)), r.getString(2));
            assertTrue("30s".equals(r.getString(3)), "a frozen client's transaction ends after insert_timeout_ms: "
                + r.getString(3));
        }
        // settings give their own value (0: off)
        try (Connection conn = PostgresConnections.connect(config(url, secrets.get("SLUICE_TEST_POSTGRES_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), "disable", null, null,
            Map.of("idle_in_transaction_session_timeout", "0")));
            Statement s = conn.createStatement();
            ResultSet r = s.executeQuery("SELECT current_setting('idle_in_transaction_session_timeout')"))
        {
            assertTrue(r.next());
            assertTrue("0".equals(r.getString(1)), r.getString(1));
        }
        finally
        {
            java.util.TimeZone.setDefault(jvm);
        }
    }

    /**
     * A role that may read and write a positions table made by someone else, but not create tables in its schema,
     * reads the positions: {@code CREATE TABLE IF NOT EXISTS} alone would be refused (42501: the server checks the
     * CREATE right before it looks), so the positions store looks first (hostile review of issue 23).
     */
    @Test
    void shouldReadPositionsAsARoleThatMayNotCreateInTheSchema() throws Exception
    {
        final String schema = "pgpos_" + Long.toString(System.nanoTime(), 36);
        final String scram = secrets.get("SLUICE_TEST_POSTGRES_SCRAM_USER");
        final PostgresConfig owner = config(url, secrets.get("SLUICE_TEST_POSTGRES_USER"),
            secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"), "disable", null, null, Map.of());
        final SinkSettings s = new SinkSettings("postgres", "sinks[0].plugin_config", List.of(List.of(url)), 1,
            schema, "t", 1000, 1 << 20, 100, "quote", false, false, false, 100, 1000, 5, 1000, 10_000);
        final PostgresConfig limited = new PostgresConfig(s, url, scram,
            secrets.get("SLUICE_TEST_POSTGRES_SCRAM_PASSWORD"), "verify-full", secure.resolve("ca.pem").toString(),
            null, null, null, null, "append", List.of(), Map.of(), 30_000, SinkKeys.EXACTLY_ONCE, "positions");
        final org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition("orders.pos", 0);
        try (Connection c = PostgresConnections.connect(owner); Statement st = c.createStatement())
        {
            c.setAutoCommit(true);
            st.execute("CREATE SCHEMA " + PostgresIdentifiers.quote(schema));
            st.execute(new PostgresPositions(limited, "g").createStatement());
            st.execute("INSERT INTO " + PostgresIdentifiers.qualified(schema, "positions")
                + " (group_id, table_name, topic, partition, next_offset) VALUES ('g', 't', 'orders.pos', 0, 42)");
            st.execute("GRANT USAGE ON SCHEMA " + PostgresIdentifiers.quote(schema) + " TO "
                + PostgresIdentifiers.quote(scram));
            st.execute("GRANT SELECT, INSERT, UPDATE ON " + PostgresIdentifiers.qualified(schema, "positions") + " TO "
                + PostgresIdentifiers.quote(scram));
        }
        try
        {
            assertEquals(Map.of(tp, Map.of("t", 42L)), new PostgresPositions(limited, "g").read(List.of(tp)));
        }
        finally
        {
            try (Connection c = PostgresConnections.connect(owner); Statement st = c.createStatement())
            {
                c.setAutoCommit(true);
                st.execute("DROP SCHEMA " + PostgresIdentifiers.quote(schema) + " CASCADE");
            }
        }
    }
}
