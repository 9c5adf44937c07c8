package io.sluice.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        return start(List.of(), args);
    }

    /** Starts it with JVM options before {@code -jar} (for example {@code -Dsluice.failpoints=...}). */
    static EngineProcess start(final List<String> jvmArgs, final String... args) throws IOException
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
        final Path out = Files.createTempFile("sluice-engine-", ".log");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new EngineProcess(p, out);
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
        Files.deleteIfExists(output);
    }

    static Path writeConfig(final String toml) throws IOException
    {
        final Path f = Files.createTempFile("sluice-", ".toml");
        Files.writeString(f, toml);
        f.toFile().deleteOnExit();
        return f;
    }
}
