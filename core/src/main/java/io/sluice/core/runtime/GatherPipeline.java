package io.sluice.core.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;

import io.sluice.core.batch.BatchPool;
import io.sluice.core.batch.Destination;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.route.DestinationResolver;
import io.sluice.core.route.PathRegistry;
import io.sluice.core.route.RouteStage;
import io.sluice.core.sink.SinkDriver;
import io.sluice.core.sink.SinkException;
import io.sluice.core.source.KafkaSource;
import io.sluice.ringbuffers.OverflowPool;
import io.sluice.ringbuffers.RecordEvent;
import io.sluice.ringbuffers.RecordRing;
import io.sluice.tuning.CpuAffinity;
import io.sluice.tuning.StagePlan;
import io.sluice.tuning.WaitKind;
import io.sluice.tuning.WaitStrategies;

/**
 * One gather pipeline ({@code [[sinks]]}): Kafka source thread → ingest ring → route stage thread (extract,
 * classify, encode, seal) → per-shard insert worker threads → ack trackers → the source commits watermarks.
 *
 * <p>Lifecycle: {@link #start()} checks the destination is reachable, resolves literal destinations (so a missing
 * table is reported before anything is consumed), then starts the threads; {@link #requestStop()} drains and
 * commits; {@link #awaitTermination(long)} returns once every thread has ended. Thread-safe for these calls.
 */
public final class GatherPipeline {
    private static final Logger LOG = LoggerFactory.getLogger(GatherPipeline.class);

    /** Options of a run that are not part of the configuration file. */
    public record RunOptions(boolean untilCaughtUp) {
    }

    private final SluiceConfig config;
    private final SluiceConfig.Sink sink;
    private final SinkDriver driver;
    private final RunOptions options;
    private final PipelineControl control = new PipelineControl();
    private final PipelineStats stats = new PipelineStats();
    private final TopicRegistry topics = new TopicRegistry();
    private final PartitionTrackers trackers;
    private final List<Thread> threads = new ArrayList<>();

    private RecordRing ring;
    private OverflowPool overflow;
    private RouteStage route;
    private DestinationResolver resolver;
    private BatchEventProcessor<RecordEvent> routeProcessor;
    private InsertWorker[] workers;
    private KafkaSource source;
    private List<BatchPool> pools;
    private long startNanos;

    /**
     * @param config  the whole configuration
     * @param sink    the sink this pipeline runs
     * @param driver  the destination system's driver
     * @param options run options
     */
    public GatherPipeline(final SluiceConfig config, final SluiceConfig.Sink sink, final SinkDriver driver, final RunOptions options) {
        this.config = config;
        this.sink = sink;
        this.driver = driver;
        this.options = options;
        this.trackers = new PartitionTrackers(config.engine().ackWindow());
    }

    /** @return the sink's name */
    public String name() {
        return sink.name();
    }

