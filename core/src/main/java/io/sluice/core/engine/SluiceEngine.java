package io.sluice.core.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SinkConnection;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.gather.CircuitBreaker;
import io.sluice.core.gather.GatherPipeline;
import io.sluice.core.gather.InsertWorker;
import io.sluice.core.gather.SinkDriver;
import io.sluice.core.gather.json.TomlGather;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.scatter.ScatterDriver;
import io.sluice.core.scatter.ScatterException;
import io.sluice.core.scatter.internal.ScatterPipeline;
import io.sluice.core.source.KafkaChecks;
import io.sluice.core.stage.ClientHealth;
import io.sluice.core.stage.Failpoints;
import io.sluice.core.stage.FatalErrors;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;

/**
 * Runs every pipeline of a configuration until they stop: on a signal ({@link #shutdown()}), on a failure (exit 1,
 * the reason logged), or, with {@code untilCaughtUp}, once every partition is committed up to its end. Prints a
 * periodic status line and a final summary (rows per table, records/s, latency percentiles).
 *
 * <p>Exit codes: {@link #EXIT_OK}, {@link #EXIT_FAILURE}; configuration problems are reported before an engine is
 * built ({@link #EXIT_CONFIG}).
 */
public final class SluiceEngine
{
    /** Everything ran and stopped cleanly. */
    public static final int EXIT_OK = 0;
    /** A runtime failure: unreachable service, missing table, failed record under fail policy, stalled partition. */
    public static final int EXIT_FAILURE = 1;
    /** The configuration is invalid. */
    public static final int EXIT_CONFIG = 2;

    private static final Logger LOG = LoggerFactory.getLogger(SluiceEngine.class);

    private final SluiceConfig config;
    private final Function<SluiceConfig.Sink, SinkDriver> drivers;
    private final GatherPipeline.RunOptions options;
    // read by the metrics endpoint's threads while run() adds to them
    private final List<GatherPipeline<?>> pipelines = new CopyOnWriteArrayList<>();
    private final List<GatherPipeline<?>> pipelinesView = Collections.unmodifiableList(pipelines);
    private final List<SinkDriver> openDrivers = new ArrayList<>();
    /** The driver of each installed sink, opened when a pipeline first writes to it; shared by the pipelines. */
    private final Map<String, SinkDriver> driverBySink = new HashMap<>();
    private final Function<SluiceConfig.Source, ScatterDriver> scatterDrivers;
    private final List<ScatterPipeline> scatters = new CopyOnWriteArrayList<>();
    private final ClientHealth kafkaHealth = new ClientHealth();
    private final Health.Probes probes = new Probes();
    private volatile boolean shutdownRequested;
    private volatile boolean started;
    private volatile String startPhase = "not started";
    private volatile long heartbeatNanos = System.nanoTime();
    private volatile boolean finished;
    private volatile String failure;
    private long startNanos;

    /**
     * @param config  a configuration from {@code ConfigLoader}; the deep checks ({@link DeepConfigChecks}) run here
     * @param drivers the driver for a sink (by its kind); the engine closes the drivers it opened
     * @param options run options
     * @throws ConfigException when a deep check refuses the configuration
     */
    public SluiceEngine(final SluiceConfig config, final Function<SluiceConfig.Sink, SinkDriver> drivers,
        final GatherPipeline.RunOptions options)
    {
        this(config, drivers, source ->
        {
            throw new IllegalStateException("no scatter driver given for source " + source.name());
        }, options);
    }

    /**
     * @param config         a configuration from {@code ConfigLoader}; the deep checks ({@link DeepConfigChecks}) run
     *                       here, so an embedder gets the refusals of {@code engine.jar check}
     * @param drivers        the driver for a sink (by its kind); the engine closes the drivers it opened
     * @param scatterDrivers the Kafka connection of a source ({@code [[sources]]}, scatter)
     * @param options        run options
     * @throws ConfigException when a deep check refuses the configuration, naming each key
     */
    public SluiceEngine(final SluiceConfig config, final Function<SluiceConfig.Sink, SinkDriver> drivers,
        final Function<SluiceConfig.Source, ScatterDriver> scatterDrivers, final GatherPipeline.RunOptions options)
    {
        DeepConfigChecks.check(config);
        this.config = config;
        this.drivers = drivers;
        this.scatterDrivers = scatterDrivers;
        this.options = options;
    }

