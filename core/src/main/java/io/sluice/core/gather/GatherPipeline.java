package io.sluice.core.gather;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

import io.sluice.core.ack.AckTracker;
import io.sluice.core.ack.PartitionTrackers;
import io.sluice.core.config.ErrorPolicy;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.deadletter.DeadLetterClients;
import io.sluice.core.deadletter.DeadLetters;
import io.sluice.core.deadletter.KafkaDeadLetterClients;
import io.sluice.core.gather.batch.BatchBuffer;
import io.sluice.core.gather.batch.BatchPool;
import io.sluice.core.gather.batch.Destination;
import io.sluice.core.gather.json.JsonRecord;
import io.sluice.core.gather.sink.SinkException;
import io.sluice.core.gather.sink.SinkSpec;
import io.sluice.core.gather.split.GatherSpec;
import io.sluice.core.gather.split.Split;
import io.sluice.core.source.KafkaChecks;
import io.sluice.core.source.KafkaSource;
import io.sluice.core.source.KafkaSourceContext;
import io.sluice.core.stage.Downstream;
import io.sluice.core.stage.PipelineControl;
import io.sluice.core.stage.PipelineStats;
import io.sluice.core.stage.StageAgents;
import io.sluice.core.stage.StageErrorHandler;
import io.sluice.core.stage.StageLayouts;
import io.sluice.core.stage.TopicRegistry;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.ringbuffers.RecordRing;
import io.sluice.tuning.CpuAffinity;
import io.sluice.tuning.Layout;
import io.sluice.tuning.StagePlan;
import io.sluice.tuning.StageThread;
import io.sluice.tuning.WaitStrategies;

/**
 * One gather pipeline: Kafka source thread → ingest ring → route stage thread (decode, classify, encode, seal) →
 * per-shard insert worker threads → ack trackers → the source commits watermarks. Built from a {@link GatherSpec}
 * (a {@code [[sinks]]} table, or an embedding application's split). In the fused layout the route stage runs on the
 * source thread through an {@code EventPoller}; in the split layout on its own {@code BatchEventProcessor}. The
 * source and the insert workers are agents ({@link StageAgents}) with their stages' idle strategies; every stage
 * reports unexpected exceptions to its {@link StageErrorHandler}, which fails the pipeline at once in both layouts.
 *
 * <p>Lifecycle: {@link #start()} checks every sink is reachable, resolves literal destinations (so a missing table
 * is reported before anything is consumed), then starts the threads; {@link #requestStop()} drains and commits;
 * {@link #awaitTermination(long)} returns once every thread has ended. Thread-safe for these calls.
 *
 * @param <T> the record view type of the split
 */
public final class GatherPipeline<T>
{
    private static final Logger LOG = LoggerFactory.getLogger(GatherPipeline.class);

    /** How long the stages after the source may take to stop once the source has drained and ended, ms. */
    public static final long STAGE_STOP_GRACE_MS = 2_000;

    /**
     * The same after a drain that timed out (the stages were abandoned): a worker still inside an insert request that
     * does not return (a frozen server) is not waited for, so SIGTERM ends the run within the drain limit, ms.
     */
    public static final long ABANDONED_STOP_GRACE_MS = 200;

    /** Options of a run that are not part of the configuration file. */
    public record RunOptions(boolean untilCaughtUp)
    {
    }

    private final SluiceConfig config;
    private final GatherSpec<T> spec;
    private final Function<SinkSpec, SinkDriver> drivers;
    private final RunOptions options;
    private final PipelineControl control = new PipelineControl();
    private final PipelineStats stats = new PipelineStats();
    private final TopicRegistry topics = new TopicRegistry();
    private final PartitionTrackers trackers;
    /** Set by the source's thread when a drain timed out and it abandoned the stages after it. */
    private volatile boolean abandoned;
    private final List<Thread> threads = new ArrayList<>();
    private final List<InsertWorker> workers = new ArrayList<>();
    /** The kind of the sink each insert worker writes to (for the metrics' {@code kind} label). */
    private final Map<InsertWorker, String> workerKinds = new ConcurrentHashMap<>();
    private final List<BatchPool> pools = new ArrayList<>();
    private final DestinationResolver resolver = new DestinationResolver();
    /** The positions of the exactly-once sinks, read by the source. */
    private final SinkPositions positions = new SinkPositions();
    private SchemaWatch schemaWatch;
    private DestinationSetup destinationSetup;

