package io.sluice.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release as a user gets it: dist/sluice-VERSION.tar.gz (built by this module's package phase) unpacked in a
 * temporary directory, run only through its own bin/sluice against the real broker and ClickHouse server that
 * scripts/services.sh starts. Checks the layout, --version (the pom's version and the checkout's git commit), that
 * the launcher passes over a Java older than 17, check on the shipped examples, the systemd unit (systemd-analyze
 * verify, where installed), and a short pipeline: produce lines into a topic, gather them into a table.
 */
class DistributionIT
{
    @TempDir
    static Path tmp;
    static Path home;
    static String version;

    @BeforeAll
    static void unpack() throws Exception
    {
        final Path tarball = Path.of(System.getProperty("sluice.dist.tarball"));
        version = System.getProperty("sluice.dist.version");
        assertTrue(Files.isRegularFile(tarball), tarball + " is missing: mvn package builds it");
        final Result r = exec(tmp, Map.of(), "tar", "xzf", tarball.toString(), "-C", tmp.toString());
        assertEquals(0, r.code(), r.output());
        home = tmp.resolve("sluice-" + version);
    }

    record Result(int code, String output)
    {
    }

    static Result exec(final Path dir, final Map<String, String> env, final String... cmd) throws Exception
    {
        final Path logs = Files.createDirectories(Path.of("target", "it-logs").toAbsolutePath());
        final Path out = Files.createTempFile(logs, "dist-", ".log");
        final ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(out.toFile());
        pb.environment().putAll(env);
        final Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not end within 180 s:\n" + Files.readString(out));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    static Result sluice(final Map<String, String> env, final String... args) throws Exception
    {
        final List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/sluice").toString()));
        cmd.addAll(List.of(args));
        return exec(home, env, cmd.toArray(String[]::new));
    }

    static String bootstrap()
    {
        return System.getProperty("sluice.kafka.bootstrap", "127.0.0.1:19092");
    }

    static String clickhouse()
    {
        return System.getProperty("sluice.clickhouse.url", "http://127.0.0.1:18123");
    }

    static String sql(final String statement) throws Exception
    {
        final HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().send(
            HttpRequest.newBuilder(URI.create(clickhouse() + "/")).POST(HttpRequest.BodyPublishers.ofString(statement))
                .build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), statement + ": " + r.body());
        return r.body().trim();
    }

    @Test
    void shouldHoldWhatInstallMdDescribes() throws IOException
    {
        assertTrue(Files.getPosixFilePermissions(home.resolve("bin/sluice")).contains(
            PosixFilePermission.OWNER_EXECUTE), "bin/sluice is not executable");
        assertTrue(Files.size(home.resolve("lib/engine.jar")) > 10_000_000, "lib/engine.jar is not the shaded jar");
        for (final String f : List.of("config/github-events.toml", "config/github-events.sql",
            "config/scatter-users.toml", "config/users-three-lines.toml", "config/orders-exactly-once.toml",
            "config/orders-exactly-once.sql", "examples/data/github-events.jsonl.gz",
            "systemd/sluice.service", "INSTALL.md", "LICENSE"))
        {
            assertTrue(Files.isRegularFile(home.resolve(f)), f + " is missing");
        }
        assertTrue(Files.readString(home.resolve("LICENSE")).contains("Apache License"));
        final String install = Files.readString(home.resolve("INSTALL.md"));
        assertTrue(install.contains("# Installing Sluice " + version), "INSTALL.md is not filtered");
        final String launcher = Files.readString(home.resolve("bin/sluice"));
        assertTrue(launcher.contains("--add-opens=java.base/java.nio=ALL-UNNAMED"), "JVM flags not filtered in");
        assertTrue(!launcher.contains("@SLUICE_"), "a placeholder is left in bin/sluice");
    }

    @Test
    void shouldPrintThePomVersionAndTheGitCommit() throws Exception
    {
        final Result r = sluice(Map.of(), "--version");
        assertEquals(0, r.code(), r.output());
        assertTrue(r.output().startsWith("Sluice " + version + " (git "), r.output());
        final Result head = exec(Path.of(System.getProperty("sluice.project.root", ".")), Map.of(), "git",
            "rev-parse", "--short=12", "HEAD");
        if (head.code() == 0)
        {
            assertTrue(r.output().contains("(git " + head.output().trim()), r.output() + " vs HEAD " + head.output());
        }
    }

    @Test
    void shouldPassOverAJavaOlderThan17() throws Exception
    {
        final Path fake = Files.createDirectories(tmp.resolve("old-jdk/bin"));
        final Path java = Files.writeString(fake.resolve("java"),
            "#!/bin/sh\necho '    java.specification.version = 11' >&2\necho 'openjdk version \"11.0.2\"' >&2\n");
        java.toFile().setExecutable(true);
        final Result r = sluice(Map.of("JAVA_HOME", tmp.resolve("old-jdk").toString()), "--version");
        assertEquals(0, r.code(), r.output());
        assertTrue(r.output().contains("Sluice " + version), r.output());
        assertTrue(!r.output().contains("on Java 11"), r.output());
    }

    @Test
    void shouldCheckTheShippedExamples() throws Exception
    {
        for (final String example : List.of("github-events.toml", "scatter-users.toml", "users-three-lines.toml"))
        {
            final Result r = sluice(Map.of(), "check", "--config", "config/" + example);
            assertEquals(0, r.code(), example + ": " + r.output());
            assertTrue(r.output().contains("config/" + example + ": ok"), r.output());
        }
        // the PostgreSQL examples read the password from the environment
        for (final String example : List.of("github-events-postgres.toml", "orders-exactly-once.toml"))
        {
            final Result r = sluice(Map.of("PGPASSWORD", "unused-by-check"), "check", "--config", "config/" + example);
            assertEquals(0, r.code(), example + ": " + r.output());
            assertTrue(r.output().contains("config/" + example + ": ok"), r.output());
        }
    }

    @Test
    void shouldShipAUnitSystemdAccepts() throws Exception
    {
        final Result which = exec(tmp, Map.of(), "sh", "-c", "command -v systemd-analyze");
        if (which.code() != 0)
        {
            System.out.println("systemd-analyze is not installed: the unit is not verified here");
            return;
        }
        // verify needs the binaries it names to exist: point them at this unpacked release
        final Path unit = tmp.resolve("sluice.service");
        Files.writeString(unit, Files.readString(home.resolve("systemd/sluice.service")).replace("/opt/sluice",
            home.toString()));
        final Result verify = exec(tmp, Map.of(), "systemd-analyze", "verify", unit.toString());
        assertEquals(0, verify.code(), verify.output());
        assertEquals("", verify.output().trim(), "systemd-analyze verify warns");
    }

    /**
     * INSTALL.md, "Start-up": one run with {@code -XX:ArchiveClassesAtExit} writes lib/engine.jsa, the launcher then
     * starts every run with it ({@code -Xshare:on} makes a JVM that cannot map it fail, so exit 0 proves it is used),
     * and an archive gone stale (the jar changed) only costs a warning, never the run.
     */
    @Test
    void shouldStartWithTheClassDataSharingArchiveInLibWhenThereIsOne() throws Exception
    {
        final Path archive = home.resolve("lib/engine.jsa");
        final Path jar = home.resolve("lib/engine.jar");
        final FileTime jarTime = Files.getLastModifiedTime(jar);
        try
        {
            final Result dump = sluice(Map.of("SLUICE_JVM_OPTS", "-XX:ArchiveClassesAtExit=" + archive), "--version");
            assertEquals(0, dump.code(), dump.output());
            assertTrue(Files.isRegularFile(archive) && Files.size(archive) > 1_000_000,
                "no archive written by -XX:ArchiveClassesAtExit: " + dump.output());

            final Result used = sluice(Map.of("SLUICE_JVM_OPTS", "-Xshare:on"), "--version");
            assertEquals(0, used.code(), "the launcher did not start with " + archive + ": " + used.output());
            assertTrue(used.output().startsWith("Sluice " + version), used.output());

            Files.setLastModifiedTime(jar, FileTime.fromMillis(jarTime.toMillis() + 60_000));
            final Result stale = sluice(Map.of(), "--version");
            assertEquals(0, stale.code(), stale.output());
            assertTrue(stale.output().contains("Unable to use shared archive"), stale.output());
            assertTrue(stale.output().contains("Sluice " + version), stale.output());
        }
        finally
        {
            Files.deleteIfExists(archive);
            Files.setLastModifiedTime(jar, jarTime);
        }
    }

    @Test
    void shouldRunAShortPipeline() throws Exception
    {
        final String suffix = Long.toString(System.nanoTime(), 36);
        final String db = "dist_it_" + suffix;
        final String topic = "dist.it." + suffix;
        sql("CREATE DATABASE " + db);
        sql("CREATE TABLE " + db + ".events (id UInt32, name String) ENGINE = MergeTree ORDER BY id");
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 100; i++)
        {
            lines.add("{\"id\":" + i + ",\"name\":\"n" + i + "\"}");
        }
        Files.write(home.resolve("records.jsonl"), lines);
        // the ports from the environment, as the examples take them
        final String port = bootstrap().substring(bootstrap().lastIndexOf(':') + 1);
        final String chPort = clickhouse().substring(clickhouse().lastIndexOf(':') + 1);
        Files.writeString(home.resolve("config/pipeline.toml"), """
            [kafka]
            bootstrap_servers = "127.0.0.1:${KAFKA_PORT}"
            [checkpoint]
            commit_interval_ms = 200
            [[sinks]]
            name = "dist"
            kind = "clickhouse"
            topics = ["%s"]
            group_id = "dist-%s"
            [sinks.plugin_config]
            endpoint = "http://127.0.0.1:${CLICKHOUSE_PORT}"
            database = "%s"
            target_table = "events"
            linger_ms = 200
            """.formatted(topic, suffix, db));
        final Map<String, String> env = Map.of("KAFKA_PORT", port, "CLICKHOUSE_PORT", chPort);
        final Result produce = sluice(env, "produce", "--config", "config/pipeline.toml", "--topic", topic,
            "--partitions", "2", "--file", "records.jsonl");
        assertEquals(0, produce.code(), produce.output());
        final Result run = sluice(env, "--config", "config/pipeline.toml", "--until-caught-up");
        assertEquals(0, run.code(), run.output());
        assertEquals("100", sql("SELECT count() FROM " + db + ".events"));
        assertEquals("4950", sql("SELECT sum(id) FROM " + db + ".events"));
        final Result unset = sluice(Map.of(), "check", "--config", "config/pipeline.toml");
        assertEquals(2, unset.code(), unset.output());
        assertTrue(unset.output().contains("kafka.bootstrap_servers (line 2): ${KAFKA_PORT} is not set"),
            unset.output());
    }
}