    /**
     * Starts every pipeline and blocks until all have stopped.
     *
     * @return {@link #EXIT_OK} or {@link #EXIT_FAILURE}
     */
    public int run()
    {
        FatalErrors.install();
        try
        {
            return runPipelines();
        }
        catch (final Throwable t)
        {
            // an Error on the main thread (the control loop): stop the pipelines (bounded), exit 1 naming it
            final FatalErrors.Fatal fatal = new FatalErrors.Fatal(Thread.currentThread(), t);
            try
            {
                failure = fatal.describe();
                LOG.error("stopped with a failure: {}", failure, t);
            }
            catch (final Throwable again)
            {
                System.err.println("sluice: the engine's control loop failed; the run ends (exit 1)");
            }
            try
            {
                stopAll();
            }
            catch (final Throwable again)
            {
                // the process exits 1 all the same; what was not committed is read again
            }
            finished = true;
            return EXIT_FAILURE;
        }
    }

    private int runPipelines()
    {
        startNanos = System.nanoTime();
        final String stdin = config.stdinConflict();
        if (stdin != null)
        {
            failure = stdin;
            LOG.error("{}", failure);
            finished = true;
            return EXIT_CONFIG;
        }
        // the listener opens first: a probe during the Kafka check and the group join gets 503, never a refused
        // connection
        MetricsEndpoint metrics = null;
        if (!config.metrics().listen().isEmpty())
        {
            try
            {
                metrics = MetricsEndpoint.start(config.metrics(), this::pipelines, this::scatters, probes);
                final String host = config.metrics().host();
                LOG.info("metrics: http://{}:{}/metrics (probes: /live, /ready)", host.isEmpty()
                    ? "0.0.0.0"
                    : host.contains(":")
                        ? "[" + host + "]"
                        : host,
                    metrics.port());
            }
            catch (final IOException | RuntimeException e)
            {
                failure = "cannot serve metrics on " + config.metrics().listen() + " (metrics.listen): "
                    + e.getMessage();
                LOG.error("{}", failure);
                finished = true;
                return EXIT_FAILURE;
            }
        }
        startPhase = "checking Kafka at " + config.kafka().bootstrapServers();
        // consumers retry an unreachable broker (or one that refuses their credentials) silently forever: ask each
        // cluster once, up front, with the pipelines' own security settings, and name the address and the reason
        final String kafkaProblem = KafkaChecks.unreachable(config, config.engine().kafkaCheckTimeoutMs());
        if (kafkaProblem != null)
        {
            failure = kafkaProblem;
            LOG.error("{}", failure);
            finished = true;
            if (metrics != null)
            {
                metrics.close();
            }
            return EXIT_FAILURE;
        }
        try
        {
            final int startCode = startPipelines();
            if (startCode >= 0)
            {
                return startCode;
            }
            started = true;
            startPhase = "started";
            if (pipelines.isEmpty() && scatters.isEmpty())
            {
                failure = "nothing to run: every source is embedded and there are no sinks";
                LOG.error("{}", failure);
                return EXIT_CONFIG;
            }
            waitForPipelines();
        }
        catch (final RuntimeException e)
        {
            failure = e.toString();
            LOG.error("engine failed", e);
            stopAll();
        }
        finally
        {
            for (final SinkDriver d : openDrivers)
            {
                d.close();
            }
            if (metrics != null)
            {
                metrics.close();
            }
            finished = true;
        }
        return finish();
    }

