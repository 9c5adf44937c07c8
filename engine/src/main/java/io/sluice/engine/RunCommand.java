package io.sluice.engine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.core.gather.SinkProviders;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.Printable;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.engine.SluiceEngine;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.sinks.kafka.KafkaScatterDriver;

/** {@code engine.jar run --config F}: runs every pipeline of F until a signal, a failure or (optionally) catch-up. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run the pipelines of a configuration.")
public final class RunCommand implements Callable<Integer>
{
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "Pipeline configuration (TOML).")
    Path config;

    @Option(names = "--until-caught-up", description = "Stop (exit 0) once every assigned partition is committed up to its end offset; once every record up to the end is read, open batches are sealed without waiting for linger_ms. Exit 1 instead when a partition stopped because its exactly-once positions could not be used (e.g. above the end of a re-created topic).")
    boolean untilCaughtUp;

    @Override
    public Integer call()
    {
        return run(config, untilCaughtUp);
    }

    /**
     * SIGTERM and SIGINT (Ctrl-C) ask the engine to drain, commit and return, so the process exits with the engine's
     * own code (0 after a clean drain) rather than the JVM's 143/130 for a signal. A second signal while draining
     * stops at once (exit 130); what was not committed is re-read on the next start (at-least-once).
     */
    private static void installSignalHandlers(final SluiceEngine engine, final long drainTimeoutMs)
    {
        final AtomicInteger signals = new AtomicInteger();
        for (final String name : new String[]{"TERM", "INT"})
        {
            final boolean installed = Signals.handle(name, () ->
            {
                if (signals.incrementAndGet() == 1)
                {
                    LOG.info(
                        "signal {} received: draining in-flight batches and committing (up to {} ms; signal again to stop at once)",
                        name, drainTimeoutMs);
                    engine.shutdown();
                }
                else
                {
                    LOG.warn(
                        "second signal: stopping without draining; uncommitted records are re-read on the next start");
                    Runtime.getRuntime().halt(130);
                }
            });
            if (!installed)
            {
                LOG.debug("cannot handle SIG{} here; the shutdown hook drains instead", name);
            }
        }
    }

    static int run(final Path file, final boolean untilCaughtUp)
    {
        final SluiceConfig config;
        try
        {
            config = ConfigChecks.load(file);
        }
        catch (final ConfigException e)
        {
            return ConfigChecks.report(file, e,
                new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        }
        LOG.info("Sluice starting with {} ({} sink(s), {} source(s)); Kafka at {}", Printable.escape(file.toString()),
            config.sinks().size(), config.sources().size(), String.join("; ", config.kafkaConnections().stream()
                .map(SluiceConfig.Kafka::describe).toList()));
        final SluiceEngine engine = new SluiceEngine(config,
            sink -> SinkProviders.installed().provider(sink.kind()).driver(),
            source -> new KafkaScatterDriver(),
            new GatherPipeline.RunOptions(untilCaughtUp));
        installSignalHandlers(engine, config.checkpoint().drainTimeoutMs());
        // kill -USR1 <pid>: print counters and latency percentiles (end to end and per stage hop) without stopping.
        // Never SIGUSR2: HotSpot on Linux suspends threads with it (Java Flight Recorder's sampler), and a handler
        // installed on it takes those signals
        Signals.handle("USR1", engine::printLatencies);
        // any other JVM exit (System.exit elsewhere, a signal the handlers do not cover) still drains
        final Thread hook = new Thread(() ->
        {
            engine.shutdown();
            final long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(config.checkpoint().drainTimeoutMs() + 30_000);
            while (!engine.finished() && System.nanoTime() < deadline)
            {
                try
                {
                    Thread.sleep(20);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "sluice-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final int code = engine.run();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException e)
        {
            // shutting down already: the hook is running and waits for us
        }
        return code;
    }
}
