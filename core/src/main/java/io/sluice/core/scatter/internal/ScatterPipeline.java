package io.sluice.core.scatter.internal;

import java.io.FilterInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.UserRegex;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.deadletter.KafkaDeadLetterClients;
import io.sluice.core.scatter.ScatterDriver;
import io.sluice.core.scatter.ScatterException;
import io.sluice.core.scatter.ScatterStats;
import io.sluice.core.scatter.TopicAdmin;
import io.sluice.core.scatter.TopicProducer;
import io.sluice.core.source.KafkaChecks;
import io.sluice.core.source.KafkaSource;
import io.sluice.core.source.KafkaSourceContext;
import io.sluice.core.source.LineSource;
import io.sluice.core.source.LineSourceContext;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.StageAgents;
import io.sluice.core.stage.StageErrorHandler;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.ringbuffers.RecordSlab;
import io.sluice.tuning.StagePlan;
import io.sluice.tuning.WaitKind;
import io.sluice.tuning.WaitStrategies;

/**
 * One scatter pipeline ({@code [[sources]]}): source thread (a {@link KafkaSource}, a {@link LineSource}, or the
 * host application's threads through {@code ScatterRouter}) → ring of off-heap record slots → route stage (rule,
 * sanitise, topic id, new topics asked for) → produce stage (send with a pooled completion) → the broker's
 * acknowledgement acks the record's offset in its tracker → the source commits (Kafka) or advances (file, stdin)
 * only past acknowledged records. A topic admin thread creates or looks up new topics.
 *
 * <p>Lifecycle: {@link #start()} lists the broker's topics (an unreachable broker fails the start), checks that the
 * rule's fixed topics exist when {@code create_topics = false}, then starts the threads; {@link #requestStop()} drains
 * and commits; {@link #awaitTermination(long)} returns once every thread has ended and the clients are closed.
 * Thread-safe for these calls.
 */
public final class ScatterPipeline
{
    private static final Logger LOG = LoggerFactory.getLogger(ScatterPipeline.class);

    private final SluiceConfig config;
    private final SluiceConfig.Source source;
    private final ScatterDriver driver;
    private final boolean untilCaughtUp;
    private final PipelineControl control = new PipelineControl();
    private final PipelineStats sourceStats = new PipelineStats();
    private final ScatterStats stats = new ScatterStats();
    private final TopicRegistry inputTopics = new TopicRegistry();
    private final PartitionTrackers trackers;
    private final TopicTable table = new TopicTable();
    private final List<Thread> threads = new ArrayList<>();

    private RingBuffer<RecordEvent> ring;
    private OverflowPool overflow;
    private ScatterSlots slots;
    private DeliveryPool deliveries;
    private TopicAdmin admin;
    private TopicProducer producer;
    private TopicProvisioner provisioner;
    private ProduceStage produce;
    private BatchEventProcessor<RecordEvent> routeProcessor;
    private BatchEventProcessor<RecordEvent> produceProcessor;
    private KafkaSource kafkaSource;
    private LineSource lineSource;
    private IdleStrategy sourceIdle;
    private Thread sourceThread;
    private volatile boolean stopped;
    private long startNanos;
    private ScatterDeadLetters deadLetters;

    /**
     * @param config        the whole configuration
     * @param source        the source this pipeline runs
     * @param driver        opens the admin connection and the producer
     * @param untilCaughtUp kafka sources: stop once every partition is committed up to its end offset
     */
    public ScatterPipeline(final SluiceConfig config, final SluiceConfig.Source source, final ScatterDriver driver,
        final boolean untilCaughtUp)
    {
        this.config = config;
        this.source = source;
        this.driver = driver;
        this.untilCaughtUp = untilCaughtUp;
        this.trackers = new PartitionTrackers(config.engine().ackWindow());
    }

    /** @return the source's name */
    public String name()
    {
        return source.name();
    }