    /**
     * Starts the pipeline of every sink, then of every non-embedded source.
     *
     * @return -1 when all started, else the exit code (the reason is in {@link #failure()})
     */
    private int startPipelines()
    {
        // an installed sink's connection object is its own: the installed sinks of a pipeline's branches carry the
        // connection of the sink each writes to, which picks that sink's driver
        final Map<SinkConnection, String> sinkOfConnection = new IdentityHashMap<>();
        config.sinks().forEach(s -> sinkOfConnection.putIfAbsent(s.plugin(), s.name()));
        for (final SluiceConfig.Sink sink : config.sinks())
        {
            if (!sink.consumes())
            {
                LOG.info("{}: no pattern or topics: a target of other sinks' branches, no pipeline of its own",
                    sink.name());
                continue;
            }
            startPhase = "starting sink " + sink.name() + " (checking its endpoints and tables)";
            final GatherPipeline<?> p;
            try
            {
                p = new GatherPipeline<>(config,
                    TomlGather.build(config, sink, name -> driverOf(name).jsonEncoding()),
                    spec -> driverOf(sinkOfConnection.get(spec.connection())), options);
            }
            catch (final IllegalArgumentException e)
            {
                failure = "sink " + sink.name() + ": " + e.getMessage();
                LOG.error("{}", failure);
                stopAll();
                return EXIT_FAILURE;
            }
            try
            {
                p.start();
            }
            catch (final SinkException e)
            {
                failure = "sink " + sink.name() + ": " + e.getMessage();
                LOG.error("{}", failure);
                stopAll();
                return EXIT_FAILURE;
            }
            pipelines.add(p);
        }
        for (final SluiceConfig.Source source : config.sources())
        {
            if (SluiceConfig.Source.EMBEDDED.equals(source.kind()))
            {
                LOG.info("{}: embedded source: its records are offered by a host application through "
                    + "ScatterRouter; nothing to run here", source.name());
                continue;
            }
            final ScatterPipeline p = new ScatterPipeline(config, source, scatterDrivers.apply(source),
                options.untilCaughtUp());
            try
            {
                p.start();
            }
            catch (final ScatterException e)
            {
                failure = "source " + source.name() + ": " + e.getMessage();
                LOG.error("{}", failure);
                stopAll();
                return EXIT_FAILURE;
            }
            scatters.add(p);
        }
        return -1;
    }

    /**
     * @param sinkName an installed sink ({@code [[sinks]]})
     * @return its driver, opened on first use and closed when the run ends
     * @throws IllegalStateException when no sink has that name (an installed sink of an unknown connection)
     */
    private SinkDriver driverOf(final String sinkName)
    {
        if (sinkName == null)
        {
            throw new IllegalStateException("an installed sink's connection is no [[sinks]]'s");
        }
        SinkDriver d = driverBySink.get(sinkName);
        if (d == null)
        {
            d = drivers.apply(config.sink(sinkName));
            driverBySink.put(sinkName, d);
            openDrivers.add(d);
        }
        return d;
    }

    /** Gives the run's failure (a fatal error, then a pipeline's), prints the summary and returns the exit code. */
    private int finish()
    {
        final FatalErrors.Fatal fatal = FatalErrors.first();
        if (fatal != null && failure == null)
        {
            failure = fatal.describe();
        }
        for (final GatherPipeline<?> p : pipelines)
        {
            if (p.control().failed() && failure == null)
            {
                failure = "sink " + p.name() + ": " + p.control().failureReason();
            }
        }
        for (final GatherPipeline<?> p : pipelines)
        {
            // caught up to the end offsets, but a partition whose positions were refused wrote nothing of it
            final List<String> refused = p.caughtUp() ? p.refusedPartitions() : List.of();
            if (!refused.isEmpty() && failure == null)
            {
                failure = "sink " + p.name() + ": caught up (--until-caught-up), but " + refused.size()
                    + (refused.size() == 1 ? " partition" : " partitions") + " stopped: " + String.join("; ", refused);
            }
        }
        for (final ScatterPipeline p : scatters)
        {
            if (p.control().failed() && failure == null)
            {
                failure = "source " + p.name() + ": " + p.control().failureReason();
            }
        }
        printSummary();
        if (failure != null)
        {
            LOG.error("stopped with a failure: {}", failure);
            return EXIT_FAILURE;
        }
        return EXIT_OK;
    }

