package io.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code SLUICE_SECURE=0 scripts/services.sh start} (issue 25 item 4): a second Kafka, ClickHouse and PostgreSQL of
 * their own, on free ports with their own {@code SLUICE_HOME} under target/ (the shared services are not touched),
 * started with the secured parts left out. {@code start}, {@code status}, {@code env} and {@code stop} exit 0; each
 * service answers on its plaintext port (the broker through Admin, ClickHouse over HTTP, PostgreSQL through pgJDBC
 * as the plain user); nothing secured runs: the broker's {@code listeners} hold PLAINTEXT and CONTROLLER only and the
 * ports given for SASL_SSL, MTLS and HTTPS stay closed, PostgreSQL has {@code ssl} off and refuses
 * {@code sslmode=require}, no certificate is made; {@code env} prints no secured endpoint. After {@code stop} every
 * port is closed. The broker's jars are taken from the shared services' home when they were resolved for this pom.
 */
class PlaintextServicesIT
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final int LIMIT_S = 300;

    private static Path root;
    private static Path home;
    private static Path logs;
    private static Map<String, String> env;
    private static int kafka;
    private static int clickhouseHttp;
    private static int clickhouseTcp;
    private static int postgres;
    private static int saslSsl;
    private static int mtls;
    private static int https;
    private static Result start;
    private static boolean stopped;
    private static int calls;

    record Result(int code, String output)
    {
    }

    /** Free ports, each distinct; the broker's needs its next one free too (its controller listens there). */
    private static void choosePorts() throws IOException
    {
        final Set<Integer> taken = new HashSet<>();
        kafka = 0;
        while (kafka == 0)
        {
            final int p = free(taken);
            if (!listening(p + 1) && canBind(p + 1) && !taken.contains(p + 1))
            {
                kafka = p;
                taken.add(p + 1);
            }
        }
        clickhouseHttp = free(taken);
        clickhouseTcp = free(taken);
        postgres = free(taken);
        saslSsl = free(taken);
        mtls = free(taken);
        https = free(taken);
    }

    private static int free(final Set<Integer> taken) throws IOException
    {
        while (true)
        {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                if (taken.add(s.getLocalPort()))
                {
                    return s.getLocalPort();
                }
            }
        }
    }

    private static boolean canBind(final int port)
    {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort() == port;
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    private static boolean listening(final int port)
    {
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    private static Result services(final String command) throws IOException, InterruptedException
    {
        final Path out = logs.resolve(String.format("%02d-services-%s.log", ++calls, command));
        final ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("scripts/services.sh").toString(), command)
            .directory(root.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        final Process p = pb.start();
        if (!p.waitFor(LIMIT_S, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("SLUICE_SECURE=0 scripts/services.sh " + command + " did not end within "
                + LIMIT_S + " s:\n" + Files.readString(out));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    @BeforeAll
    static void startPlaintextOnly() throws Exception
    {
        root = TestServices.projectRoot();
        final Path target = root.resolve("engine/target");
        home = target.resolve("plaintext-services");
        logs = target.resolve("it-logs/plaintext-services");
        deleteTree(logs);
        Files.createDirectories(logs);
        choosePorts();
        env = new HashMap<>();
        env.put("SLUICE_SECURE", "0");
        env.put("SLUICE_HOME", home.toString());
        env.put("SLUICE_KAFKA_PORT", Integer.toString(kafka));
        env.put("SLUICE_KAFKA_SASL_SSL_PORT", Integer.toString(saslSsl));
        env.put("SLUICE_KAFKA_MTLS_PORT", Integer.toString(mtls));
        env.put("SLUICE_KAFKA_HEAP", "256m");
        env.put("SLUICE_CLICKHOUSE_HTTP_PORT", Integer.toString(clickhouseHttp));
        env.put("SLUICE_CLICKHOUSE_HTTPS_PORT", Integer.toString(https));
        env.put("SLUICE_CLICKHOUSE_TCP_PORT", Integer.toString(clickhouseTcp));
        env.put("SLUICE_POSTGRES_PORT", Integer.toString(postgres));
        if (Files.exists(home))
        {
            // a run that ended without its @AfterAll: stop what it started (found by its pid files) and wipe it
            services("stop");
            services("wipe");
            deleteTree(home);
        }
        Files.createDirectories(home);
        // the broker jars of the shared services, when resolved for this very pom (services.sh checks the stamp and
        // resolves them itself otherwise; a stale link is only unlinked)
        final Path libs = TestServices.secureDir().getParent().resolve("kafka/libs");
        if (Files.isRegularFile(libs.resolve(".resolved-from")))
        {
            Files.createDirectories(home.resolve("kafka"));
            Files.createSymbolicLink(home.resolve("kafka/libs"), libs);
        }
        start = services("start");
    }

    @AfterAll
    static void stopAndWipe() throws Exception
    {
        if (home == null)
        {
            return;
        }
        if (!stopped)
        {
            services("stop");
        }
        final Result wipe = services("wipe");
        assertEquals(0, wipe.code(), "wipe: " + wipe.output());
        deleteTree(home);
    }

    @Test
    void shouldStartStopAndReportWithoutTheSecuredParts() throws Exception
    {
        assertEquals(0, start.code(), "SLUICE_SECURE=0 scripts/services.sh start exited " + start.code() + ":\n"
            + start.output());
        assertTrue(start.output().contains("plaintext listeners only"), start.output());
        assertFalse(start.output().contains("error"), start.output());

        shouldAnswerOnThePlaintextPortsOnly();

        final Result status = services("status");
        assertEquals(0, status.code(), status.output());
        for (final String s : List.of("kafka: up", "clickhouse: up", "postgres: up"))
        {
            assertTrue(status.output().contains(s), "no '" + s + "' in status:\n" + status.output());
        }

        final Result printed = services("env");
        assertEquals(0, printed.code(), printed.output());
        final Map<String, String> vars = new HashMap<>();
        for (final String line : printed.output().split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0)
            {
                vars.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertEquals("127.0.0.1:" + kafka, vars.get("SLUICE_KAFKA_BOOTSTRAP"), printed.output());
        assertEquals("http://127.0.0.1:" + clickhouseHttp, vars.get("SLUICE_CLICKHOUSE_URL"), printed.output());
        assertEquals("jdbc:postgresql://127.0.0.1:" + postgres + "/sluice", vars.get("SLUICE_POSTGRES_URL"),
            printed.output());
        for (final String secured : List.of("SLUICE_KAFKA_SASL_SSL_BOOTSTRAP", "SLUICE_KAFKA_MTLS_BOOTSTRAP",
            "SLUICE_CLICKHOUSE_HTTPS_URL", "SLUICE_POSTGRES_SCRAM_USER", "SLUICE_POSTGRES_CERT_USER"))
        {
            assertFalse(vars.containsKey(secured), secured + " printed with SLUICE_SECURE=0:\n" + printed.output());
        }
        assertFalse(printed.output().contains(secrets().get("SLUICE_TEST_POSTGRES_PASSWORD")),
            "env printed a password");

        final Result stop = services("stop");
        stopped = true;
        assertEquals(0, stop.code(), stop.output());
        for (final int port : List.of(kafka, kafka + 1, clickhouseHttp, clickhouseTcp, postgres))
        {
            assertFalse(listening(port), "port " + port + " still answers after stop:\n" + stop.output());
        }
        for (final String pid : List.of("kafka.pid", "clickhouse.pid", "postgres.pid"))
        {
            assertFalse(Files.exists(home.resolve("run").resolve(pid)), pid + " left after stop");
        }
        final Result after = services("status");
        assertEquals(3, after.code(), "status after stop: " + after.output());
    }

    private void shouldAnswerOnThePlaintextPortsOnly() throws Exception
    {
        // Kafka: the broker answers, and its listeners are the plaintext and controller ones only
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafka);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        try (Admin admin = Admin.create(p))
        {
            final Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            assertEquals(1, nodes.size(), nodes.toString());
            assertEquals(kafka, nodes.iterator().next().port());
            final ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER,
                Integer.toString(nodes.iterator().next().id()));
            final Config config = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
            final String listeners = config.get("listeners").value();
            assertEquals("PLAINTEXT://127.0.0.1:" + kafka + ",CONTROLLER://127.0.0.1:" + (kafka + 1), listeners);
        }
        // ClickHouse: HTTP answers; no https_port
        final HttpResponse<String> ping = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
            + clickhouseHttp + "/ping")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("Ok.", ping.body().trim());
        final HttpResponse<String> one = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
            + clickhouseHttp + "/")).POST(HttpRequest.BodyPublishers.ofString("SELECT 40 + 2")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals("42", one.body().trim(), one.body());
        final String chConfig = Files.readString(home.resolve("clickhouse/config.xml")).replaceAll("(?s)<!--.*?-->",
            "");
        assertTrue(chConfig.contains("<http_port>" + clickhouseHttp + "</http_port>"), chConfig);
        assertFalse(chConfig.contains("<https_port>"), "clickhouse config.xml has an https_port:\n" + chConfig);
        for (final int port : List.of(saslSsl, mtls, https))
        {
            assertFalse(listening(port), "a secured listener answers on " + port);
        }
        // PostgreSQL: the plain user with its password, no TLS offered
        final String url = "jdbc:postgresql://127.0.0.1:" + postgres + "/sluice";
        final Map<String, String> secrets = secrets();
        final Properties pg = new Properties();
        pg.setProperty("user", secrets.get("SLUICE_TEST_POSTGRES_USER"));
        pg.setProperty("password", secrets.get("SLUICE_TEST_POSTGRES_PASSWORD"));
        pg.setProperty("connectTimeout", "10");
        pg.setProperty("loginTimeout", "15");
        pg.setProperty("sslmode", "disable");
        try (Connection c = DriverManager.getConnection(url, pg);
            Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT current_user, current_setting('ssl')"))
        {
            assertTrue(r.next());
            assertEquals("sluice", r.getString(1));
            assertEquals("off", r.getString(2));
        }
        pg.setProperty("sslmode", "require");
        final SQLException tls = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, pg).close());
        assertTrue(tls.getMessage().contains("does not support SSL"), tls.toString());
        // no certificates were made: the secure directory holds the PostgreSQL passwords only
        final List<String> made = new ArrayList<>();
        try (Stream<Path> files = Files.list(home.resolve("secure")))
        {
            files.forEach(f -> made.add(f.getFileName().toString()));
        }
        assertEquals(List.of("secrets.env"), made);
    }

    private static Map<String, String> secrets() throws IOException
    {
        final Map<String, String> out = new HashMap<>();
        for (final String line : Files.readAllLines(home.resolve("secure/secrets.env")))
        {
            final int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0)
            {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try (Stream<Path> s = Files.walk(dir))
        {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
