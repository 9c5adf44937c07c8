package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A gather sink on the real ClickHouse server (Debian's 18.16) with what production servers ask for: a user with a
 * password over HTTPS (the test CA from scripts/services.sh as ssl_ca_file, the credentials from the environment or
 * inside the endpoint URL), a client certificate, and request compression. A wrong password, a user without
 * rights, a CA that did not sign the server's certificate and a client certificate no CA of ours signed each end
 * the run with exit 1 and an ERROR saying which, and no output holds a password. The compression test puts a
 * byte-counting TCP relay between the engine and the server and checks that lz4 and gzip bodies are smaller than
 * uncompressed ones while every row lands. Verification goes through ClickHouse's plain HTTP interface.
 */
class SecuredClickHouseIT
{
    private static final int RECORDS = 2000;

    private static Map<String, String> secrets;
    private static Path secure;
    private static String db;
    private static String topic;

    @BeforeAll
    static void setUp() throws Exception
    {
        secrets = TestServices.secrets();
        secure = TestServices.secureDir();
        final String suffix = Long.toString(System.nanoTime(), 36);
        db = "secured_ch_" + suffix;
        TestServices.sql("CREATE DATABASE " + db);
        topic = "secured.ch." + suffix;
        TestServices.createTopic(topic, 2);
        // real GitHub events: their RowBinary compresses as production data does
        final List<byte[]> sample = TestServices.sampleLines();
        TestServices.produce(topic, sample.subList(0, RECORDS));
    }

    private static String table(final String name)
    {
        TestServices.sql("CREATE TABLE " + db + "." + name + " (id String, type String, created_at DateTime, "
            + "payload String DEFAULT '') ENGINE = MergeTree ORDER BY id");
        return name;
    }

    private static String config(final String endpoint, final String table, final String pluginExtra)
    {
        return """
            [kafka]
            bootstrap_servers = "%s"
            [checkpoint]
            commit_interval_ms = 200
            [[sinks]]
            name = "secured-ch"
            kind = "clickhouse"
            topics = ["%s"]
            group_id = "secured-ch-%s"
            [sinks.plugin_config]
            endpoint = "%s"
            database = "%s"
            target_table = "%s"
            linger_ms = 300
            %s
            """.formatted(TestServices.bootstrap(), topic, table, endpoint, db, table, pluginExtra);
    }

    private String tls(final String ca)
    {
        return "ssl_ca_file = \"" + secure.resolve(ca) + "\"\n";
    }

    private static Map<String, String> env(final String userKey, final String passwordKey)
    {
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("CLICKHOUSE_USER", secrets.get(userKey));
        env.put("CLICKHOUSE_PASSWORD", secrets.get(passwordKey));
        return env;
    }

    private static Map<String, String> writer()
    {
        return env("SLUICE_TEST_CLICKHOUSE_USER", "SLUICE_TEST_CLICKHOUSE_PASSWORD");
    }

    private static final String CREDENTIALS = """
        username = "${CLICKHOUSE_USER}"
        password = "${CLICKHOUSE_PASSWORD}"
        """;

    record Run(int code, String output)
    {
        String reason()
        {
            return output.lines().filter(l -> l.contains(" ERROR [main] SluiceEngine - ")).reduce((a, b) -> b)
                .orElse("(no ERROR line of SluiceEngine)");
        }
    }

    private static Run run(final Map<String, String> env, final String toml) throws Exception
    {
        final Path config = EngineProcess.writeConfig(toml);
        try (EngineProcess p = EngineProcess.start(env, "--config", config.toString(), "--until-caught-up"))
        {
            final int code = p.waitFor(180);
            final String out = p.output();
            secrets.forEach((k, v) -> assertFalse(k.contains("PASSWORD") && out.contains(v),
                "the password " + k + " is in the engine's output:\n" + out));
            env.forEach((k, v) -> assertFalse(k.contains("PASSWORD") && out.contains(v),
                "the password " + k + " of the environment is in the engine's output:\n" + out));
            return new Run(code, out);
        }
    }

    private static long rows(final String table)
    {
        return TestServices.sqlLong("SELECT count() FROM " + db + "." + table);
    }

    @Test
    void shouldWriteAsAUserWithAPasswordOverHttps() throws Exception
    {
        final String t = table("over_https");
        final Run r = run(writer(), config(TestServices.clickhouseHttps(), t, tls("ca.pem") + CREDENTIALS));
        assertEquals(0, r.code(), r.output());
        assertEquals(RECORDS, rows(t));
    }

    @Test
    void shouldTakeTheCredentialsFromTheEndpointAndNeverPrintThem() throws Exception
    {
        final String t = table("url_credentials");
        final URI https = URI.create(TestServices.clickhouseHttps());
        final String endpoint = "https://" + URLEncoder.encode(secrets.get("SLUICE_TEST_CLICKHOUSE_USER"),
            StandardCharsets.UTF_8) + ":${CLICKHOUSE_PASSWORD}@" + https.getHost() + ":" + https.getPort();
        final Run r = run(writer(), config(endpoint, t, tls("ca.pem")));
        assertEquals(0, r.code(), r.output());
        assertEquals(RECORDS, rows(t));
    }

    @Test
    void shouldWriteWithAClientCertificate() throws Exception
    {
        final String t = table("client_certificate");
        final Run r = run(writer(), config(TestServices.clickhouseHttps(), t, tls("ca.pem") + CREDENTIALS
            + "ssl_certificate_file = \"" + secure.resolve("client.pem") + "\"\nssl_key_file = \""
            + secure.resolve("client.key") + "\"\n"));
        assertEquals(0, r.code(), r.output());
        assertEquals(RECORDS, rows(t));
    }

    @Test
    void shouldEndNamingAWrongPassword() throws Exception
    {
        final Map<String, String> env = writer();
        env.put("CLICKHOUSE_PASSWORD", "wrong-" + Long.toString(System.nanoTime(), 36));
        final Run r = run(env, config(TestServices.clickhouseHttps(), table("wrong_password"), tls("ca.pem")
            + CREDENTIALS));
        assertEquals(1, r.code(), r.output());
        assertTrue(r.reason().contains("ClickHouse refused sink secured-ch"), r.reason());
        assertTrue(r.reason().contains("WRONG_PASSWORD"), r.reason());
        assertTrue(r.reason().contains("check plugin_config.username and password"), r.reason());
    }

    @Test
    void shouldEndNamingTheDatabaseAUserWithoutRightsCannotUse() throws Exception
    {
        final Run r = run(env("SLUICE_TEST_CLICKHOUSE_NORIGHTS_USER", "SLUICE_TEST_CLICKHOUSE_NORIGHTS_PASSWORD"),
            config(TestServices.clickhouseHttps(), table("no_rights"), tls("ca.pem") + CREDENTIALS));
        assertEquals(1, r.code(), r.output());
        assertTrue(r.reason().contains("DATABASE_ACCESS_DENIED"), r.reason());
        assertTrue(r.reason().contains("Access denied to database " + db), r.reason());
        assertTrue(r.reason().contains("the user lacks the right"), r.reason());
    }

    @Test
    void shouldEndNamingTheTlsFailureWhenTheCaDidNotSignTheServer() throws Exception
    {
        final Run r = run(writer(), config(TestServices.clickhouseHttps(), table("wrong_ca"), tls("other-ca.pem")
            + CREDENTIALS));
        assertEquals(1, r.code(), r.output());
        assertTrue(r.reason().contains("TLS handshake failed"), r.reason());
        assertTrue(r.reason().contains("PKIX path building failed"), r.reason());
    }

    @Test
    void shouldEndWhenTheServerRefusesTheClientCertificate() throws Exception
    {
        final Run r = run(writer(), config(TestServices.clickhouseHttps(), table("rogue_certificate"),
            tls("ca.pem") + CREDENTIALS + "ssl_certificate_file = \"" + secure.resolve("rogue-client.pem")
                + "\"\nssl_key_file = \"" + secure.resolve("rogue-client.key") + "\"\n"));
        assertEquals(1, r.code(), r.output());
        assertTrue(r.reason().contains("ClickHouse refused sink secured-ch"), r.reason());
        assertTrue(r.reason().contains("TLS handshake failed"), r.reason());
    }

    @Test
    void shouldCompressInsertBodiesWithLz4AndGzip() throws Exception
    {
        final URI http = URI.create(TestServices.clickhouse());
        final Map<String, Long> bytes = new LinkedHashMap<>();
        for (final String compression : List.of("none", "lz4", "gzip"))
        {
            try (Relay relay = new Relay(http.getHost(), http.getPort()))
            {
                final String t = table("compression_" + compression);
                final Run r = run(Map.of(), config("http://127.0.0.1:" + relay.port(), t, "compression = \""
                    + compression + "\"\nmax_rows = 500\n"));
                assertEquals(0, r.code(), r.output());
                assertEquals(RECORDS, rows(t), compression);
                assertEquals(RECORDS, TestServices.sqlLong("SELECT uniqExact(id) FROM " + db + "." + t));
                bytes.put(compression, relay.upstreamBytes());
            }
        }
        System.out.println("bytes sent to ClickHouse for " + RECORDS + " GitHub events, by compression: " + bytes);
        // RowBinary of GitHub events: lz4 keeps well under two thirds of it, gzip less again
        assertTrue(bytes.get("lz4") < bytes.get("none") * 2 / 3, bytes.toString());
        assertTrue(bytes.get("gzip") < bytes.get("lz4"), bytes.toString());
    }

    /** A TCP relay on loopback that counts the bytes sent towards the server. */
    static final class Relay implements AutoCloseable
    {
        private final ServerSocket server;
        private final AtomicLong upstream = new AtomicLong();
        private final List<Socket> sockets = new ArrayList<>();

        Relay(final String host, final int port) throws IOException
        {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            final Thread accept = new Thread(() ->
            {
                while (!server.isClosed())
                {
                    try
                    {
                        final Socket in = server.accept();
                        final Socket out = new Socket();
                        out.connect(new InetSocketAddress(host, port), 5000);
                        synchronized (sockets)
                        {
                            sockets.add(in);
                            sockets.add(out);
                        }
                        pump(in.getInputStream(), out.getOutputStream(), upstream, out);
                        pump(out.getInputStream(), in.getOutputStream(), null, in);
                    }
                    catch (final IOException e)
                    {
                        // closed
                    }
                }
            }, "relay-accept");
            accept.setDaemon(true);
            accept.start();
        }

        private static void pump(final InputStream from, final OutputStream to, final AtomicLong count,
            final Socket target)
        {
            final Thread t = new Thread(() ->
            {
                final byte[] buf = new byte[65536];
                try
                {
                    int n;
                    while ((n = from.read(buf)) >= 0)
                    {
                        to.write(buf, 0, n);
                        if (count != null)
                        {
                            count.addAndGet(n);
                        }
                    }
                    target.shutdownOutput();
                }
                catch (final IOException e)
                {
                    // the other side closed
                }
            }, "relay-pump");
            t.setDaemon(true);
            t.start();
        }

        int port()
        {
            return server.getLocalPort();
        }

        long upstreamBytes()
        {
            return upstream.get();
        }

        @Override
        public void close() throws IOException
        {
            server.close();
            synchronized (sockets)
            {
                for (final Socket s : sockets)
                {
                    s.close();
                }
            }
        }
    }
}