    private void waitForPipelines()
    {
        final long statusNanos = TimeUnit.MILLISECONDS.toNanos(config.engine().statusIntervalMs());
        long nextStatus = System.nanoTime() + statusNanos;
        long lastRows = 0;
        long lastNanos = System.nanoTime();
        while (true)
        {
            boolean anyRunning = false;
            boolean anyFailed = false;
            for (final GatherPipeline<?> p : pipelines)
            {
                anyRunning |= !p.sourceFinished();
                anyFailed |= p.control().failed();
            }
            for (final ScatterPipeline p : scatters)
            {
                anyRunning |= !p.sourceFinished();
                anyFailed |= p.control().failed();
            }
            if (Failpoints.ENABLED)
            {
                Failpoints.check(Failpoints.ENGINE, 0);
            }
            anyFailed |= FatalErrors.first() != null;
            if (anyFailed || shutdownRequested)
            {
                // one failed pipeline stops them all: the engine exits non-zero and is restarted as a whole
                for (final GatherPipeline<?> p : pipelines)
                {
                    p.requestStop();
                }
                for (final ScatterPipeline p : scatters)
                {
                    p.requestStop();
                }
            }
            if (!anyRunning)
            {
                break;
            }
            final long now = System.nanoTime();
            heartbeatNanos = now;
            if (statusNanos > 0 && now - nextStatus >= 0)
            {
                long rows = 0;
                for (final GatherPipeline<?> p : pipelines)
                {
                    rows += p.stats().rowsWritten.get();
                }
                final double rate = (rows - lastRows) * 1e9 / Math.max(1, now - lastNanos);
                for (final GatherPipeline<?> p : pipelines)
                {
                    StatusLines.log(p, rate);
                }
                for (final ScatterPipeline p : scatters)
                {
                    StatusLines.log(p);
                }
                lastRows = rows;
                lastNanos = now;
                nextStatus = now + statusNanos;
            }
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                shutdownRequested = true;
            }
        }
        stopAll();
    }

    private void stopAll()
    {
        for (final GatherPipeline<?> p : pipelines)
        {
            p.requestStop();
        }
        for (final GatherPipeline<?> p : pipelines)
        {
            try
            {
                if (!p.awaitTermination(config.checkpoint().drainTimeoutMs() + 60_000))
                {
                    LOG.warn("{}: threads did not stop in time", p.name());
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        stopScatters();
    }

    private void stopScatters()
    {
        for (final ScatterPipeline p : scatters)
        {
            p.requestStop();
        }
        for (final ScatterPipeline p : scatters)
        {
            try
            {
                if (!p.awaitTermination(config.checkpoint().drainTimeoutMs() + 60_000))
                {
                    LOG.warn("{}: threads did not stop in time", p.name());
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Asks every pipeline to drain, commit and stop (signal handlers call this); returns immediately. */
    public void shutdown()
    {
        shutdownRequested = true;
        for (final GatherPipeline<?> p : pipelines)
        {
            p.requestStop();
        }
        for (final ScatterPipeline p : scatters)
        {
            p.requestStop();
        }
    }

    /**
     * @return what the engine's Kafka clients learnt about authentication outside a pipeline (start-up checks, admin
     *         clients); {@code /ready} is 503 while it, or any pipeline's {@code PipelineStats.kafka}, reports a
     *         failure
     */
    public ClientHealth kafkaHealth()
    {
        return kafkaHealth;
    }

    /** @return what answers {@code /live} and {@code /ready} (also without a metrics listener); thread-safe */
    public Health.Probes probes()
    {
        return probes;
    }

    /** @return the scatter pipelines (for tests and tools) */
    public List<ScatterPipeline> scatterPipelines()
    {
        return List.copyOf(scatters);
    }

    /** @return true once {@link #run()} has finished stopping everything */
    public boolean finished()
    {
        return finished;
    }

    /**
     * The pipelines (for tests and tools), as a read-only view of the engine's copy-on-write list: iterating it sees
     * a snapshot, and a monitor that asks every 200 ms copies nothing.
     *
     * @return the pipelines
     */
    public List<GatherPipeline<?>> pipelines()
    {
        return pipelinesView;
    }

    /** @return why the run failed (the reason {@link #run()} logged with exit 1), or null; any thread */
    public String failure()
    {
        return failure;
    }

    /** @return the scatter pipelines started so far ({@code [[sources]]}, embedded ones excluded); thread-safe */
    public List<ScatterPipeline> scatters()
    {
        return List.copyOf(scatters);
    }

    /** Logs the status line and the latency percentiles so far, on demand (SIGUSR1 in the command line). */
    public void printLatencies()
    {
        printSummary();
    }

    private void printSummary()
    {
        for (final ScatterPipeline p : scatters)
        {
            LOG.info("{}", p.summary());
        }
        final double seconds = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
        for (final GatherPipeline<?> p : pipelines)
        {
            LOG.info("{}", RunSummary.text(p, seconds));
        }
    }

    /**
     * {@code /live}: the engine's control loop runs (it wakes every 50 ms) and no source ended on its own.
     * {@code /ready}: every pipeline has started (its sinks answered at start), has its partition assignment, and has
     * no partition stalled beyond {@code metrics.ready_stalled_percent} of {@code checkpoint.stalled_fail_after_ms},
     * no open circuit breaker, no Kafka authentication failure and no failure.
     */
    private final class Probes implements Health.Probes
    {
        private static final long LOOP_SILENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

        @Override
        public Health live()
        {
            if (finished)
            {
                return new Health(false, "not live", List.of("the run has ended"
                    + (failure == null ? "" : ": " + failure)));
            }
            final List<String> reasons = new ArrayList<>();
            final long silent = System.nanoTime() - heartbeatNanos;
            if (started && silent > LOOP_SILENCE_NANOS)
            {
                reasons.add("the engine's control loop has not run for " + TimeUnit.NANOSECONDS.toSeconds(silent)
                    + " s");
            }
            for (final GatherPipeline<?> p : pipelines)
            {
                if (p.sourceFinished() && !p.control().stopRequested())
                {
                    reasons.add("sink " + p.name() + ": its source thread ended");
                }
            }
            return new Health(reasons.isEmpty(), reasons.isEmpty() ? "live" : "not live", reasons);
        }

        @Override
        public Health ready()
        {
            final List<String> reasons = new ArrayList<>();
            if (finished)
            {
                reasons.add("the run has ended" + (failure == null ? "" : ": " + failure));
                for (final GatherPipeline<?> p : pipelines)
                {
                    authentication("sink " + p.name(), p.stats(), reasons);
                }
                for (final ScatterPipeline p : scatters)
                {
                    authentication("source " + p.name(), p.sourceStats(), reasons);
                }
                return new Health(false, "stopping", reasons);
            }
            if (!started)
            {
                reasons.add("starting: " + startPhase);
            }
            if (shutdownRequested)
            {
                reasons.add("stopping: draining and committing");
            }
            final String auth = kafkaHealth.authenticationFailure();
            if (auth != null)
            {
                reasons.add("Kafka authentication failed: " + auth);
            }
            final long now = System.nanoTime();
            final int percent = config.metrics().readyStalledPercent();
            final long stallLimitMs = config.checkpoint().stalledFailAfterMs() * percent / 100;
            for (final GatherPipeline<?> p : pipelines)
            {
                final String what = "sink " + p.name();
                common(what, p.control(), p.stats(), true, reasons);
                final PartitionTrackers t = p.trackers();
                for (int i = 0; i < t.size(); i++)
                {
                    if (!t.isLive(i))
                    {
                        continue;
                    }
                    final AckTracker tr = t.get(i);
                    final long stalledMs = TimeUnit.NANOSECONDS.toMillis(tr.stalledNanos(now));
                    if (stalledMs > stallLimitMs)
                    {
                        final String holder = p.watermarkHolder(i);
                        reasons.add(what + ": partition " + tr.topic() + "-" + tr.partition() + " stalled for "
                            + stalledMs + " ms at offset " + tr.watermark() + " (more than " + percent
                            + "% of checkpoint.stalled_fail_after_ms = " + config.checkpoint().stalledFailAfterMs()
                            + " ms)" + (holder == null ? "" : ", held by " + holder));
                    }
                }
                for (final InsertWorker w : p.workers())
                {
                    if (w.breaker().state() == CircuitBreaker.OPEN)
                    {
                        final String err = w.lastError();
                        reasons.add(what + ": the circuit breaker of insert worker " + w.name() + " is open"
                            + (err == null ? "" : " (last error: " + err + ")"));
                    }
                }
            }
            for (final ScatterPipeline p : scatters)
            {
                common("source " + p.name(), p.control(), p.sourceStats(),
                    SluiceConfig.Source.KAFKA.equals(p.source().kind()), reasons);
            }
            final boolean ok = reasons.isEmpty();
            return new Health(ok, ok ? "ready" : started ? "not ready" : "starting", reasons);
        }

        private void authentication(final String what, final PipelineStats stats, final List<String> reasons)
        {
            final String auth = stats.kafka.authenticationFailure();
            if (auth != null)
            {
                reasons.add(what + ": Kafka authentication failed: " + auth);
            }
        }

        private void common(final String what, final PipelineControl control, final PipelineStats stats,
            final boolean consumes, final List<String> reasons)
        {
            if (control.failed())
            {
                reasons.add(what + " failed: " + control.failureReason());
            }
            authentication(what, stats, reasons);
            if (consumes && stats.assignments.get() == 0)
            {
                reasons.add(what + ": waiting for its partition assignment (joining the consumer group)");
            }
        }
    }
}