    /**
     * Builds and starts the pipeline.
     *
     * @throws SinkException when the destination is unreachable or a literal destination cannot be used
     */
    public void start() throws SinkException {
        final SluiceConfig.Engine e = config.engine();
        driver.checkReachable(sink);

        final int cpus = config.tuning().cpus().isEmpty() ? Runtime.getRuntime().availableProcessors() : config.tuning().cpus().size();
        final WaitKind defaultWait = config.tuning().waitKind() != null ? WaitKind.parse(config.tuning().waitKind())
            : StagePlan.defaultWaitKind(cpus);
        final WaitKind routeWait = stageWait("route", defaultWait);
        final WaitKind sinkWait = stageWait("sink", defaultWait);

        long minLingerMs = Long.MAX_VALUE;
        for (final SluiceConfig.Branch b : sink.branches()) {
            minLingerMs = Math.min(minLingerMs, b.lingerMs());
        }
        final long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(100, minLingerMs / 4)));
        final WaitStrategy waitStrategy = WaitStrategies.forStage(routeWait, timeoutNanos);
        ring = new RecordRing(e.ringSize(), e.slotBytes(), waitStrategy);
        overflow = new OverflowPool(e.overflowBuffers(), Math.min(e.maxRecordBytes(), e.slotBytes() * 4), e.maxRecordBytes());

        final List<String> endpoints = sink.plugin().endpoints();
        workers = new InsertWorker[1];
        for (int s = 0; s < workers.length; s++) {
            final IdleStrategy idle = WaitStrategies.idleStrategy(sinkWait);
            workers[s] = new InsertWorker(sink.name() + "/shard-" + s, e.queueDepth(), driver.writer(sink, s, endpoints),
                trackers, stats, new CircuitBreaker(sink.plugin().breakerFailures(),
                TimeUnit.MILLISECONDS.toNanos(sink.plugin().breakerOpenMs())), idle, sink.plugin().retryBackoffMs(),
                sink.plugin().retryBackoffMaxMs());
        }
        pools = new ArrayList<>();
        for (final SluiceConfig.Branch b : sink.branches()) {
            final int buffers = workers.length * (e.queueDepth() + 2) + 8;
            pools.add(new BatchPool(buffers, Math.min(b.maxBytes() + 4096, 1 << 20), Math.min(b.maxRows(), 1024)));
        }
        final PathRegistry paths = new PathRegistry(128);
        resolver = new DestinationResolver(sink, driver.catalog(sink), paths);
        route = new RouteStage(sink, resolver, paths, pools, workers, trackers, topics, overflow, control, stats);
        final String problem = route.resolveLiteralDestinations();
        if (problem != null) {
            throw new SinkException(problem, false, 0, null);
        }

        final RingBuffer<RecordEvent> rb = ring.ringBuffer();
        routeProcessor = new BatchEventProcessorBuilder().build(rb, rb.newBarrier(), route);
        rb.addGatingSequences(routeProcessor.getSequence());

        source = new KafkaSource(new KafkaSource.Settings(
            sink.name(),
            config.kafka().bootstrapServers(),
            sink.groupId(),
            sink.pattern() == null ? null : Pattern.compile(sink.pattern()),
            sink.topics(),
            sink.autoOffsetReset(),
            sink.topicRefreshMs(),
            config.kafka().consumer(),
            config.checkpoint().commitIntervalMs(),
            config.checkpoint().stalledFailAfterMs(),
            config.checkpoint().drainTimeoutMs(),
            e.maxRecordBytes(),
            false,
            options.untilCaughtUp()), rb, overflow, trackers, topics, control, stats, new Downstream());

        LOG.info("{}: memory: ring {} slots x {} B = {} MiB off-heap; overflow up to {} x {} B; ack window {} offsets "
                + "({} KiB per partition); batch pools up to {} buffers per branch (max_bytes {} B); wait: route={} sink={}",
            sink.name(), e.ringSize(), e.slotBytes(), ring.capacityBytes() >> 20, e.overflowBuffers(), e.maxRecordBytes(),
            e.ackWindow(), e.ackWindow() / 8 / 1024, pools.get(0).maxBuffers(), sink.plugin().maxBytes(),
            routeWait.configName(), sinkWait.configName());

        startNanos = System.nanoTime();
        for (int s = 0; s < workers.length; s++) {
            startThread(sink.name() + "-insert-" + s, stageCpu("sink"), workers[s]);
        }
        startThread(sink.name() + "-route", stageCpu("route"), routeProcessor);
        startThread(sink.name() + "-source", stageCpu("source"), source);
    }

    private WaitKind stageWait(final String stage, final WaitKind fallback) {
        final SluiceConfig.Tuning.Stage s = config.tuning().stages().get(stage);
        return s == null || s.waitKind() == null ? fallback : WaitKind.parse(s.waitKind());
    }

    private int stageCpu(final String stage) {
        final SluiceConfig.Tuning.Stage s = config.tuning().stages().get(stage);
        return s == null ? -1 : s.cpu();
    }

    private void startThread(final String name, final int cpu, final Runnable r) {
        final ThreadFactory f = CpuAffinity.threadFactory(name, cpu);
        final Thread t = f.newThread(r);
        threads.add(t);
        t.start();
    }

    /** Asks for a graceful stop: drain what is in flight, commit what is acknowledged. */
    public void requestStop() {
        control.requestStop();
    }

    /**
     * Waits until the pipeline has stopped.
     *
     * @param timeoutMs longest wait, ms
     * @return true when every thread ended
     */
    public boolean awaitTermination(final long timeoutMs) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        // the source ends first (after draining and committing); then the route stage and workers are stopped
        final Thread sourceThread = threads.get(threads.size() - 1);
        sourceThread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (sourceThread.isAlive()) {
            return false;
        }
        routeProcessor.halt();
        for (final InsertWorker w : workers) {
            w.stop();
        }
        for (final Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                return false;
            }
        }
        for (final BatchPool p : pools) {
            p.close();
        }
        return true;
    }

    /** @return whether the source thread has ended (the pipeline is stopping or stopped) */
    public boolean sourceFinished() {
        return source != null && source.finished();
    }

    /** @return the run state */
    public PipelineControl control() {
        return control;
    }

    /** @return the counters */
    public PipelineStats stats() {
        return stats;
    }

    /** @return destinations resolved so far */
    public List<Destination> destinations() {
        return resolver == null ? List.of() : resolver.destinations();
    }

    /** @return the partition trackers */
    public PartitionTrackers trackers() {
        return trackers;
    }

    /** @return the insert workers */
    public InsertWorker[] workers() {
        return workers.clone();
    }

    /** @return nanoseconds since start */
    public long elapsedNanos() {
        return System.nanoTime() - startNanos;
    }

    /** @return true when the run stopped because it caught up ({@code --until-caught-up}) */
    public boolean caughtUp() {
        return source != null && source.caughtUp();
    }

    private final class Downstream implements KafkaSource.Downstream {
        @Override
        public boolean idle() {
            if (routeProcessor.getSequence().get() != ring.ringBuffer().getCursor()) {
                return false;
            }
            for (final InsertWorker w : workers) {
                if (!w.idle()) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void abandon() {
            for (final InsertWorker w : workers) {
                w.abandon();
            }
        }

        @Override
        public String describeStall() {
            final StringBuilder sb = new StringBuilder();
            for (final InsertWorker w : workers) {
                final String err = w.lastError();
                sb.append(w.describe()).append(": ").append(w.queued()).append(" batches queued, breaker ")
                    .append(CircuitBreaker.name(w.breaker().state()));
                if (err != null) {
                    sb.append(", last error: ").append(err);
                }
                sb.append("; ");
            }
            return sb.toString();
        }
    }
}
