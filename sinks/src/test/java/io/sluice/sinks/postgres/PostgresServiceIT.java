package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import javax.net.ssl.SSLException;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local PostgreSQL that scripts/services.sh starts, as its users reach it through pgJDBC: the plain user with a
 * SCRAM password over plain TCP, the SCRAM user over TLS only (the server's certificate verified against the test CA
 * and the host name, sslmode=verify-full), the certificate user with a client certificate the test CA signed (key as
 * PKCS#8 DER, the form pgJDBC reads), and what the server answers when any of it is missing or wrong: its SQLSTATE
 * and reason (28P01 for a wrong password, 28000 for no matching pg_hba.conf line or no valid client certificate), or
 * a TLS handshake the client ends for a certificate no trusted CA signed. Reaches the server through
 * {@code -Dsluice.postgres.url} with the users and passwords of {@code -Dsluice.secure.dir}/secrets.env.
 */
class PostgresServiceIT
{
    private static Map<String, String> secrets;
    private static Path secure;

    private static String url()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    @BeforeAll
    static void readSecrets() throws IOException
    {
        secure = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure"));
        final Path file = secure.resolve("secrets.env");
        assertTrue(Files.isRegularFile(file), file + " is missing: start the services with scripts/services.sh start");
        secrets = new HashMap<>();
        for (final String line : Files.readAllLines(file))
        {
            final int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0)
            {
                secrets.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        for (final String key : new String[]{"SLUICE_TEST_POSTGRES_USER", "SLUICE_TEST_POSTGRES_PASSWORD",
            "SLUICE_TEST_POSTGRES_SCRAM_USER", "SLUICE_TEST_POSTGRES_SCRAM_PASSWORD", "SLUICE_TEST_POSTGRES_CERT_USER"})
        {
            assertTrue(secrets.containsKey(key), key + " is missing from " + file
                + ": scripts/services.sh start (SLUICE_SECURE=1) writes it");
        }
    }

    private static String secret(final String key)
    {
        return secrets.get(key);
    }

    /** Connection properties with bounded waits; {@code sslmode} and the rest are added by each test. */
    private static Properties props(final String user, final String password, final String sslmode)
    {
        final Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null)
        {
            p.setProperty("password", password);
        }
        p.setProperty("sslmode", sslmode);
        p.setProperty("connectTimeout", "10");
        p.setProperty("loginTimeout", "15");
        p.setProperty("socketTimeout", "30");
        return p;
    }

    private static Properties verifyFull(final Properties p, final String caFile)
    {
        p.setProperty("sslrootcert", secure.resolve(caFile).toString());
        return p;
    }

    private static Properties withCertificate(final Properties p, final String name)
    {
        p.setProperty("sslcert", secure.resolve(name + ".pem").toString());
        p.setProperty("sslkey", secure.resolve(name + ".pk8").toString());
        return p;
    }

    /** {@code current_user}, whether the session runs over TLS and the client certificate's DN (or null). */
    private static String[] session(final String url, final Properties p) throws SQLException
    {
        try (Connection c = DriverManager.getConnection(url, p);
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT current_user, current_database(), ssl, client_dn FROM pg_stat_ssl"
                + " WHERE pid = pg_backend_pid()"))
        {
            assertTrue(r.next(), "no pg_stat_ssl row for this session");
            return new String[]{r.getString(1), r.getString(2), Boolean.toString(r.getBoolean(3)), r.getString(4)};
        }
    }

    private static SQLException refused(final Properties p)
    {
        return assertThrows(SQLException.class, () -> DriverManager.getConnection(url(), p).close(),
            "the server accepted user " + p.getProperty("user") + " with sslmode=" + p.getProperty("sslmode"));
    }

    private static boolean causedBy(final Throwable t, final Class<? extends Throwable> type)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (type.isInstance(c))
            {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldLetThePlainUserInOverPlainTcpAndTls() throws SQLException
    {
        final String user = secret("SLUICE_TEST_POSTGRES_USER");
        final String pw = secret("SLUICE_TEST_POSTGRES_PASSWORD");
        final String[] plain = session(url(), props(user, pw, "disable"));
        assertEquals(user, plain[0]);
        assertEquals("sluice", plain[1]);
        assertEquals("false", plain[2], "sslmode=disable ran over TLS");
        // the quickstart's database, owned by the same user
        final String analytics = url().substring(0, url().lastIndexOf('/') + 1) + "analytics";
        assertEquals("analytics", session(analytics, props(user, pw, "disable"))[1]);
        // the plain user may use TLS too
        final String[] tls = session(url(), verifyFull(props(user, pw, "verify-full"), "ca.pem"));
        assertEquals("true", tls[2]);
        try (Connection c = DriverManager.getConnection(url(), props(user, pw, "disable"));
            Statement s = c.createStatement())
        {
            s.execute("DROP TABLE IF EXISTS postgres_service_it");
            s.execute("CREATE TABLE postgres_service_it (id bigint PRIMARY KEY, doc jsonb)");
            s.execute("INSERT INTO postgres_service_it VALUES (1, '{\"a\": [1, 2]}')");
            try (ResultSet r = s.executeQuery("SELECT doc->'a'->>1 FROM postgres_service_it WHERE id = 1"))
            {
                assertTrue(r.next());
                assertEquals("2", r.getString(1));
            }
            s.execute("DROP TABLE postgres_service_it");
        }
    }

    @Test
    void shouldLetTheScramUserInOnlyOverVerifiedTls() throws SQLException
    {
        final String user = secret("SLUICE_TEST_POSTGRES_SCRAM_USER");
        final String pw = secret("SLUICE_TEST_POSTGRES_SCRAM_PASSWORD");
        final String[] s = session(url(), verifyFull(props(user, pw, "verify-full"), "ca.pem"));
        assertEquals(user, s[0]);
        assertEquals("true", s[2], "the SCRAM user's session is not over TLS");
        assertEquals(null, s[3], "a client certificate was sent");

        final SQLException plain = refused(props(user, pw, "disable"));
        assertEquals("28000", plain.getSQLState(), plain.toString());
        assertTrue(plain.getMessage().contains("no pg_hba.conf entry") && plain.getMessage().contains("no encryption"),
            plain.getMessage());
    }

    @Test
    void shouldLetTheCertificateUserInOnlyWithItsCertificate() throws SQLException
    {
        final String user = secret("SLUICE_TEST_POSTGRES_CERT_USER");
        final String[] s = session(url(), withCertificate(verifyFull(props(user, null, "verify-full"), "ca.pem"),
            "client"));
        assertEquals(user, s[0]);
        assertEquals("true", s[2]);
        assertEquals("/CN=sluice-client", s[3]);

        // no certificate: the cert line matches and fails (pgJDBC sends none without sslcert and ~/.postgresql)
        final SQLException none = refused(verifyFull(props(user, null, "verify-full"), "ca.pem"));
        assertEquals("28000", none.getSQLState(), none.toString());
        assertTrue(none.getMessage().contains("requires a valid client certificate"), none.getMessage());

        // a password instead of a certificate does not help, and without TLS no line matches
        final SQLException withPassword = refused(verifyFull(props(user, "not-a-certificate", "verify-full"),
            "ca.pem"));
        assertEquals("28000", withPassword.getSQLState(), withPassword.toString());
        final SQLException plain = refused(withCertificate(props(user, null, "disable"), "client"));
        assertEquals("28000", plain.getSQLState(), plain.toString());
        assertTrue(plain.getMessage().contains("no pg_hba.conf entry"), plain.getMessage());

        // a certificate no CA of the server signed: pgJDBC does not offer it when the server's certificate request
        // names other CAs (then the cert line refuses a session without one), and a client that did would end in
        // the TLS handshake; either way no session
        final SQLException rogue = refused(withCertificate(verifyFull(props(user, null, "verify-full"), "ca.pem"),
            "rogue-client"));
        assertTrue(causedBy(rogue, SSLException.class) || "28000".equals(rogue.getSQLState())
            && rogue.getMessage().contains("requires a valid client certificate"), rogue.toString());
    }

    @Test
    void shouldRefuseAWrongPasswordWithTheServersReason()
    {
        final SQLException plain = refused(props(secret("SLUICE_TEST_POSTGRES_USER"), "wrong-" + System.nanoTime(),
            "disable"));
        assertEquals("28P01", plain.getSQLState(), plain.toString());
        assertTrue(plain.getMessage().contains("password authentication failed for user \"sluice\""),
            plain.getMessage());

        final String scram = secret("SLUICE_TEST_POSTGRES_SCRAM_USER");
        final SQLException tls = refused(verifyFull(props(scram, "wrong-" + System.nanoTime(), "verify-full"),
            "ca.pem"));
        assertEquals("28P01", tls.getSQLState(), tls.toString());
        assertTrue(tls.getMessage().contains("password authentication failed for user \"" + scram + "\""),
            tls.getMessage());
    }

    @Test
    void shouldRefuseAServerCertificateThatTheTrustedCaDidNotSign()
    {
        final SQLException e = refused(verifyFull(props(secret("SLUICE_TEST_POSTGRES_SCRAM_USER"),
            secret("SLUICE_TEST_POSTGRES_SCRAM_PASSWORD"), "verify-full"), "other-ca.pem"));
        assertTrue(causedBy(e, SSLException.class), "not a TLS failure: " + e);
        assertEquals("08006", e.getSQLState(), e.toString());
    }
}
