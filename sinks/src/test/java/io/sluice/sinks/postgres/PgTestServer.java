package io.sluice.sinks.postgres;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The PostgreSQL of scripts/services.sh for the sink's tests: {@code -Dsluice.postgres.url}, logged in as
 * {@code SLUICE_TEST_POSTGRES_USER} of {@code -Dsluice.secure.dir}/secrets.env without TLS.
 */
final class PgTestServer
{
    private PgTestServer()
    {
    }

    /** @return the server's URL */
    static String url()
    {
        return System.getProperty("sluice.postgres.url", "jdbc:postgresql://127.0.0.1:15432/sluice");
    }

    /** @return the login properties: the test user's name and password, no TLS, timeouts of 10 s and 60 s */
    static Properties props() throws IOException
    {
        final Path file = Path.of(System.getProperty("sluice.secure.dir", ".sluice/secure")).resolve("secrets.env");
        assertTrue(Files.isRegularFile(file), file + " is missing: start the services with scripts/services.sh start");
        final Map<String, String> secrets = Files.readAllLines(file).stream()
            .filter(l -> !l.startsWith("#") && l.indexOf('=') > 0)
            .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1),
                (a, b) -> b));
        final Properties p = new Properties();
        p.setProperty("user", secrets.get("SLUICE_TEST_POSTGRES_USER"));
        p.setProperty("password", secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        p.setProperty("sslmode", "disable");
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        return p;
    }

    /** @return a new connection, the caller's to close */
    static Connection open() throws IOException, SQLException
    {
        return DriverManager.getConnection(url(), props());
    }
}
