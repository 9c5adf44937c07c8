package io.sluice.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code java -jar engine/target/engine.jar ...} as a separate process, the way users run it (the jar is built
 * by the package phase, before failsafe's integration tests). Output goes to a file the test can read.
 */
final class EngineProcess implements AutoCloseable
{
    private final Process process;
    private final Path output;

    private EngineProcess(final Process process, final Path output)
    {
        this.process = process;
        this.output = output;
    }

    static EngineProcess start(final String... args) throws IOException
    {
        return start(List.of(), Map.of(), args);
    }

    /**
     * Starts the engine with extra environment variables (secrets a configuration reads through ${NAME}).
     *
     * @param env  variables added to this JVM's environment
     * @param args the engine's arguments
     * @return the running process; its output is kept under target/it-logs, where scripts/lib/secret-scan.sh looks
     */
    static EngineProcess start(final Map<String, String> env, final String... args) throws IOException
    {
        return start(List.of(), env, args);
    }

    /** Starts it with JVM options before {@code -jar} (for example {@code -Dsluice.failpoints=...}). */
    static EngineProcess start(final List<String> jvmArgs, final String... args) throws IOException
    {
        return start(jvmArgs, Map.of(), args);
    }

    /**
     * @param jvmArgs JVM options before {@code -jar}
     * @param env     variables added to this JVM's environment
     * @param args    the engine's arguments
     * @return the running process; its output is kept under target/it-logs
     */
    static EngineProcess start(final List<String> jvmArgs, final Map<String, String> env, final String... args)
        throws IOException
    {
        final Path jar = TestServices.projectRoot().resolve("engine/target/engine.jar");
        if (!Files.exists(jar))
        {
            throw new IllegalStateException(
                jar + " is missing: run mvn package (verify builds it before integration tests)");
        }
        final List<String> cmd = new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", jar.toString()));
        cmd.addAll(List.of(args));
        final Path logs = Files.createDirectories(Path.of("target", "it-logs").toAbsolutePath());
        final Path out = Files.createTempFile(logs, "engine-", ".log");
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        return new EngineProcess(pb.start(), out);
    }

    /** Runs to completion and returns the exit code. */
    int waitFor(final long timeoutSeconds) throws InterruptedException
    {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("engine did not exit within " + timeoutSeconds + " s; output:\n" + output());
        }
        return process.exitValue();
    }

    /**
     * Sends a signal with {@code kill}.
     *
     * @param name the signal's name without {@code SIG}, e.g. {@code USR1}
     */
    void signal(final String name) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
            .redirectErrorStream(true).start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new AssertionError("kill -" + name + " " + process.pid() + " failed: "
                + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Sends SIGTERM (what Ctrl-C / a service manager does). */
    void terminate()
    {
        process.destroy();
    }

    String output()
    {
        try
        {
            return Files.readString(output, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() throws IOException
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
        // the output stays in target/it-logs: the run's secret scan reads it
    }

    static Path writeConfig(final String toml) throws IOException
    {
        final Path f = Files.createTempFile("sluice-", ".toml");
        Files.writeString(f, toml);
        f.toFile().deleteOnExit();
        return f;
    }
}
