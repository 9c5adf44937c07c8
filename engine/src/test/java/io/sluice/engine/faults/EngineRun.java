package io.sluice.engine.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar engine/target/engine.jar ...} as a separate process, the way users run it, so that it can be
 * killed with SIGKILL ({@link Process#destroyForcibly()} on Linux) or stopped with SIGTERM. Its output is kept in
 * {@code engine/target/faults/<scenario>/<name>.log} for diagnosis.
 */
final class EngineRun implements AutoCloseable
{
    private final Process process;
    private final Path log;
    final String name;
    final long startNanos;
    private volatile long exitNanos;

    private EngineRun(final String name, final Process process, final Path log, final long startNanos)
    {
        this.name = name;
        this.process = process;
        this.log = log;
        this.startNanos = startNanos;
        process.onExit().thenRun(() -> exitNanos = System.nanoTime());
    }

    static EngineRun start(final Path dir, final String name, final String... args) throws IOException
    {
        return start(dir, name, java.util.Map.of(), args);
    }

    /** As above, with these variables added to the engine's environment (a password the config reads as ${VAR}). */
    static EngineRun start(final Path dir, final String name, final java.util.Map<String, String> env,
        final String... args) throws IOException
    {
        final Path jar = Faults.projectRoot().resolve("engine/target/engine.jar");
        if (!Files.exists(jar))
        {
            throw new IllegalStateException(
                jar + " is missing: run mvn package (verify builds it before integration tests)");
        }
        // GC and safepoint pauses go to a file next to the log: a stalled engine can be told from a paused JVM
        final List<String> cmd = new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-Xlog:gc,safepoint:file=" + dir.resolve(name + ".jvm.log") + ":uptime,time", "-jar",
                jar.toString()));
        cmd.addAll(List.of(args));
        final Path out = dir.resolve(name + ".log");
        Files.writeString(out, "$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
        pb.environment().putAll(env);
        final long start = System.nanoTime();
        return new EngineRun(name, pb.start(), out, start);
    }

    long pid()
    {
        return process.pid();
    }

    boolean alive()
    {
        return process.isAlive();
    }

    /** SIGKILL: no drain, no commit, no shutdown hook; returns once the process is gone. */
    void kill9() throws InterruptedException
    {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            throw new AssertionError(name + " (pid " + pid() + ") survived SIGKILL for 30 s");
        }
    }

    /**
     * Sends a signal by name ({@code STOP}, {@code CONT}) to the engine process with {@code kill}; fails the test
     * when kill fails.
     */
    void signal(final String signal) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true)
            .start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0)
        {
            throw new AssertionError("kill -" + signal + " " + pid() + " (" + name + "): " + out);
        }
    }

    /** SIGTERM: the engine drains, commits and exits. */
    void terminate()
    {
        process.destroy();
    }

    /** Waits for the exit and returns the exit code; on timeout kills the process and fails with its log's tail. */
    int waitFor(final long timeoutSeconds) throws InterruptedException
    {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError(
                name + " did not exit within " + timeoutSeconds + " s; log " + log + ":\n" + tail(60));
        }
        return process.exitValue();
    }

    /** @return when the process exited ({@link System#nanoTime()}), or 0 while it runs */
    long exitNanos()
    {
        if (exitNanos == 0 && !process.isAlive())
        {
            exitNanos = System.nanoTime();
        }
        return exitNanos;
    }

    Path logFile()
    {
        return log;
    }

    String output()
    {
        try
        {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            return "(no output: " + e + ")";
        }
    }

    String tail(final int lines)
    {
        final String[] all = output().split("\n");
        final StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, all.length - lines); i < all.length; i++)
        {
            sb.append(all[i]).append('\n');
        }
        return sb.toString();
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(30, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