    private RecordRing ring;
    private Layout layout;
    private int shards;
    private RouteStage<T> route;
    private StageErrorHandler routeErrors;
    private BatchEventProcessor<RecordEvent> routeProcessor;
    private EventPoller<RecordEvent> poller;
    private EventPoller.Handler<RecordEvent> pollHandler;
    private Sequence routeSequence;
    private KafkaSource source;
    private Thread sourceThread;
    private long startNanos;
    private GatherDeadLetters deadLetters;
    private Thread deadLetterThread;

    /**
     * A pipeline whose installed sinks are all of one kind, written by one driver.
     *
     * @param config  the whole configuration (engine, checkpoint, tuning, kafka)
     * @param spec    what this pipeline runs, concluded ({@link GatherSpec#conclude()})
     * @param driver  the destination system's driver, owned by the caller
     * @param options run options
     */
    public GatherPipeline(final SluiceConfig config, final GatherSpec<T> spec, final SinkDriver driver,
        final RunOptions options)
    {
        this(config, spec, sink -> driver, options);
    }

    /**
     * A pipeline whose installed sinks may be of different kinds (a split across kinds): each installed sink is
     * written by the driver {@code drivers} gives for it, asked once per installed sink by {@link #start()}'s thread.
     * Branches that write through different drivers, or with different connections, never share an insert worker;
     * their records share the partitions' ack as branches of one kind do.
     *
     * @param config  the whole configuration (engine, checkpoint, tuning, kafka)
     * @param spec    what this pipeline runs, concluded ({@link GatherSpec#conclude()})
     * @param drivers the driver of an installed sink (e.g. by its connection's kind, {@link SinkDrivers}); the
     *                drivers are owned by the caller
     * @param options run options
     */
    public GatherPipeline(final SluiceConfig config, final GatherSpec<T> spec,
        final Function<SinkSpec, SinkDriver> drivers, final RunOptions options)
    {
        if (!spec.concluded())
        {
            throw new IllegalArgumentException("pipeline " + spec.name() + ": the spec is not concluded");
        }
        this.config = config;
        this.spec = spec;
        this.drivers = drivers;
        this.options = options;
        this.trackers = new PartitionTrackers(config.engine().ackWindow());
    }

    /** @return the pipeline's name */
    public String name()
    {
        return spec.name();
    }