    /**
     * Builds and starts the pipeline (for {@code kind = embedded}, without a source thread: the host offers records
     * through {@code ScatterRouter}).
     *
     * @throws ScatterException when the broker cannot be reached, or a fixed topic of the rule does not exist and
     *                          {@code create_topics = false}
     */
    public void start() throws ScatterException
    {
        final SluiceConfig.Engine e = config.engine();
        final int cpus = config.tuning().cpus().isEmpty()
            ? Runtime.getRuntime().availableProcessors()
            : config.tuning().cpus().size();
        final WaitKind defaultWait = config.tuning().waitKind() != null
            ? WaitKind.parse(config.tuning().waitKind())
            : StagePlan.defaultWaitKind(cpus);
        final RecordSlab slab = buildRing(e, stageWait("route", defaultWait));
        final int known = openCluster();
        final SluiceConfig.TopicRule rule = source.rule();

        final RecordFailures failures = new RecordFailures(source.name(), trackers, this::where, stats, control);
        final ScatterRouteStage route = new ScatterRouteStage(source.name(),
            new TopicRouter(rule, source.duplicateKeys()), table, provisioner,
            new NewTopicRateLimiter(source.maxNewTopicsPerMinute()),
            TimeUnit.MILLISECONDS.toNanos(source.retryBackoffMs()),
            trackers, slots, failures, stats, e.maxRecordBytes());
        final int fallbackId = rule.fallback() == null ? -1 : table.intern(rule.fallback());
        if (fallbackId >= 0)
        {
            // openCluster made sure it exists
            table.entry(fallbackId).transition(TopicEntry.UNKNOWN, TopicEntry.EXISTS, null, System.nanoTime());
        }
        produce = new ProduceStage(source.name(), producer, table, provisioner, deliveries, slots, failures, trackers,
            overflow, control, stats, new RefusedRecords(source.name(), table, fallbackId, failures, stats));
        routeProcessor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(), route);
        routeProcessor.setExceptionHandler(
            StageErrorHandler.forRing(source.name(), "route", control, this::recordName, route::failEvent));
        produceProcessor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(routeProcessor.getSequence()),
            produce);
        produceProcessor.setExceptionHandler(
            StageErrorHandler.forRing(source.name(), "produce", control, this::recordName, produce::failEvent));
        ring.addGatingSequences(produceProcessor.getSequence());
        buildDeadLetters(route);
        final Agent sourceAgent = buildSource(e, WaitStrategies.idleStrategy(stageWait("source", defaultWait)));

        LOG.info("{}: scatter {} source, rule {}{}; ring {} slots x {} B = {} MiB off-heap; up to {} records in flight "
            + "to Kafka; {} topics on the cluster{}", source.name(), source.kind(), rule.describe(),
            rule.fallback() == null ? "" : " (fallback " + rule.fallback() + ")", e.ringSize(), e.slotBytes(),
            slab.capacityBytes() >> 20, deliveries.capacity(), known,
            source.createTopics() ? "; create_topics (at most " + source.maxNewTopicsPerMinute() + " per minute)" : "");

        startNanos = System.nanoTime();
        // the admin thread is no stage of [tuning]: it waits for requests as it always did, 1 ms at a time
        threads.add(StageAgents.start(provisioner, new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)),
            StageErrorHandler.forAgent(source.name(), "admin", control, provisioner::describeWork),
            source.name() + "-admin", -1));
        if (deadLetters != null)
        {
            final DeadLetters d = deadLetters.stage();
            threads.add(StageAgents.start(d, d.idleStrategy(),
                StageErrorHandler.forAgent(source.name(), "dead letters", control, d::lastError), d.roleName(), -1));
        }
        startThread(source.name() + "-produce", stageCpu("sink"), produceProcessor);
        startThread(source.name() + "-route", stageCpu("route"), routeProcessor);
        if (sourceAgent != null)
        {
            sourceThread = StageAgents.start(sourceAgent, sourceIdle,
                StageErrorHandler.forAgent(source.name(), "source", control,
                    kafkaSource != null ? kafkaSource::describeWork : lineSource::describeWork),
                source.name() + "-source", stageCpu("source"));
            threads.add(sourceThread);
        }
    }

    /**
     * The dead-letter stage of {@code on_error = "dead_letter"}: its own producer and admin client on the source's
     * Kafka connection, given to the route stage (records the rule cannot place) and the produce stage (records the
     * broker refuses for good).
     */
    private void buildDeadLetters(final ScatterRouteStage route)
    {
        if (source.deadLetter() == null)
        {
            return;
        }
        final DeadLetters stage = new DeadLetters(source.name(), source.deadLetter(),
            new KafkaDeadLetterClients(config.kafkaFor(source), "sluice-" + source.name() + "-dead-letters"), trackers,
            control, 256, Math.max(32L << 20, 2L * config.engine().maxRecordBytes()));
        deadLetters = new ScatterDeadLetters(source.name(), stage, id -> trackers.get(id).topic(), control);
        route.deadLetters(deadLetters);
        produce.deadLetters(deadLetters);
        LOG.info("{}: records that cannot be produced go to dead-letter topic {}", source.name(),
            source.deadLetter().topic());
    }

    /** @return the dead-letter stage, or null when the source has no dead-letter topic */
    public DeadLetters deadLetters()
    {
        return deadLetters == null ? null : deadLetters.stage();
    }

    /** Builds the ring (multi-producer for the embedded API), the overflow pool, the slots and the deliveries. */
    private RecordSlab buildRing(final SluiceConfig.Engine e, final WaitKind routeWait)
    {
        final boolean embedded = SluiceConfig.Source.EMBEDDED.equals(source.kind());
        final WaitStrategy wait = WaitStrategies.forStage(routeWait, TimeUnit.MILLISECONDS.toNanos(100));
        final RecordSlab slab = new RecordSlab(e.ringSize(), e.slotBytes());
        final int[] next = {0};
        ring = embedded
            ? RingBuffer.createMultiProducer(() -> new RecordEvent(slab.slot(next[0]++)), e.ringSize(), wait)
            : RingBuffer.createSingleProducer(() -> new RecordEvent(slab.slot(next[0]++)), e.ringSize(), wait);
        overflow = new OverflowPool(e.overflowBuffers(), Math.min(e.maxRecordBytes(), e.slotBytes() * 4),
            e.maxRecordBytes());
        slots = new ScatterSlots(e.ringSize());
        deliveries = new DeliveryPool(Math.max(1024, e.ringSize() * 4));
        return slab;
    }

    /**
     * Opens the admin connection, lists the cluster's topics, checks the rule's fixed topics, opens the producer.
     *
     * @return the number of topics on the cluster
     */
    private int openCluster() throws ScatterException
    {
        admin = driver.admin(config, source);
        provisioner = new TopicProvisioner(source.name(), admin, source.createTopics(), source.partitions(),
            source.replicationFactor(), stats);
        final int known;
        try
        {
            known = provisioner.seed();
        }
        catch (final RuntimeException ex)
        {
            admin.close();
            throw new ScatterException(
                "cannot list the topics of the cluster at " + config.kafkaFor(source).bootstrapServers()
                    + ": " + ex.getMessage(),
                ex);
        }
        final SluiceConfig.TopicRule rule = source.rule();
        if (!source.createTopics())
        {
            for (final String fixed : fixedTopics(rule))
            {
                if (!provisioner.isKnownAtStart(fixed))
                {
                    admin.close();
                    throw new ScatterException("topic " + fixed + " (the " + (fixed.equals(rule.fallback())
                        ? "fallback"
                        : "topic") + " of source " + source.name() + ") does not exist and create_topics = false");
                }
            }
        }
        else if (rule.fallback() != null)
        {
            // the fallback takes what the broker refuses: it exists before the first record, outside the rate limit
            try
            {
                provisioner.ensureAtStart(rule.fallback());
            }
            catch (final RuntimeException ex)
            {
                admin.close();
                throw new ScatterException("the fallback topic of source " + source.name() + ": " + ex.getMessage(),
                    ex);
            }
        }
        producer = driver.producer(config, source);
        provisioner.prepareWith(producer);
        return known;
    }

    /** @return the source's agent, or null for the embedded API (the host application's threads are the source) */
    private Agent buildSource(final SluiceConfig.Engine e, final IdleStrategy idle)
    {
        sourceIdle = idle;
        final ScatterDownstream downstream = new ScatterDownstream();
        switch (source.kind())
        {
            case SluiceConfig.Source.KAFKA -> {
                final KafkaSourceContext ctx = new KafkaSourceContext()
                    .configPath("sources[" + source.name() + "]")
                    .name(source.name())
                    .bootstrapServers(config.kafkaFor(source).bootstrapServers())
                    .groupId(source.groupId())
                    .pattern(source.pattern() == null ? null : UserRegex.compile(source.pattern()))
                    .topics(source.inputTopics())
                    .autoOffsetReset(source.autoOffsetReset())
                    .topicRefreshMs(source.topicRefreshMs())
                    .consumerProperties(KafkaChecks.withIsolationLevel(config.kafkaFor(source).consumerProperties(),
                        source.isolationLevel() == null ? SluiceConfig.Sink.READ_COMMITTED : source.isolationLevel()))
                    .commitIntervalMs(config.checkpoint().commitIntervalMs())
                    .stalledFailAfterMs(config.checkpoint().stalledFailAfterMs())
                    .drainTimeoutMs(config.checkpoint().drainTimeoutMs())
                    .maxRecordBytes(e.maxRecordBytes())
                    .copyKeyAndHeaders(true)
                    .untilCaughtUp(untilCaughtUp)
                    .pollTimeoutMs(100)
                    .conclude();
                kafkaSource = new KafkaSource(ctx, ring, overflow, trackers, inputTopics, control, sourceStats,
                    downstream, idle)
                    .rereadOnFailure(source.retryBackoffMs(), source.retryBackoffMaxMs());
                return kafkaSource;
            }
            case SluiceConfig.Source.FILE, SluiceConfig.Source.STDIN -> {
                final boolean file = SluiceConfig.Source.FILE.equals(source.kind());
                final LineSource.Input input = file ? () -> Files.newInputStream(Path.of(source.path())) : this::stdin;
                final LineSourceContext ctx = new LineSourceContext()
                    .configPath("sources[" + source.name() + "]")
                    .name(source.name())
                    .displayName(file ? "file " + source.path() : "stdin")
                    .maxRecordBytes(e.maxRecordBytes())
                    .replayBufferBytes(source.replayBufferBytes())
                    .ackWindow(e.ackWindow())
                    .stalledFailAfterMs(config.checkpoint().stalledFailAfterMs())
                    .statusIntervalMs(config.checkpoint().commitIntervalMs())
                    .backoffMs(source.retryBackoffMs())
                    .backoffMaxMs(source.retryBackoffMaxMs())
                    .drainTimeoutMs(config.checkpoint().drainTimeoutMs())
                    .checkpointFile(file && source.checkpointFile() != null ? Path.of(source.checkpointFile()) : null)
                    .conclude();
                lineSource = new LineSource(ctx,
                    input, ring, overflow, trackers,
                    control, sourceStats, downstream, idle);
                return lineSource;
            }
            default -> {
                return null;
            }
        }
    }

    private static List<String> fixedTopics(final SluiceConfig.TopicRule rule)
    {
        final List<String> out = new ArrayList<>();
        if (rule.strategy() == SluiceConfig.TopicRule.Strategy.STATIC)
        {
            out.add(rule.template());
        }
        if (rule.fallback() != null)
        {
            out.add(rule.fallback());
        }
        return out;
    }

    private InputStream stdin()
    {
        return new FilterInputStream(System.in)
        {
            @Override
            public void close()
            {
                // the process's stdin is not ours to close
            }
        };
    }

    private WaitKind stageWait(final String stage, final WaitKind fallback)
    {
        final SluiceConfig.Tuning.Stage s = config.tuning().stages().get(stage);
        return s == null || s.waitKind() == null ? fallback : WaitKind.parse(s.waitKind());
    }

    private int stageCpu(final String stage)
    {
        final SluiceConfig.Tuning.Stage s = config.tuning().stages().get(stage);
        return s == null ? -1 : s.cpu();
    }

    private void startThread(final String name, final int cpu, final Runnable r)
    {
        threads.add(StageAgents.thread(source.name(), name, cpu, r));
    }

    /** Names the record of an event for the stages' error handlers. */
    private String recordName(final RecordEvent event)
    {
        return event.trackerId() < 0
            ? "embedded record " + event.offset()
            : "record " + where(event.trackerId(), event.offset());
    }

    /** Names a record for messages: {@code topic-partition@offset}, or {@code file x line n}. */
    private String where(final int trackerId, final long offset)
    {
        final AckTracker t = trackers.get(trackerId);
        if (lineSource != null)
        {
            return t.topic() + " line " + (offset + 1);
        }
        return t.topic() + "-" + t.partition() + "@" + offset;
    }

    /** Asks for a graceful stop: drain what is in flight, commit what is acknowledged. */
    public void requestStop()
    {
        control.requestStop();
    }

    /**
     * Waits until the pipeline has stopped, then closes the producer and the admin connection.
     *
     * @param timeoutMs longest wait, ms
     * @return true when every thread ended
     * @throws InterruptedException when interrupted
     */
    public boolean awaitTermination(final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        if (sourceThread != null)
        {
            // the source ends first (after draining and committing)
            sourceThread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (sourceThread.isAlive())
            {
                return false;
            }
        }
        return stopStages(deadline);
    }

    /**
     * Drains (bounded by drain_timeout_ms) the stages of an embedded pipeline; its host has stopped offering.
     *
     * @return true when no record is in flight any more; false when the limit passed and the rest was abandoned
     */
    public boolean drainEmbedded()
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.checkpoint().drainTimeoutMs());
        final ScatterDownstream d = new ScatterDownstream();
        while (!d.idle())
        {
            if (System.nanoTime() - deadline >= 0)
            {
                LOG.warn("{}: records still in flight after {} ms (checkpoint.drain_timeout_ms): {}", source.name(),
                    config.checkpoint().drainTimeoutMs(), d.describeStall());
                d.abandon();
                return false;
            }
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    private synchronized boolean stopStages(final long deadline) throws InterruptedException
    {
        if (stopped)
        {
            return true;
        }
        produce.abandon();
        routeProcessor.halt();
        produceProcessor.halt();
        provisioner.stop();
        if (deadLetters != null)
        {
            deadLetters.stage().stop();
        }
        for (final Thread t : threads)
        {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive())
            {
                return false;
            }
        }
        producer.close(TimeUnit.SECONDS.toMillis(5));
        admin.close();
        stopped = true;
        return true;
    }

    /** @return whether the source thread has ended (for embedded pipelines: whether stop was requested) */
    public boolean sourceFinished()
    {
        return sourceThread == null ? control.stopRequested() : !sourceThread.isAlive() && started();
    }

    private boolean started()
    {
        return startNanos != 0;
    }

    /** @return the run state */
    public PipelineControl control()
    {
        return control;
    }

    /** @return the scatter counters */
    public ScatterStats stats()
    {
        return stats;
    }

    /** @return the source's counters (records in, back-pressure pauses) */
    public PipelineStats sourceStats()
    {
        return sourceStats;
    }

    /** @return the routed topics */
    public TopicTable topics()
    {
        return table;
    }

    /** @return the source's partition trackers (a Kafka source's partitions; the metrics read their lag) */
    public PartitionTrackers trackers()
    {
        return trackers;
    }

    /** @return admin round trips made for new topics so far */
    public long adminRoundTrips()
    {
        return provisioner == null ? 0 : provisioner.roundTrips();
    }

    /** @return nanoseconds since start */
    public long elapsedNanos()
    {
        return System.nanoTime() - startNanos;
    }

    /** @return true when a kafka source stopped because it caught up, or a file or stdin source read everything */
    public boolean caughtUp()
    {
        return kafkaSource != null ? kafkaSource.caughtUp() : lineSource != null && lineSource.completed();
    }

    /** @return the ring, for {@code ScatterRouter} */
    public RingBuffer<RecordEvent> ring()
    {
        return ring;
    }

    /** @return per-slot values, for {@code ScatterRouter} */
    public ScatterSlots slots()
    {
        return slots;
    }

    /** @return the overflow pool, for {@code ScatterRouter} */
    public OverflowPool overflow()
    {
        return overflow;
    }

    /** @return the configuration of the source */
    public SluiceConfig.Source source()
    {
        return source;
    }

    /** @return records handed to the producer and not yet acknowledged or failed by the broker */
    public long inFlight()
    {
        return deliveries == null ? 0 : deliveries.inFlight();
    }

    /** @return a one-line status for logs */
    public String statusLine()
    {
        return String.format(
            "%s: in=%d routed=%d fallback=%d failed=%d skipped=%d sent=%d produced=%d produce_errors=%d "
                + "topics=%d created=%d rate_limited=%d in_flight=%d paused=%d",
            source.name(), sourceStats.recordsIn.get(), stats.routed.get(), stats.fallbacks.get(), stats.failed.get(),
            stats.skipped.get(), stats.sent.get(), stats.produced.get(), stats.produceErrors.get(), table.size(),
            stats.topicsCreated.get(), stats.rateLimited.get(), inFlight(),
            sourceStats.backpressurePauses.get());
    }

    /** @return a summary for the end of a run */
    public String summary()
    {
        final double seconds = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
        return String.format("%s: summary: %d records in, %d produced in %.1f s (%.0f records/s); "
            + "fallback=%d failed=%d (re-read later) skipped=%d; topics created=%d in %d admin round trips",
            source.name(), sourceStats.recordsIn.get(), stats.produced.get(), seconds, stats.produced.get() / seconds,
            stats.fallbacks.get(), stats.failed.get(), stats.skipped.get(),
            stats.topicsCreated.get(), adminRoundTrips());
    }

    /** What the source sees of the stages after the ring. */
    private final class ScatterDownstream implements Downstream
    {
        @Override
        public boolean idle()
        {
            final long cursor = ring.getCursor();
            return routeProcessor.getSequence().get() == cursor && produceProcessor.getSequence().get() == cursor
                && deliveries.inFlight() == 0 && (deadLetters == null || deadLetters.stage().idle());
        }

        @Override
        public void abandon()
        {
            produce.abandon();
            if (deadLetters != null)
            {
                deadLetters.stage().abandon();
            }
        }

        @Override
        public String describeStall()
        {
            final String error = produce.lastError();
            return deliveries.inFlight() + " records in flight to Kafka, " + provisioner.pending()
                + " topics waiting for the admin client" + (error == null ? "" : "; last producer error: " + error);
        }

        @Override
        public boolean settledThrough(final long sequence)
        {
            return produceProcessor.getSequence().get() >= sequence && deliveries.settledThrough(sequence)
                && (deadLetters == null || deadLetters.stage().idle());
        }
    }

}