    /**
     * Builds and starts the pipeline.
     *
     * @throws SinkException when a destination is unreachable or a literal destination cannot be used
     */
    public void start() throws SinkException
    {
        final SluiceConfig.Engine e = config.engine();
        layout = StageLayouts.layout(config);
        final StagePlan plan = StageLayouts.plan(config);
        final StageThread sourceThreadPlan = plan.threadOf(StagePlan.SOURCE);
        final StageThread routeThreadPlan = layout == Layout.FUSED ? sourceThreadPlan : plan.threadOf(StagePlan.ROUTE);
        final StageThread sinkThreadPlan = plan.threadOf(StagePlan.SINK);

        final Map<String, DestinationResolver.SinkTarget> targets = new LinkedHashMap<>();
        final InsertWorkers built = new InsertWorkers(spec, drivers, trackers, stats, positions, workers, workerKinds);
        final Map<String, InsertWorker[][]> workersBySink = built.build(e, sinkThreadPlan.waitKind(), targets);
        shards = built.shards();
        resolver.positions(positions);
        final List<Split.Branch<?>> branches = spec.split().branches();
        final List<DestinationResolver.SinkTarget> branchSinks = new ArrayList<>();
        final List<InsertWorker[][]> branchWorkers = new ArrayList<>();
        long minLingerMs = Long.MAX_VALUE;
        for (final Split.Branch<?> b : branches)
        {
            branchSinks.add(targets.get(b.sink()));
            final InsertWorker[][] w = workersBySink.get(b.sink());
            branchWorkers.add(w);
            int perBranchWorkers = 0;
            for (final InsertWorker[] shard : w)
            {
                perBranchWorkers += shard.length;
            }
            pools.add(new BatchPool(perBranchWorkers * (e.queueDepth() + 1) + w.length + 4,
                Math.min(b.chunk().maxBytes() + 4096, 1 << 20), Math.min(b.chunk().maxRows(), 1024),
                b.chunk().maxRows()));
            minLingerMs = Math.min(minLingerMs, b.chunk().lingerMs());
        }

        final long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(100, minLingerMs / 4)));
        ring = new RecordRing(e.ringSize(), e.slotBytes(), WaitStrategies.forStage(routeThreadPlan.waitKind(),
            timeoutNanos));
        final OverflowPool overflow = new OverflowPool(e.overflowBuffers(),
            Math.min(e.maxRecordBytes(), e.slotBytes() * 4),
            e.maxRecordBytes());
        route = new RouteStage<>(spec.name(), spec.decoder(), spec.split(), spec.onError(), spec.tombstones(),
            branchSinks,
            branchWorkers, pools, resolver, trackers, topics, overflow, control, stats, SystemNanoClock.INSTANCE);
        if (spec.decoder() instanceof JsonRecord json)
        {
            json.topics(topics);
        }
        startDestinationSetup(e);
        buildDeadLetters();
        for (final InsertWorker w : workers)
        {
            // a batch refused for its data is inserted in parts to find its records; on_error decides their fate
            w.refusedRecords(spec.onError(), control);
        }
        final String problem = route.resolveLiteralDestinations();
        if (problem != null)
        {
            throw new SinkException(problem, false, 0, null);
        }
        wireRouteStage();
        route.onFlushed(this::onFlushed);
        source = buildSource(e, overflow, minLingerMs, WaitStrategies.idleStrategy(sourceThreadPlan.waitKind()));
        if (deadLetters != null)
        {
            // a dead letter carries the record whole: its key and headers too
            source.copyKeysAndHeaders();
        }
        route.keysAndHeadersRequest(source::copyKeysAndHeaders);
        logBounds(e, branches, plan);

        startNanos = System.nanoTime();
        for (final InsertWorker w : workers)
        {
            threads.add(StageAgents.start(w, w.idleStrategy(),
                StageErrorHandler.forAgent(spec.name(), "insert worker " + w.name(), control, w::describeWork),
                w.name(), sinkThreadPlan.cpu()));
        }
        if (deadLetters != null)
        {
            final DeadLetters d = deadLetters.stage();
            deadLetterThread = StageAgents.start(d, d.idleStrategy(),
                StageErrorHandler.forAgent(spec.name(), "dead letters", control, d::lastError), d.roleName(), -1);
            threads.add(deadLetterThread);
        }
        if (routeProcessor != null)
        {
            threads.add(StageAgents.thread(spec.name(), spec.name() + "-route", routeThreadPlan.cpu(), routeProcessor));
        }
        // tables that change while running are noticed within schema_refresh_ms (off the record path)
        schemaWatch = new SchemaWatch(spec.name() + "-schema-watch", resolver);
        threads.add(StageAgents.start(schemaWatch, new SleepingMillisIdleStrategy(50),
            StageErrorHandler.forAgent(spec.name(), "schema watch", control, () -> null),
            spec.name() + "-schema-watch", CpuAffinity.UNPINNED));
        sourceThread = StageAgents.start(source, source.idleStrategy(),
            StageErrorHandler.forAgent(spec.name(), "source", control, source::describeWork), spec.name() + "-source",
            sourceThreadPlan.cpu());
        threads.add(sourceThread);
    }

    /**
     * New tables are set up on {@code engine.destination_setup_threads} threads of their own, not on the route stage
     * (none when it is 0): see {@link DestinationSetup}.
     */
    private void startDestinationSetup(final SluiceConfig.Engine e)
    {
        if (e.destinationSetupThreads() > 0)
        {
            destinationSetup = new DestinationSetup(spec.name(), e.destinationSetupThreads());
            route.destinationSetup(destinationSetup);
        }
    }

    /**
     * Connects the route stage to the ring: its own {@code BatchEventProcessor} (split layout) or an
     * {@code EventPoller} the source thread drives (fused layout), each with the stage's error handler.
     */
    private void wireRouteStage()
    {
        final RingBuffer<RecordEvent> rb = ring.ringBuffer();
        routeErrors = StageErrorHandler.forRing(spec.name(), "route", control,
            event -> "record " + topics.name(event.topicId()) + "-" + event.partition() + "@" + event.offset(),
            (event, sequence, reason) -> trackers.get(event.trackerId()).fail(event.offset(),
                event.trackerGeneration(), -1, reason));
        if (layout == Layout.FUSED)
        {
            // on the source's thread the stage must never wait: the source keeps polling, committing and checking
            // stalls while the insert workers are behind
            route.nonBlocking();
            poller = rb.newPoller();
            rb.addGatingSequences(poller.getSequence());
            routeSequence = poller.getSequence();
        }
        else
        {
            routeProcessor = new BatchEventProcessorBuilder().build(rb, rb.newBarrier(), route);
            routeProcessor.setExceptionHandler(routeErrors);
            rb.addGatingSequences(routeProcessor.getSequence());
            routeSequence = routeProcessor.getSequence();
        }
    }

    /**
     * The dead-letter stage, when the pipeline has a dead-letter topic: its own producer and admin client on the
     * sink's Kafka connection, given to the route stage, and to the insert workers when {@code on_error} is
     * {@code dead_letter} (a batch refused for its data goes there too).
     */
    private void buildDeadLetters()
    {
        if (spec.deadLetter() == null)
        {
            return;
        }
        final DeadLetterClients clients = new KafkaDeadLetterClients(config.kafkaForSink(spec.name()),
            "sluice-" + spec.name() + "-dead-letters");
        deadLetters = new GatherDeadLetters(spec.name(), new DeadLetters(spec.name(), spec.deadLetter(), clients,
            trackers, control, 256, Math.max(32L << 20, 2L * config.engine().maxRecordBytes())), topics, control);
        route.deadLetters(deadLetters);
        if (spec.onError() == ErrorPolicy.DEAD_LETTER)
        {
            for (final InsertWorker w : workers)
            {
                w.deadLetters(deadLetters);
            }
        }
        LOG.info("{}: dead letters (unmatched = {}, on_error = {}) go to {}", spec.name(),
            spec.split().unmatched().configName(), spec.onError().configName(), spec.deadLetter().topic());
    }

    /** @return the dead-letter stage, or null when the pipeline has no dead-letter topic */
    public DeadLetters deadLetters()
    {
        return deadLetters == null ? null : deadLetters.stage();
    }

    private KafkaSource buildSource(final SluiceConfig.Engine e, final OverflowPool overflow, final long minLingerMs,
        final IdleStrategy idle)
    {
        // the sink of the first branch: one rule whatever the map's order when the branches' sinks differ
        final SinkSpec firstSink = spec.split().branches().isEmpty()
            ? spec.sinks().values().iterator().next()
            : spec.sinks().get(spec.split().branches().get(0).sink());
        final KafkaSourceContext ctx = new KafkaSourceContext()
            .configPath("sinks[" + spec.name() + "]")
            .name(spec.name())
            .bootstrapServers(config.kafkaForSink(spec.name()).bootstrapServers())
            .groupId(spec.groupId())
            .pattern(spec.pattern())
            .topics(spec.topics())
            .autoOffsetReset(spec.autoOffsetReset())
            .topicRefreshMs(spec.topicRefreshMs())
            .consumerProperties(
                KafkaChecks.withIsolationLevel(config.kafkaForSink(spec.name()).consumerProperties(), isolationLevel()))
            .commitIntervalMs(config.checkpoint().commitIntervalMs())
            .stalledFailAfterMs(config.checkpoint().stalledFailAfterMs())
            .drainTimeoutMs(config.checkpoint().drainTimeoutMs())
            .maxRecordBytes(e.maxRecordBytes())
            .copyKeyAndHeaders(false)
            .untilCaughtUp(options.untilCaughtUp())
            .pollTimeoutMs(Math.max(5, Math.min(100, minLingerMs / 2)))
            .conclude();
        return new KafkaSource(ctx, ring.ringBuffer(), overflow, trackers, topics, control, stats,
            new GatherDownstream(), idle)
            // a batch that failed for good (a dropped table, a server-side type error) is read again from the watermark,
            // with backoff, until it is written or checkpoint.stalled_fail_after_ms ends the run
            .rereadOnFailure(firstSink.connection().retryBackoffMs(), firstSink.connection().retryBackoffMaxMs())
            .storedPositions(positions.isEmpty() ? null : positions);
    }

    /** @return the {@code isolation_level} of the sink this pipeline runs, or read_committed (the embedded API) */
    private String isolationLevel()
    {
        for (final SluiceConfig.Sink s : config.sinks())
        {
            if (s.name().equals(spec.name()) && s.isolationLevel() != null)
            {
                return s.isolationLevel();
            }
        }
        return SluiceConfig.Sink.READ_COMMITTED;
    }

    private void logBounds(final SluiceConfig.Engine e, final List<Split.Branch<?>> branches, final StagePlan plan)
    {
        long poolBytes = 0;
        for (final Split.Branch<?> b : branches)
        {
            poolBytes += pools.get(b.index()).maxBuffers() * b.chunk().maxBytes();
        }
        LOG.info("{}: {} branches, {} insert workers over {} shard(s); memory bound: ring {} slots x {} B = {} MiB "
            + "off-heap, overflow up to {} x {} B, ack window {} offsets ({} KiB per partition), batch buffers up to "
            + "{} MiB; layout {}: {}",
            spec.name(), branches.size(), workers.size(), shards, e.ringSize(), e.slotBytes(),
            ring.capacityBytes() >> 20, e.overflowBuffers(), e.maxRecordBytes(), e.ackWindow(),
            AckTracker.footprintBytes(e.ackWindow()) / 1024,
            poolBytes >> 20, layout.configName(), plan.describe());
    }

    /** Asks for a graceful stop: drain what is in flight, commit what is acknowledged. */
    public void requestStop()
    {
        control.requestStop();
    }

    /**
     * Waits until the pipeline has stopped. The source ends first: it drains (never longer than
     * {@code checkpoint.drain_timeout_ms}), commits what is acknowledged and closes its consumer. Then the route stage
     * and the insert workers are stopped; they are idle after a complete drain and end at once. After an incomplete
     * drain they were abandoned, and a worker still inside an insert request (a server that hangs) is waited for at
     * most {@link #ABANDONED_STOP_GRACE_MS} ({@link #STAGE_STOP_GRACE_MS} after a complete drain): its rows are not
     * acknowledged, so nothing is lost, and the process need not wait for the request's own timeout
     * ({@code insert_timeout_ms}).
     *
     * @param timeoutMs longest wait, ms
     * @return true when every thread ended
     * @throws InterruptedException when the calling thread is interrupted while it waits
     */
    public boolean awaitTermination(final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        if (sourceThread == null)
        {
            return true;
        }
        // the source ends first (after draining and committing); then the route stage and workers are stopped
        sourceThread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (sourceThread.isAlive())
        {
            return false;
        }
        if (routeProcessor != null)
        {
            routeProcessor.halt();
        }
        for (final InsertWorker w : workers)
        {
            w.stop();
        }
        if (schemaWatch != null)
        {
            schemaWatch.stop();
        }
        if (destinationSetup != null)
        {
            destinationSetup.close();
        }
        if (deadLetters != null)
        {
            deadLetters.stage().stop();
        }
        final long graceMs = abandoned ? ABANDONED_STOP_GRACE_MS : STAGE_STOP_GRACE_MS;
        final long graceEnd = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
        boolean all = true;
        for (final Thread t : threads)
        {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(graceEnd - System.nanoTime())));
            if (t.isAlive())
            {
                all = false;
                LOG.warn("{}: thread {} did not stop within {} ms of the source (an insert request that does not "
                    + "return?); its rows are not acknowledged and are read again by the next run", spec.name(),
                    t.getName(), graceMs);
            }
        }
        if (!all)
        {
            return false;
        }
        for (final BatchPool p : pools)
        {
            p.close();
        }
        return true;
    }

    /** @return whether the source thread has ended (the pipeline is stopping or stopped) */
    public boolean sourceFinished()
    {
        return source == null || source.finished();
    }

    /** @return the run state */
    public PipelineControl control()
    {
        return control;
    }

    /** @return the counters */
    public PipelineStats stats()
    {
        return stats;
    }

    /** @return destinations resolved so far */
    public List<Destination> destinations()
    {
        return resolver.destinations();
    }

    /** @return the batch pools, one per branch (the metrics read their buffers in use; diagnostic) */
    public List<BatchPool> batchPools()
    {
        return List.copyOf(pools);
    }

    /** @return the partition trackers */
    public PartitionTrackers trackers()
    {
        return trackers;
    }

    /** @return the insert workers */
    public List<InsertWorker> workers()
    {
        return List.copyOf(workers);
    }

    /**
     * The kind of the pipeline's own sink (the {@code [[sinks]]} entry that consumes): the {@code kind} label of the
     * pipeline's series. An embedded spec without a sink of the pipeline's name takes its first branch's sink.
     *
     * @return e.g. {@code clickhouse} or {@code postgres}
     */
    public String kind()
    {
        final SinkSpec own = spec.sinks().get(spec.name());
        return own != null ? own.connection().kind() : kindOf(spec.split().branches().get(0).sink());
    }

    /**
     * The kind of an installed sink of this pipeline (a branch may write to a sink of another kind than the
     * pipeline's, docs/sinks.md "A split across kinds"): the {@code kind} label of a table's series.
     *
     * @param sinkName the installed sink's name ({@link Destination#sink()})
     * @return its kind, or {@link #kind()} when the pipeline has no sink of that name
     */
    public String kindOf(final String sinkName)
    {
        final SinkSpec s = sinkName == null ? null : spec.sinks().get(sinkName);
        return s != null ? s.connection().kind() : kind();
    }

    /**
     * @param worker one of {@link #workers()}
     * @return the kind of the sink the worker writes to, or {@link #kind()} for a worker of another pipeline
     */
    public String kindOf(final InsertWorker worker)
    {
        final String k = workerKinds.get(worker);
        return k != null ? k : kind();
    }

    /**
     * Says what holds a partition's watermark back: the destination whose open, queued or in-flight batch carries the
     * partition's oldest unacknowledged offset, the failure that stopped it, or the route stage (not routed yet).
     * Diagnostic: reads other threads' state without locking, so the answer may be a moment stale.
     *
     * @param trackerId a tracker id
     * @return a short description, or {@code null} when nothing is in flight
     */
    public String watermarkHolder(final int trackerId)
    {
        if (!trackers.isLive(trackerId))
        {
            return null;
        }
        final AckTracker t = trackers.get(trackerId);
        final long pending = t.pendingOldestOffset();
        if (pending < 0)
        {
            return null;
        }
        if (t.failed() && t.failedOffset() == pending)
        {
            return "failed: " + t.failureReason();
        }
        for (final BatchPool pool : pools)
        {
            for (final BatchBuffer b : pool.buffers())
            {
                final Destination d = b.destination();
                if (d != null && b.firstOffsetOf(trackerId) == pending)
                {
                    return d.toString();
                }
            }
        }
        return "route stage";
    }

    /** @return nanoseconds since start */
    public long elapsedNanos()
    {
        return System.nanoTime() - startNanos;
    }

    /** @return true when the run stopped because it caught up ({@code --until-caught-up}) */
    public boolean caughtUp()
    {
        return source != null && source.caughtUp();
    }

    /**
     * @return the partitions whose records stopped because an exactly-once sink's stored positions could not be
     *     used (above the end offset of a re-created topic, or unreadable), as {@code topic-partition: why}; a run
     *     that caught up with one of them did not write it, so it is no success (any thread)
     */
    public List<String> refusedPartitions()
    {
        return trackers.refusedPartitions();
    }

    /** What the insert workers had been offered when a flush completed (route stage's thread). */
    private record FlushMark(long sequence, long[] offered)
    {
    }

    private volatile FlushMark flushMark = new FlushMark(-1, new long[0]);

    private void onFlushed(final long sequence)
    {
        final long[] offered = new long[workers.size()];
        for (int i = 0; i < offered.length; i++)
        {
            offered[i] = workers.get(i).offered();
        }
        flushMark = new FlushMark(sequence, offered);
    }

    private final class GatherDownstream implements Downstream
    {
        /**
         * Settled through {@code sequence}, a flush control event the source published after the records it asks
         * about: the route stage has completed that flush (so every batch with those records was sealed and handed
         * to a worker) and every worker has completed every batch it had been offered by then.
         */
        @Override
        public boolean settledThrough(final long sequence)
        {
            if (routeSequence.get() < sequence)
            {
                return false;
            }
            final FlushMark mark = flushMark;
            if (mark.sequence() < sequence)
            {
                return false;
            }
            for (int i = 0; i < mark.offered().length; i++)
            {
                final InsertWorker w = workers.get(i);
                if (w.completed() < mark.offered()[i] && !w.finished())
                {
                    return false;
                }
            }
            return true;
        }

        /** The route stage has completed every event up to {@code sequence} (the flush at a hold, usually). */
        @Override
        public boolean routedThrough(final long sequence)
        {
            return routeSequence.get() >= sequence;
        }

        @Override
        public void pump()
        {
            if (poller == null)
            {
                return;
            }
            if (pollHandler == null)
            {
                pollHandler = (event, sequence, endOfBatch) ->
                {
                    try
                    {
                        route.onEvent(event, sequence, endOfBatch);
                    }
                    catch (final Throwable ex)
                    {
                        if (ex == RouteStage.RETRY_LATER)
                        {
                            // not consumed: the poller offers this event again next time
                            throw ex;
                        }
                        // as the split layout's BatchEventProcessor does: report, fail the record, go on
                        routeErrors.handleEventException(ex, sequence, event);
                    }
                    // a sealed batch waits for its worker: take no more events until it is handed off
                    return route.acceptsMore();
                };
            }
            try
            {
                route.onBatchStart(0, 0);
                if (route.retryHandOffs() > 0)
                {
                    return;
                }
                if (poller.poll(pollHandler) != EventPoller.PollState.PROCESSING)
                {
                    route.onTimeout(-1);
                }
            }
            catch (final Exception ex)
            {
                if (ex != RouteStage.RETRY_LATER)
                {
                    routeErrors.handleEventException(ex, routeSequence.get(), null);
                }
            }
        }

        @Override
        public boolean idle()
        {
            if (routeSequence.get() != ring.ringBuffer().getCursor())
            {
                return false;
            }
            for (final InsertWorker w : workers)
            {
                if (!w.idle())
                {
                    return false;
                }
            }
            return deadLetters == null || deadLetters.stage().idle();
        }

        @Override
        public void abandon()
        {
            abandoned = true;
            route.abandon();
            for (final InsertWorker w : workers)
            {
                w.abandon();
            }
            if (deadLetters != null)
            {
                deadLetters.stage().abandon();
            }
        }

        @Override
        public String describeStall()
        {
            final StringBuilder sb = new StringBuilder();
            for (final InsertWorker w : workers)
            {
                final String err = w.lastError();
                if (err == null && w.queued() == 0 && w.inFlightSinceNanos() == 0)
                {
                    continue;
                }
                sb.append(w.describe()).append(": ").append(w.queued()).append(" batches queued, breaker ")
                    .append(CircuitBreaker.name(w.breaker().state()));
                if (err != null)
                {
                    sb.append(", last error: ").append(err);
                }
                sb.append("; ");
            }
            if (deadLetters != null && deadLetters.stage().lastError() != null)
            {
                sb.append("dead letters: ").append(deadLetters.stage().inFlight()).append(" in flight, last error: ")
                    .append(deadLetters.stage().lastError()).append("; ");
            }
            return sb.toString();
        }
    }
}
